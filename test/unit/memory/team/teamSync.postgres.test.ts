// The team-memory sync suite against the reference server on PostgreSQL (several instances can share it).
import { defineTeamSyncTests } from './teamSyncSuite';

defineTeamSyncTests('postgres');
