// The team-memory sync suite against the reference server on SQLite (its default storage).
import { defineTeamSyncTests } from './teamSyncSuite';

defineTeamSyncTests('sqlite');
