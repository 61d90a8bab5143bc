// The token CLI of the team-memory server (`teamServer token add|list|revoke`) as a child process, on
// both backends, and proof from the storage itself that a token is kept only as its sha256.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { sha256Hex } from '../../../packages/team-server/src/teamStore';
import { usePostgresDatabase } from '../support/postgres';
import { startTeamServerProcess, type TeamServerProcess } from '../support/teamServerProcess';
import { useTempDirs } from '../support/tempDirs';
import { errorOf, RepoClient, type Backend } from './teamServerSuite';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function teamServer(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'packages/team-server/src/main.ts', ...args],
      { cwd: process.cwd(), env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Every value in the storage as text: SQLite's file, WAL included, or every row of every team table. */
async function everythingStored(backend: Backend, db: string): Promise<string> {
  if (backend === 'sqlite') {
    const conn = new Database(db, { readonly: true });
    const rows = ['team_repos', 'team_entries', 'team_tokens'].map((t) =>
      JSON.stringify(conn.prepare(`SELECT * FROM ${t}`).all()),
    );
    conn.close();
    const files = [db, `${db}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f).toString('latin1'));
    return [...rows, ...files].join('\n');
  }
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    const out: string[] = [];
    for (const t of ['team_repos', 'team_entries', 'team_tokens'])
      out.push(JSON.stringify((await client.query(`SELECT * FROM ${t}`)).rows));
    return out.join('\n');
  } finally {
    await client.end();
  }
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`team server tokens (${backend})`, () => {
    const tempDir = useTempDirs('all');
    const pgUrl = backend === 'postgres' ? usePostgresDatabase('tokens') : null;
    let db: string;
    let server: TeamServerProcess;
    before(async () => {
      db = pgUrl?.() ?? path.join(tempDir('engram-teamdb-'), 'team.db');
      server = await startTeamServerProcess({ db, quiet: true });
    });
    after(() => server?.stop());

    it('token add prints only the token; it opens its repository, and the storage holds its sha256, never the token', async () => {
      const run = await teamServer(['token', 'add', '--repo', 'acme/tokens', '--db', db]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^engram_team_[A-Za-z0-9_-]{43}\n$/);
      assert.match(run.stderr, /acme\/tokens/);
      const token = run.stdout.trim();
      const client = new RepoClient(server, 'acme/tokens', token);
      assert.equal((await client.push(0, { 'a.md': 'hello' })).version, 1);
      assert.equal((await errorOf(await new RepoClient(server, 'acme/other', token).get())).status, 403);
      const stored = await everythingStored(backend, db);
      assert.ok(stored.includes(sha256Hex(token)), 'the hash is stored');
      assert.ok(
        !stored.includes(token) && !stored.includes(token.slice('engram_team_'.length, 30)),
        'no part of the token text is stored',
      );
    });

    it('token list names every token by id and repository; token revoke ID removes it and the server answers 401', async () => {
      const tokens = [];
      for (const repo of ['acme/list-a', 'acme/list-b']) {
        const run = await teamServer(['token', 'add', '--repo', repo, '--db', db]);
        tokens.push({ repo, token: run.stdout.trim(), id: sha256Hex(run.stdout.trim()).slice(0, 12) });
      }
      const list = await teamServer(['token', 'list', '--db', db]);
      assert.equal(list.code, 0, list.stderr);
      for (const t of tokens) assert.match(list.stdout, new RegExp(`^${t.id}  ${t.repo}  \\d{4}-\\d\\d-\\d\\dT`, 'm'));
      assert.ok(!list.stdout.includes(tokens[0].token));

      const revoke = await teamServer(['token', 'revoke', tokens[0].id.slice(0, 8), '--db', db]);
      assert.equal(revoke.code, 0, revoke.stderr);
      assert.equal(revoke.stdout, `revoked ${tokens[0].id}  ${tokens[0].repo}\n`);
      assert.equal((await errorOf(await new RepoClient(server, tokens[0].repo, tokens[0].token).get())).status, 401);
      assert.equal(
        (await new RepoClient(server, tokens[1].repo, tokens[1].token).get()).status,
        200,
        'the other token still works',
      );
      assert.doesNotMatch((await teamServer(['token', 'list', '--db', db])).stdout, new RegExp(tokens[0].id));

      const again = await teamServer(['token', 'revoke', tokens[0].id, '--db', db]);
      assert.deepEqual([again.code, again.stdout], [1, '']);
      assert.match(again.stderr, /no token id starts with/);
      const bad = await teamServer(['token', 'revoke', "a%'", '--db', db]);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /not a token id/);
    });
  });
}

describe('team server command line', () => {
  const tempDir = useTempDirs('all');

  it('--help prints the usage; bad arguments exit 2 with it', async () => {
    const help = await teamServer(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /token add --repo owner\/repo/);
    assert.match(help.stdout, /--max-entries/);
    for (const args of [
      ['token', 'add'],
      ['token', 'add', '--repo', 'not a slug'],
      ['--port', 'x'],
      ['--bogus'],
      ['frobnicate'],
      ['token', 'list', '--port', '1'],
    ]) {
      const run = await teamServer(args);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /usage:/);
      assert.equal(run.stdout, '');
    }
  });

  it('uses $ENGRAM_TEAM_DB when --db is not given', async () => {
    const db = path.join(tempDir('engram-teamdb-'), 'env.db');
    const run = await teamServer(['token', 'add', '--repo', 'acme/env'], { ENGRAM_TEAM_DB: db });
    assert.equal(run.code, 0, run.stderr);
    const list = await teamServer(['token', 'list'], { ENGRAM_TEAM_DB: db });
    assert.match(list.stdout, /acme\/env/);
  });

  it('a PostgreSQL server that does not answer is a clear error, exit 1', async () => {
    const run = await teamServer(['--port', '0', '--db', 'postgres://someone:secret@127.0.0.1:1/team']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /cannot open the PostgreSQL database \(postgres 127\.0\.0\.1:1\/team\)/);
    assert.doesNotMatch(run.stderr, /secret/);
  });
});
