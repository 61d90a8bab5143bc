// The SQLite backend (the default): one file, WAL so reads never wait for a writer, and every PUT in a
// BEGIN IMMEDIATE transaction, which takes the write lock before reading the version: two processes on
// one file serialise there (busy_timeout makes the second wait instead of failing).
import fs from 'node:fs';
import path from 'node:path';
import type Sqlite from 'better-sqlite3';
import {
  checkTokenIdPrefix,
  newToken,
  planPut,
  teamSchema,
  TOKEN_ID_LENGTH,
  type TeamPutResult,
  type TeamSnapshot,
  type TeamStore,
  type TeamTokenInfo,
} from './teamStore';

/** How long a writer waits for another process's transaction before failing (a 500). */
const BUSY_TIMEOUT_MS = 10_000;

const SCHEMA = teamSchema({ bigint: 'INTEGER', time: 'TEXT' });

interface EntryRow {
  path: string;
  content: string;
  sha256: string;
}
interface TokenRow {
  token_hash: string;
  repo: string;
  created_at: string;
}

/** What to do when better-sqlite3 is missing: it is optional so that the extension installs offline. */
export const SQLITE_MISSING =
  'SQLite storage needs better-sqlite3, a native module that `npm install` skips when it can neither ' +
  "download its prebuilt binary (from github.com) nor compile one (python3, make, a C++ compiler and Node's headers from nodejs.org). " +
  'Run `npm install better-sqlite3` where it can, or store in PostgreSQL: --db postgres://user:password@host:5432/engram';

/**
 * better-sqlite3, loaded on first use: an optional dependency (a native addon) that npm leaves out when
 * its build fails, and the PostgreSQL backend and the token commands on PostgreSQL run without it.
 */
export function loadSqlite(load: (id: string) => unknown = require): typeof Sqlite {
  try {
    return load('better-sqlite3') as typeof Sqlite;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') throw new Error(SQLITE_MISSING);
    throw err;
  }
}

export function openSqliteTeamStore(file: string): TeamStore {
  const Database = loadSqlite();
  const resolved = path.resolve(file);
  fs.mkdirSync(path.dirname(resolved), { recursive: true });
  const db = openDatabase(Database, resolved);
  db.pragma('journal_mode = WAL');
  // FULL: an acknowledged PUT survives a power cut too, not only a crash of the process.
  db.pragma('synchronous = FULL');
  db.exec(SCHEMA);

  const versionOf = db.prepare<[string], { version: number }>('SELECT version FROM team_repos WHERE repo = ?');
  const entriesOf = db.prepare<[string], EntryRow>(
    'SELECT path, content, sha256 FROM team_entries WHERE repo = ? ORDER BY path',
  );
  const checksumsOf = db.prepare<[string], Omit<EntryRow, 'content'>>(
    'SELECT path, sha256 FROM team_entries WHERE repo = ? ORDER BY path',
  );
  const upsertEntry = db.prepare(
    'INSERT INTO team_entries (repo, path, content, sha256) VALUES (?, ?, ?, ?) ' +
      'ON CONFLICT (repo, path) DO UPDATE SET content = excluded.content, sha256 = excluded.sha256',
  );
  const setVersion = db.prepare(
    'INSERT INTO team_repos (repo, version) VALUES (?, ?) ON CONFLICT (repo) DO UPDATE SET version = excluded.version',
  );

  const read = db.transaction((repo: string): TeamSnapshot => {
    const snapshot: TeamSnapshot = { version: versionOf.get(repo)?.version ?? 0, entries: {}, checksums: {} };
    for (const row of entriesOf.iterate(repo)) {
      snapshot.entries[row.path] = row.content;
      snapshot.checksums[row.path] = row.sha256;
    }
    return snapshot;
  });

  const write = db.transaction(
    (repo: string, ifMatch: number, entries: Record<string, string>, maxEntries: number): TeamPutResult => {
      const version = versionOf.get(repo)?.version ?? 0;
      if (version !== ifMatch) return { ok: false, reason: 'conflict', version };
      const existing = new Map(checksumsOf.all(repo).map((r) => [r.path, r.sha256]));
      const { changed, added } = planPut(existing, entries);
      if (added > 0 && existing.size + added > maxEntries)
        return { ok: false, reason: 'too_many_entries', version, maxEntries };
      let next = version;
      if (changed.length > 0) {
        for (const e of changed) upsertEntry.run(repo, e.path, e.content, e.sha256);
        next = version + 1;
        setVersion.run(repo, next);
      }
      const checksums: Record<string, string> = {};
      for (const row of checksumsOf.iterate(repo)) checksums[row.path] = row.sha256;
      return { ok: true, version: next, checksums };
    },
  );

  const tokenInfo = (r: TokenRow): TeamTokenInfo => ({
    id: r.token_hash.slice(0, TOKEN_ID_LENGTH),
    repo: r.repo,
    createdAt: r.created_at,
  });
  const allTokens = db.prepare<[], TokenRow>(
    'SELECT token_hash, repo, created_at FROM team_tokens ORDER BY created_at, token_hash',
  );
  const revoke = db.transaction((idPrefix: string): TeamTokenInfo[] => {
    const rows = db
      .prepare<[string], TokenRow>(
        "SELECT token_hash, repo, created_at FROM team_tokens WHERE token_hash LIKE ? || '%'",
      )
      .all(idPrefix);
    db.prepare("DELETE FROM team_tokens WHERE token_hash LIKE ? || '%'").run(idPrefix);
    return rows.map(tokenInfo);
  });

  return {
    description: `sqlite ${resolved}`,
    get: async (repo) => read(repo),
    version: async (repo) => versionOf.get(repo)?.version ?? 0,
    // IMMEDIATE: the write lock is taken before the version is read, so no other process can slip a
    // PUT in between the check and the write.
    put: async (repo, ifMatch, entries, maxEntries) => write.immediate(repo, ifMatch, entries, maxEntries),
    addToken: async (repo) => {
      const { token, hash } = newToken();
      db.prepare('INSERT INTO team_tokens (token_hash, repo, created_at) VALUES (?, ?, ?)').run(
        hash,
        repo,
        new Date().toISOString(),
      );
      return token;
    },
    lookupToken: async (tokenHash) =>
      db.prepare<[string], { repo: string }>('SELECT repo FROM team_tokens WHERE token_hash = ?').get(tokenHash)
        ?.repo ?? null,
    listTokens: async () => allTokens.all().map(tokenInfo),
    revokeTokens: async (idPrefix) => revoke.immediate(checkTokenIdPrefix(idPrefix)),
    ping: async () => {
      db.prepare('SELECT 1').get();
    },
    close: async () => {
      db.close();
    },
  };
}

/** The addon itself loads on the first open: a binary missing or built for another Node gets the same advice. */
function openDatabase(Database: typeof Sqlite, file: string): Sqlite.Database {
  try {
    return new Database(file, { timeout: BUSY_TIMEOUT_MS });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_DLOPEN_FAILED' || /bindings file|NODE_MODULE_VERSION/.test(e.message))
      throw new Error(`${SQLITE_MISSING} (${e.message.split('\n')[0]})`);
    throw err;
  }
}
