// The PostgreSQL backend, for several server instances behind a load balancer: every PUT locks its
// repository's row (SELECT ... FOR UPDATE) before checking the version, so PUTs to one repository are
// serialised across instances while other repositories go on in parallel.
import pg from 'pg';
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

const SCHEMA = teamSchema({ bigint: 'BIGINT', time: 'TIMESTAMPTZ' });
/** Any constant: instances starting together take this lock so only one runs CREATE TABLE at a time. */
const SCHEMA_LOCK = 0x656e6772;

interface TokenRow {
  token_hash: string;
  repo: string;
  created_at: Date;
}

/** `postgres host:port/db` from a connection URL, without user or password. */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    return `postgres ${u.host}${u.pathname}`;
  } catch {
    return 'postgres';
  }
}

async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

export async function openPostgresTeamStore(url: string, poolSize = 10): Promise<TeamStore> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client whose connection drops (the database restarted) must not crash the server.
  pool.on('error', () => undefined);
  try {
    await inTransaction(pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      await c.query(SCHEMA);
    });
  } catch (err) {
    await pool.end();
    throw new Error(`cannot open the PostgreSQL database (${describePostgresUrl(url)}): ${(err as Error).message}`);
  }

  const checksumsOf = async (c: pg.PoolClient | pg.Pool, repo: string): Promise<Record<string, string>> => {
    const rows = await c.query<{ path: string; sha256: string }>(
      'SELECT path, sha256 FROM team_entries WHERE repo = $1 ORDER BY path',
      [repo],
    );
    return Object.fromEntries(rows.rows.map((r) => [r.path, r.sha256]));
  };
  const tokenInfo = (r: TokenRow): TeamTokenInfo => ({
    id: r.token_hash.slice(0, TOKEN_ID_LENGTH),
    repo: r.repo,
    createdAt: r.created_at.toISOString(),
  });

  return {
    description: describePostgresUrl(url),
    get: async (repo) =>
      // REPEATABLE READ: the version and the entries come from one snapshot, never half of a PUT.
      inTransaction(pool, async (c): Promise<TeamSnapshot> => {
        await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const v = await c.query<{ version: string }>('SELECT version FROM team_repos WHERE repo = $1', [repo]);
        const rows = await c.query<{ path: string; content: string; sha256: string }>(
          'SELECT path, content, sha256 FROM team_entries WHERE repo = $1 ORDER BY path',
          [repo],
        );
        const snapshot: TeamSnapshot = { version: Number(v.rows[0]?.version ?? 0), entries: {}, checksums: {} };
        for (const r of rows.rows) {
          snapshot.entries[r.path] = r.content;
          snapshot.checksums[r.path] = r.sha256;
        }
        return snapshot;
      }),
    version: async (repo) => {
      const v = await pool.query<{ version: string }>('SELECT version FROM team_repos WHERE repo = $1', [repo]);
      return Number(v.rows[0]?.version ?? 0);
    },
    put: async (repo, ifMatch, entries, maxEntries) =>
      inTransaction(pool, async (c): Promise<TeamPutResult> => {
        // The row must exist to be locked: the first PUT to a repository creates it at version 0.
        await c.query('INSERT INTO team_repos (repo, version) VALUES ($1, 0) ON CONFLICT (repo) DO NOTHING', [repo]);
        const v = await c.query<{ version: string }>('SELECT version FROM team_repos WHERE repo = $1 FOR UPDATE', [
          repo,
        ]);
        const version = Number(v.rows[0].version);
        if (version !== ifMatch) return { ok: false, reason: 'conflict', version };
        const existing = new Map(Object.entries(await checksumsOf(c, repo)));
        const { changed, added } = planPut(existing, entries);
        if (added > 0 && existing.size + added > maxEntries)
          return { ok: false, reason: 'too_many_entries', version, maxEntries };
        if (changed.length === 0) return { ok: true, version, checksums: Object.fromEntries(existing) };
        await c.query(
          'INSERT INTO team_entries (repo, path, content, sha256) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[]) ' +
            'ON CONFLICT (repo, path) DO UPDATE SET content = EXCLUDED.content, sha256 = EXCLUDED.sha256',
          [repo, changed.map((e) => e.path), changed.map((e) => e.content), changed.map((e) => e.sha256)],
        );
        await c.query('UPDATE team_repos SET version = $2 WHERE repo = $1', [repo, version + 1]);
        return { ok: true, version: version + 1, checksums: await checksumsOf(c, repo) };
      }),
    addToken: async (repo) => {
      const { token, hash } = newToken();
      await pool.query('INSERT INTO team_tokens (token_hash, repo, created_at) VALUES ($1, $2, now())', [hash, repo]);
      return token;
    },
    lookupToken: async (tokenHash) => {
      const r = await pool.query<{ repo: string }>('SELECT repo FROM team_tokens WHERE token_hash = $1', [tokenHash]);
      return r.rows[0]?.repo ?? null;
    },
    listTokens: async () => {
      const r = await pool.query<TokenRow>(
        'SELECT token_hash, repo, created_at FROM team_tokens ORDER BY created_at, token_hash',
      );
      return r.rows.map(tokenInfo);
    },
    revokeTokens: async (idPrefix) => {
      const r = await pool.query<TokenRow>(
        "DELETE FROM team_tokens WHERE token_hash LIKE $1 || '%' RETURNING token_hash, repo, created_at",
        [checkTokenIdPrefix(idPrefix)],
      );
      return r.rows.map(tokenInfo);
    },
    ping: async () => {
      await pool.query('SELECT 1');
    },
    close: () => pool.end(),
  };
}
