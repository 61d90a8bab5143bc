// The reference team-memory server over real HTTP, as real child processes on 127.0.0.1, on real
// storage: the same suite for SQLite (teamServer.sqlite.test.ts) and PostgreSQL (teamServer.postgres.test.ts).
// What the server stored is read from its storage directly (readStored), not taken from its replies.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  TEAM_MAX_FILE_BYTES,
  TeamErrorBody,
  TeamMemoryBody,
  TeamPutReply,
} from '../../../src/core/memory/team/teamProtocol';
import { sha256Hex } from '../../../packages/team-server/src/teamStore';
import { PLANTED_SECRETS } from '../memory/team/plantedSecrets';
import { usePostgresDatabase } from '../support/postgres';
import {
  startTeamServerProcess,
  type TeamServerProcess,
  type TeamServerProcessOptions,
} from '../support/teamServerProcess';
import { useTempDirs } from '../support/tempDirs';

export type Backend = 'sqlite' | 'postgres';

const ROUTE = '/api/team_memory';
/** The suite's main server allows this many entries per repository (small, so the cap is cheap to reach). */
const MAX_ENTRIES = 6;

/** One repository on one server, through its HTTP API (fetch: what a client sends). */
export class RepoClient {
  constructor(
    readonly server: { url: string },
    readonly repo: string,
    readonly token: string | null,
  ) {}

  url(repo = this.repo): string {
    return `${this.server.url}${ROUTE}?repo=${encodeURIComponent(repo)}`;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...extra };
  }

  get(headers: Record<string, string> = {}): Promise<Response> {
    return fetch(this.url(), { headers: this.headers(headers) });
  }

  put(ifMatch: number | null, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(this.url(), {
      method: 'PUT',
      headers: this.headers({
        'content-type': 'application/json',
        ...(ifMatch === null ? {} : { 'if-match': `"${ifMatch}"` }),
        ...headers,
      }),
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  async pull(): Promise<TeamMemoryBody> {
    const res = await this.get();
    assert.equal(res.status, 200);
    return TeamMemoryBody.parse(await res.json());
  }

  /** A PUT that must succeed; returns the reply. */
  async push(ifMatch: number, entries: Record<string, string>): Promise<TeamPutReply> {
    const res = await this.put(ifMatch, { entries });
    const body: unknown = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    return TeamPutReply.parse(body);
  }
}

/** The JSON error a response carries, checked against the protocol, with its status. */
export async function errorOf(res: Response): Promise<TeamErrorBody & { status: number }> {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `status ${res.status}: errors are JSON`);
  return { status: res.status, ...TeamErrorBody.parse(await res.json()) };
}

/** Servers of one backend: each on the suite's database (or SQLite file), stopped after the suite. */
export function useTeamServers(backend: Backend, label: string) {
  const tempDir = useTempDirs('all');
  const pgUrl = backend === 'postgres' ? usePostgresDatabase(label) : null;
  let sqliteFile: string | undefined;
  const started: TeamServerProcess[] = [];
  let repos = 0;
  after(async () => {
    for (const s of started.splice(0)) await s.stop();
  });
  /** The suite's storage; `fresh` gives a new SQLite file (PostgreSQL: always the suite's database). */
  const db = (fresh = false): string => {
    if (pgUrl) return pgUrl();
    if (fresh || !sqliteFile) sqliteFile = path.join(tempDir('engram-teamdb-'), 'team.db');
    return sqliteFile;
  };
  return {
    db,
    async start(opts: Partial<TeamServerProcessOptions> = {}): Promise<TeamServerProcess> {
      const server = await startTeamServerProcess({ db: db(), quiet: true, ...opts });
      started.push(server);
      return server;
    },
    /** A repository name no other test of the file uses, and a client with a token for it. */
    async newRepo(server: TeamServerProcess): Promise<RepoClient> {
      const repo = `acme/${backend}-${label}-${++repos}`;
      return new RepoClient(server, repo, await server.addToken(repo));
    },
  };
}

export function defineTeamServerTests(backend: Backend): void {
  describe(`team memory server protocol (${backend})`, () => {
    const servers = useTeamServers(backend, 'protocol');
    let server: TeamServerProcess;
    before(async () => {
      server = await servers.start({ maxEntries: MAX_ENTRIES });
    });

    it('answers an unknown repository with version 0, ETag "0", and 304 to If-None-Match "0"', async () => {
      const c = await servers.newRepo(server);
      const res = await c.get();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('etag'), '"0"');
      assert.deepEqual(await res.json(), { repo: c.repo, version: 0, entries: {}, checksums: {} });
      const again = await c.get({ 'if-none-match': '"0"' });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), '');
    });

    it('stores a PUT: new version and ETag, sha256 of every entry, and GET gives it back', async () => {
      const c = await servers.newRepo(server);
      const entries = { 'MEMORY.md': '- [Build](build.md) — how to build\n', 'topics/build.md': 'npm run build ✓\n' };
      const res = await c.put(0, { entries });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('etag'), '"1"');
      const reply = TeamPutReply.parse(await res.json());
      const checksums = {
        'MEMORY.md': sha256Hex(entries['MEMORY.md']),
        'topics/build.md': sha256Hex(entries['topics/build.md']),
      };
      assert.deepEqual(reply, { repo: c.repo, version: 1, checksums });
      assert.deepEqual(await c.pull(), { repo: c.repo, version: 1, entries, checksums });
      assert.deepEqual(await server.readStored(c.repo), { version: 1, entries, checksums });
      assert.equal((await c.get({ 'if-none-match': '"0"' })).status, 200, 'an old ETag gets the content');
      assert.equal((await c.get({ 'if-none-match': 'W/"1"' })).status, 304);
    });

    it('upserts: a PUT replaces what it names and never deletes what it does not; an unchanged PUT keeps the version', async () => {
      const c = await servers.newRepo(server);
      await c.push(0, { 'a.md': 'a1', 'b.md': 'b1' });
      const second = await c.push(1, { 'b.md': 'b2', 'c.md': 'c1' });
      assert.equal(second.version, 2);
      assert.deepEqual(Object.keys(second.checksums).sort(), ['a.md', 'b.md', 'c.md'], 'the reply lists every entry');
      assert.deepEqual(await server.readStoredEntries(c.repo), { 'a.md': 'a1', 'b.md': 'b2', 'c.md': 'c1' });
      const same = await c.push(2, { 'b.md': 'b2' });
      assert.equal(same.version, 2, 'nothing changed, so no new version for the others to pull');
      assert.deepEqual(await c.push(2, {}), second);
    });

    it('412 with the current version on a stale If-Match, and stores nothing of that PUT', async () => {
      const c = await servers.newRepo(server);
      await c.push(0, { 'a.md': 'first' });
      const err = await errorOf(await c.put(0, { entries: { 'a.md': 'stale edit', 'new.md': 'x' } }));
      assert.deepEqual([err.status, err.error, err.version], [412, 'precondition_failed', 1]);
      assert.deepEqual(await server.readStored(c.repo), {
        version: 1,
        entries: { 'a.md': 'first' },
        checksums: { 'a.md': sha256Hex('first') },
      });
      const ahead = await errorOf(await c.put(7, { entries: { 'a.md': 'from the future' } }));
      assert.deepEqual([ahead.status, ahead.version], [412, 1]);
    });

    it('428 without If-Match, 400 for an If-Match that names no version', async () => {
      const c = await servers.newRepo(server);
      const missing = await errorOf(await c.put(null, { entries: { 'a.md': 'x' } }));
      assert.deepEqual([missing.status, missing.error], [428, 'precondition_required']);
      const bad = await errorOf(await c.put(null, { entries: { 'a.md': 'x' } }, { 'if-match': '*' }));
      assert.deepEqual([bad.status, bad.error], [400, 'bad_request']);
      assert.deepEqual(await server.readStoredEntries(c.repo), {});
    });

    it(`413 too_many_entries with maxEntries past ${MAX_ENTRIES} entries; entries already there can still change`, async () => {
      const c = await servers.newRepo(server);
      const five = Object.fromEntries([1, 2, 3, 4, 5].map((i) => [`e${i}.md`, `entry ${i}`]));
      await c.push(0, five);
      const err = await errorOf(await c.put(1, { entries: { 'e6.md': '6', 'e7.md': '7' } }));
      assert.deepEqual([err.status, err.error, err.maxEntries], [413, 'too_many_entries', MAX_ENTRIES]);
      assert.deepEqual(await server.readStoredEntries(c.repo), five, 'nothing of the refused PUT was stored');
      await c.push(1, { 'e6.md': '6' });
      const full = await errorOf(await c.put(2, { entries: { 'e7.md': '7' } }));
      assert.equal(full.error, 'too_many_entries');
      assert.equal((await c.push(2, { 'e1.md': 'entry 1, edited' })).version, 3);
    });

    it('413 payload_too_large: a 10 MB body and one entry over 250 KB, as JSON with maxBytes; a 200 KB batch fits', async () => {
      const c = await servers.newRepo(server);
      const huge = await errorOf(
        await c.put(0, JSON.stringify({ entries: { 'big.md': 'x'.repeat(10 * 1024 * 1024) } })),
      );
      assert.deepEqual([huge.status, huge.error, huge.maxBytes], [413, 'payload_too_large', 1024 * 1024]);
      const oneBig = await errorOf(await c.put(0, { entries: { 'big.md': 'é'.repeat(TEAM_MAX_FILE_BYTES / 2 + 1) } }));
      assert.deepEqual([oneBig.status, oneBig.error, oneBig.maxBytes], [413, 'payload_too_large', TEAM_MAX_FILE_BYTES]);
      assert.match(oneBig.message, /big\.md/);
      const batch = Object.fromEntries([1, 2, 3, 4].map((i) => [`part${i}.md`, `${i}`.repeat(50 * 1024)]));
      assert.equal((await c.push(0, batch)).version, 1);
      assert.deepEqual(await server.readStoredEntries(c.repo), batch);
    });

    it('401 without a token or with an unknown one, 403 with the token of another repository', async () => {
      const c = await servers.newRepo(server);
      const other = await servers.newRepo(server);
      for (const client of [new RepoClient(server, c.repo, null), new RepoClient(server, c.repo, 'engram_team_nope')]) {
        assert.deepEqual(
          [
            (await errorOf(await client.get())).status,
            (await errorOf(await client.put(0, { entries: { 'a.md': 'x' } }))).error,
          ],
          [401, 'unauthorized'],
        );
      }
      const wrong = new RepoClient(server, c.repo, other.token);
      const denied = await errorOf(await wrong.put(0, { entries: { 'a.md': 'x' } }));
      assert.deepEqual([denied.status, denied.error], [403, 'forbidden']);
      assert.equal((await errorOf(await wrong.get())).status, 403);
      const stranger = await errorOf(
        await new RepoClient(server, c.repo, null).put(
          0,
          JSON.stringify({ entries: { 'a.md': 'x'.repeat(10 * 1024 * 1024) } }),
        ),
      );
      assert.equal(stranger.status, 401, 'the token is checked before a body is read');
      assert.deepEqual(await server.readStoredEntries(c.repo), {});
    });

    it('400 for bad paths, bad JSON, a bad body and a bad repository; 404 as JSON', async () => {
      const c = await servers.newRepo(server);
      for (const bad of ['../x.md', '.hidden/x.md', 'notes.txt', '/abs.md', 'a//b.md', 'a\\b.md', 'x\u0001.md']) {
        const err = await errorOf(await c.put(0, { entries: { 'ok.md': 'fine', [bad]: 'x' } }));
        assert.deepEqual([err.status, err.error], [400, 'bad_request'], bad);
      }
      for (const body of ['{"entries": {', '', '[]', '{"entries": {"a.md": 3}}', '{"entries": "a.md"}']) {
        const err = await errorOf(await c.put(0, body));
        assert.deepEqual([err.status, err.error], [400, 'bad_request'], body);
      }
      assert.equal((await errorOf(await c.put(0, { entries: { 'nul.md': 'a\u0000b' } }))).status, 400);
      assert.equal((await errorOf(await fetch(c.url('not-a-slug'), { headers: c.headers() }))).status, 400);
      assert.equal((await errorOf(await fetch(`${server.url}${ROUTE}`, { headers: c.headers() }))).status, 400);
      const missing = await errorOf(await fetch(`${server.url}/api/nothing`));
      assert.deepEqual([missing.status, missing.error], [404, 'not_found']);
      assert.deepEqual(await server.readStoredEntries(c.repo), {});
    });

    it('422 secret_detected for planted keys (Anthropic, AWS key pair, GitHub, private key), naming path, rule and line; nothing stored', async () => {
      const c = await servers.newRepo(server);
      await c.push(0, { 'clean.md': 'before' });
      // An access key ID alone is an identifier (the preset does not flag it); the pair is caught by its secret.
      const awsPair = `AWS_ACCESS_KEY_ID=AKIA${'QWERTYUIOPASDFGH'}\n${PLANTED_SECRETS.aws}`;
      const planted: Record<string, { text: string; line: number }> = {
        'anthropic.md': { text: `# Keys\n\nuse ${PLANTED_SECRETS.anthropic} for the bot\n`, line: 3 },
        'aws.md': { text: `# AWS\n${awsPair}\n`, line: 3 },
        'github.md': { text: `token:\n\n\n${PLANTED_SECRETS.github}\n`, line: 4 },
        'deploy/key.md': { text: `${PLANTED_SECRETS.privatekey}\n`, line: 1 },
      };
      for (const [file, { text, line }] of Object.entries(planted)) {
        const err = await errorOf(
          await c.put(1, { entries: { 'clean.md': 'after', 'other.md': 'fine', [file]: text } }),
        );
        assert.deepEqual([err.status, err.error], [422, 'secret_detected'], file);
        assert.deepEqual(
          err.findings?.map((f) => [f.path, f.line]),
          [[file, line]],
          JSON.stringify(err.findings),
        );
      }
      const everything = Object.fromEntries(Object.entries(planted).map(([file, p]) => [file, p.text]));
      const all = await errorOf(await c.put(1, { entries: everything }));
      const rules = all.findings!.map((f) => `${f.path} ${f.rule}`).sort();
      assert.deepEqual(rules, [
        'anthropic.md engram/anthropic-key',
        'aws.md @secretlint/secretlint-rule-aws',
        'deploy/key.md @secretlint/secretlint-rule-privatekey',
        'github.md @secretlint/secretlint-rule-github',
      ]);
      assert.deepEqual(await server.readStored(c.repo), {
        version: 1,
        entries: { 'clean.md': 'before' },
        checksums: { 'clean.md': sha256Hex('before') },
      });
    });

    it('GET /healthz names the storage', async () => {
      const res = await fetch(`${server.url}/healthz`);
      assert.equal(res.status, 200);
      const body = (await res.json()) as { ok: boolean; store: string };
      assert.equal(body.ok, true);
      assert.match(body.store, backend === 'sqlite' ? /^sqlite \// : /^postgres 127\.0\.0\.1:\d+\/engram_t_/);
      assert.doesNotMatch(body.store, /engram_test:/, 'no credentials in what the server shows');
    });
  });
}
