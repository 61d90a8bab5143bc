// `--db` picks the backend: a postgres:// or postgresql:// URL opens PostgreSQL, anything else is a
// SQLite file path.
import { openPostgresTeamStore } from './postgresTeamStore';
import { openSqliteTeamStore } from './sqliteTeamStore';
import type { TeamStore } from './teamStore';

/** The SQLite file used when neither --db nor ENGRAM_TEAM_DB names one (relative to the working folder). */
export const DEFAULT_TEAM_DB = 'team-memory.db';

export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

export async function openTeamStore(db: string): Promise<TeamStore> {
  return isPostgresUrl(db) ? openPostgresTeamStore(db) : openSqliteTeamStore(db);
}
