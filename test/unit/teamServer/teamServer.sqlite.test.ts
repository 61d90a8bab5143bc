// The team-memory server suites on SQLite (the default backend).
import { defineTeamConcurrencyTests } from './teamConcurrencySuite';
import { defineTeamServerTests } from './teamServerSuite';

defineTeamServerTests('sqlite');
defineTeamConcurrencyTests('sqlite');
