// The team-memory server suites on PostgreSQL (the backend for several instances behind a load balancer).
import { defineTeamConcurrencyTests } from './teamConcurrencySuite';
import { defineTeamServerTests } from './teamServerSuite';

defineTeamServerTests('postgres');
defineTeamConcurrencyTests('postgres');
