// A fresh, empty PostgreSQL database for a test file (or a describe()), dropped after its last test.
// The server: ENGRAM_TEST_PG_URL (an admin URL of a role that may CREATE DATABASE) when set, else the
// local one as .ci/run sets it up. If none answers the tests FAIL, saying how to get one: a test of
// the PostgreSQL backend that did not run must not count as passed.
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import pg from 'pg';

/** The role .ci/run creates on the local cluster. */
const LOCAL_ADMIN_URL = 'postgresql://engram_test:engram_test@127.0.0.1:5432/postgres';

const HOW_TO =
  'PostgreSQL is needed for these tests. Either set ENGRAM_TEST_PG_URL to an admin URL ' +
  '(postgresql://user:password@host:port/postgres, a role that may CREATE DATABASE), or, on Debian as root: ' +
  'apt-get install postgresql && pg_ctlcluster 15 main start && ' +
  `su postgres -c "psql -c \\"CREATE ROLE engram_test LOGIN CREATEDB PASSWORD 'engram_test'\\""` +
  ' (what .ci/run does).';

export function postgresAdminUrl(): string {
  return process.env.ENGRAM_TEST_PG_URL || LOCAL_ADMIN_URL;
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = postgresAdminUrl();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    const where = new URL(url).host;
    throw new Error(`cannot reach PostgreSQL at ${where}: ${(err as Error).message}\n${HOW_TO}`);
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  /** Connection URL of the new database (the admin URL with its name). */
  url: string;
  /** Drops it, closing whatever connections are still open to it. */
  drop(): Promise<void>;
}

/** Creates `engram_t_<label>_<random>` and returns its URL. */
export async function createTestDatabase(label = 'test'): Promise<TestDatabase> {
  const name = `engram_t_${label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30)}_${randomBytes(4).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(postgresAdminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withAdmin(async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

/**
 * A database created in before() and dropped in after(): call it at the top of a file or in a
 * describe(); the returned function gives its URL inside tests and later hooks.
 */
export function usePostgresDatabase(label?: string): () => string {
  let db: TestDatabase | undefined;
  before(async () => {
    db = await createTestDatabase(label);
  });
  after(() => db?.drop());
  return () => {
    if (!db) throw new Error('The test database is created in before(): use it inside a test or a later hook.');
    return db.url;
  };
}
