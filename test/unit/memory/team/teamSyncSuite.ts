// The team-memory sync against the reference server as a real child process on 127.0.0.1, with real
// storage: the same suite for SQLite (teamSync.sqlite.test.ts) and PostgreSQL (teamSync.postgres.test.ts).
// What reached the server is read from its storage (readStoredEntries), not from the client's report.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readTeamSyncState, teamSyncStatePath } from '../../../../src/core/memory/team/syncStateFile';
import { sha256Hex } from '../../../../src/core/memory/team/teamFiles';
import { syncTeamMemory, type TeamSyncOptions } from '../../../../src/core/memory/team/teamSync';
import type { TeamSyncReport } from '../../../../src/core/memory/team/teamSyncTypes';
import { usePostgresDatabase } from '../../support/postgres';
import {
  startTeamServerProcess,
  type TeamServerProcess,
  type TeamServerProcessOptions,
} from '../../support/teamServerProcess';
import { useTempDirs } from '../../support/tempDirs';
import { PLANTED_SECRETS, topicWithSecret } from './plantedSecrets';
import { startReplyDroppingProxy } from './replyDroppingProxy';

/** A port nothing listens on (taken and given back at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net
      .createServer()
      .listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      })
      .on('error', reject);
  });
}

export type Backend = 'sqlite' | 'postgres';

/** Retries fast enough for a test, long enough to span a server restart (tsx start-up takes a second or two). */
const RETRY_DELAYS_MS = [300, 700, 1500, 3000, 6000];

/** A topic file of about `kb` KB whose content depends on `seed`. */
function bigTopic(seed: string, kb: number): string {
  const line = `${seed}: ${'lorem ipsum dolor sit amet '.repeat(3)}\n`;
  return `---\nname: ${seed}\ndescription: filler\ntype: project\n---\n${line.repeat(Math.ceil((kb * 1024) / line.length))}`;
}

export function defineTeamSyncTests(backend: Backend): void {
  const tempDir = useTempDirs('all');
  const pgUrl = backend === 'postgres' ? usePostgresDatabase('team_sync') : null;
  const started: TeamServerProcess[] = [];
  let repoCounter = 0;

  async function startServer(opts: Omit<TeamServerProcessOptions, 'db'> = {}, db?: string): Promise<TeamServerProcess> {
    const server = await startTeamServerProcess({
      db: db ?? pgUrl?.() ?? path.join(tempDir('engram-teamdb-'), 'team.db'),
      quiet: true,
      ...opts,
    });
    started.push(server);
    return server;
  }
  after(async () => {
    for (const s of started.splice(0)) await s.stop();
  });

  /** A new repository on `server` with a token, and a way to make clients (team folders) for it. */
  async function newRepo(server: TeamServerProcess) {
    const repo = `acme/${backend}-repo-${++repoCounter}`;
    const token = await server.addToken(repo);
    return {
      repo,
      token,
      client(teamDir = path.join(tempDir('engram-team-'), 'memory', 'team')) {
        const sync = (extra: Partial<TeamSyncOptions> = {}): Promise<TeamSyncReport> =>
          syncTeamMemory({ teamDir, repo, serverUrl: server.url, token, retryDelaysMs: RETRY_DELAYS_MS, ...extra });
        const write = (rel: string, text: string): void => {
          fs.mkdirSync(path.dirname(path.join(teamDir, rel)), { recursive: true });
          fs.writeFileSync(path.join(teamDir, rel), text);
        };
        const read = (rel: string): string | null =>
          fs.existsSync(path.join(teamDir, rel)) ? fs.readFileSync(path.join(teamDir, rel), 'utf8') : null;
        return { teamDir, sync, write, read };
      },
    };
  }

  function assertOk(report: TeamSyncReport): void {
    assert.equal(report.ok, true, `sync failed: ${report.error}`);
  }

  /** Every Markdown file of a team folder (hidden folders left out), as the server should hold them. */
  function localFiles(teamDir: string): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (rel: string): void => {
      for (const e of fs.readdirSync(path.join(teamDir, rel), { withFileTypes: true })) {
        if (e.name.startsWith('.')) continue;
        const child = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) walk(child);
        else if (e.name.endsWith('.md')) out[child] = fs.readFileSync(path.join(teamDir, child), 'utf8');
      }
    };
    walk('');
    return out;
  }

  describe(`team memory sync against a real server (${backend})`, () => {
    let server: TeamServerProcess;
    before(async () => {
      server = await startServer();
    });

    it('pushes local files, pulls them into a second client, and records every file as synced', async () => {
      const r = await newRepo(server);
      const a = r.client();
      a.write('MEMORY.md', '- [Build](build.md) — how to build\n');
      a.write('build.md', '---\nname: build\ndescription: build\ntype: project\n---\nnpm run build\n');
      a.write('nested/deploy.md', '---\nname: deploy\ndescription: deploy\ntype: project\n---\nnpm run deploy\n');
      a.write('.trash/old.md', 'pruned, never pushed');
      a.write('notes.txt', 'not Markdown, never pushed');
      const first = await a.sync();
      assertOk(first);
      assert.deepEqual(first.pushed.map((p) => p.path).sort(), ['MEMORY.md', 'build.md', 'nested/deploy.md']);
      assert.deepEqual(await server.readStoredEntries(r.repo), localFiles(a.teamDir));

      const b = r.client();
      const pulled = await b.sync();
      assertOk(pulled);
      assert.deepEqual(pulled.pulled.map((p) => [p.path, p.reason]).sort(), [
        ['MEMORY.md', 'new'],
        ['build.md', 'new'],
        ['nested/deploy.md', 'new'],
      ]);
      assert.deepEqual(localFiles(b.teamDir), localFiles(a.teamDir));
      const state = await readTeamSyncState(b.teamDir);
      assert.deepEqual(
        Object.values(state?.files ?? {}).map((f) => f.state),
        ['synced', 'synced', 'synced'],
      );
      assert.equal(state?.lastSync?.ok, true);
      assert.equal(state?.etag, `"${pulled.version}"`);

      const again = await b.sync();
      assert.deepEqual(
        [again.pulled, again.pushed, again.version],
        [[], [], pulled.version],
        'nothing to do the second time',
      );
    });

    it("two clients editing at once: 412, pull, retry, and both converge on the server's files", async () => {
      const r = await newRepo(server);
      const a = r.client();
      const b = r.client();
      a.write('MEMORY.md', '- [Shared](shared.md) — shared\n');
      a.write('shared.md', 'base\n');
      assertOk(await a.sync());
      assertOk(await b.sync());
      let retries = 0;
      // Each round both edit a file of their own and sync at the same moment; their PUTs race, and the
      // loser must pull (getting the winner's file) and push again. A few rounds make a 412 certain.
      for (let round = 1; round <= 6 && (retries === 0 || round <= 2); round++) {
        a.write(`a-${round}.md`, `from a, round ${round}\n`);
        b.write(`b-${round}.md`, `from b, round ${round}\n`);
        a.write('shared.md', `base, edited by a in round ${round}\n`); // only a edits this one
        const [ra, rb] = await Promise.all([a.sync(), b.sync()]);
        assertOk(ra);
        assertOk(rb);
        retries += ra.retries + rb.retries;
        // The winner of the race picks up the loser's file (the loser got the winner's on its retry).
        assertOk(await a.sync());
        assertOk(await b.sync());
        const stored = await server.readStoredEntries(r.repo);
        assert.deepEqual(localFiles(a.teamDir), stored, `round ${round}: a has what the server has`);
        assert.deepEqual(localFiles(b.teamDir), stored, `round ${round}: b has what the server has`);
        assert.equal(stored[`a-${round}.md`], `from a, round ${round}\n`);
        assert.equal(stored[`b-${round}.md`], `from b, round ${round}\n`);
        assert.equal(
          stored['shared.md'],
          `base, edited by a in round ${round}\n`,
          'a local edit of a file the server did not change is pushed',
        );
      }
      assert.ok(retries > 0, 'at least one PUT met a 412 and was retried after a pull');
      const [sa, sb] = [await readTeamSyncState(a.teamDir), await readTeamSyncState(b.teamDir)];
      const stored = await server.readStored(r.repo);
      assert.deepEqual(sa?.serverChecksums, stored.checksums);
      assert.deepEqual(Object.keys(sa?.files ?? {}).sort(), Object.keys(stored.entries).sort());
      assert.ok(Object.values(sa?.files ?? {}).every((f) => f.state === 'synced'));
      assert.ok(sb !== null);
    });

    it('a local edit of a file the server also changed: the server wins, the local copy is kept in .conflicts', async () => {
      const r = await newRepo(server);
      const a = r.client();
      const b = r.client();
      a.write('rule.md', 'tabs\n');
      assertOk(await a.sync());
      assertOk(await b.sync());
      a.write('rule.md', 'spaces, says a\n');
      assertOk(await a.sync());
      b.write('rule.md', 'two spaces, says b\n');
      const report = await b.sync({ now: () => new Date('2026-12-02T01:02:03.456Z') });
      assertOk(report);
      const keptAt = '.conflicts/rule.2026-12-02T01-02-03-456Z.md';
      assert.deepEqual(report.pulled, [{ path: 'rule.md', reason: 'conflict', keptAt }]);
      assert.deepEqual(report.pushed, []);
      assert.equal(b.read('rule.md'), 'spaces, says a\n');
      assert.equal(b.read(keptAt), 'two spaces, says b\n');
      assert.deepEqual((await readTeamSyncState(b.teamDir))?.files['rule.md'], { state: 'conflict', keptAt });
      assert.deepEqual(
        await server.readStoredEntries(r.repo),
        { 'rule.md': 'spaces, says a\n' },
        'the kept copy is never pushed',
      );
    });

    it('an unchanged local copy is replaced (updated), and a deleted file comes back', async () => {
      const r = await newRepo(server);
      const a = r.client();
      const b = r.client();
      a.write('one.md', 'v1\n');
      a.write('two.md', 'two\n');
      assertOk(await a.sync());
      assertOk(await b.sync());
      a.write('one.md', 'v2\n');
      assertOk(await a.sync());
      fs.rmSync(path.join(b.teamDir, 'two.md'));
      const report = await b.sync();
      assertOk(report);
      assert.deepEqual(report.pulled.map((p) => [p.path, p.reason]).sort(), [
        ['one.md', 'updated'],
        ['two.md', 'new'],
      ]);
      assert.equal(b.read('one.md'), 'v2\n');
      assert.equal(b.read('two.md'), 'two\n', 'local deletes do not propagate');
      assert.equal((await server.readStoredEntries(r.repo))['two.md'], 'two\n');
    });

    it("never uploads a planted secret (Anthropic, AWS, GitHub, private key): checked in the server's storage", async () => {
      const r = await newRepo(server);
      const a = r.client();
      const lines: Record<string, number> = {};
      for (const [kind, secret] of Object.entries(PLANTED_SECRETS)) {
        const { text, line } = topicWithSecret(kind, secret);
        a.write(`${kind}.md`, text);
        lines[`${kind}.md`] = line;
      }
      a.write('clean.md', 'nothing secret here\n');
      const report = await a.sync();
      assertOk(report);
      assert.deepEqual(report.pushed, [{ path: 'clean.md' }]);
      assert.deepEqual(
        report.blocked.map((b) => [b.path, b.kind, b.line]).sort(),
        Object.keys(PLANTED_SECRETS)
          .map((k) => [`${k}.md`, k, lines[`${k}.md`]])
          .sort(),
      );
      for (const b of report.blocked) assert.ok(b.rule.length > 0);
      const stored = await server.readStored(r.repo);
      assert.deepEqual(Object.keys(stored.entries), ['clean.md']);
      const everything = JSON.stringify(stored);
      for (const secret of Object.values(PLANTED_SECRETS)) assert.equal(everything.includes(secret.slice(-24)), false);
      const state = await readTeamSyncState(a.teamDir);
      assert.deepEqual(state?.files['github.md'], {
        state: 'blocked',
        rule: report.blocked.find((b) => b.path === 'github.md')?.rule,
        kind: 'github',
        line: 7,
      });
      // Taking the secret out lets the file go on the next sync.
      a.write('github.md', 'the token lives in the password manager\n');
      const next = await a.sync();
      assert.deepEqual(next.pushed, [{ path: 'github.md' }]);
      assert.equal((await server.readStoredEntries(r.repo))['github.md'], 'the token lives in the password manager\n');
    });

    it('skips a 300 KB file with a reason and pushes the rest', async () => {
      const r = await newRepo(server);
      const a = r.client();
      a.write('huge.md', bigTopic('huge', 300));
      a.write('small.md', 'small\n');
      const report = await a.sync();
      assertOk(report);
      assert.deepEqual(report.pushed, [{ path: 'small.md' }]);
      assert.equal(report.skipped.length, 1);
      assert.equal(report.skipped[0].path, 'huge.md');
      assert.equal(report.skipped[0].reason, 'too_large');
      assert.match(report.skipped[0].detail, /30\d KB is over the 250 KB limit/);
      assert.deepEqual(Object.keys(await server.readStoredEntries(r.repo)), ['small.md']);
      assert.equal((await readTeamSyncState(a.teamDir))?.files['huge.md']?.state, 'skipped');
    });

    it('sends more than 200 KB of changes in several PUTs of at most 200 KB each', async () => {
      const r = await newRepo(server);
      const a = r.client();
      for (let i = 1; i <= 5; i++) a.write(`part-${i}.md`, bigTopic(`part-${i}`, 90));
      const progress: number[] = [];
      const report = await a.sync({ onProgress: (p) => p.phase === 'push' && progress.push(p.done) });
      assertOk(report);
      assert.equal(report.pushed.length, 5);
      // The server counts one version per PUT: 5 files of 90 KB fit two to a batch, so three PUTs.
      const stored = await server.readStored(r.repo);
      assert.equal(stored.version, 3);
      assert.deepEqual(progress, [0, 2, 4, 5]);
      assert.deepEqual(stored.entries, localFiles(a.teamDir));
    });

    it('reads a corrupt state.json as no previous sync and repairs it', async () => {
      const r = await newRepo(server);
      const a = r.client();
      a.write('kept.md', 'kept\n');
      assertOk(await a.sync());
      const b = r.client();
      b.write('kept.md', 'kept\n'); // the same content: no conflict even without a previous sync
      b.write('mine.md', 'mine\n');
      fs.mkdirSync(path.dirname(teamSyncStatePath(b.teamDir)), { recursive: true });
      fs.writeFileSync(teamSyncStatePath(b.teamDir), '{"repo": "acme/x", "etag": 4, trunc');
      assert.equal(await readTeamSyncState(b.teamDir), null);
      fs.writeFileSync(teamSyncStatePath(b.teamDir), JSON.stringify({ repo: r.repo, files: 'no' }));
      assert.equal(await readTeamSyncState(b.teamDir), null, 'valid JSON of the wrong shape is no state either');
      const report = await b.sync();
      assertOk(report);
      assert.deepEqual([report.pulled, report.pushed], [[], [{ path: 'mine.md' }]]);
      assert.equal((await readTeamSyncState(b.teamDir))?.lastSync?.ok, true);
    });

    it('refuses to push a file through a symlink that leads out of the team folder', async () => {
      const r = await newRepo(server);
      const a = r.client();
      a.write('inside.md', 'inside\n');
      const outside = path.join(tempDir(), 'outside.md');
      fs.writeFileSync(outside, 'private, outside the team folder\n');
      fs.symlinkSync(outside, path.join(a.teamDir, 'leak.md'));
      const report = await a.sync();
      assertOk(report);
      assert.deepEqual(Object.keys(await server.readStoredEntries(r.repo)), ['inside.md']);
    });

    it('says what to do when the token is wrong or for another repository, and when the server is down', async () => {
      const r = await newRepo(server);
      const other = await newRepo(server);
      const a = r.client();
      a.write('x.md', 'x\n');
      const unknown = await a.sync({ token: 'engram_team_not-a-real-token' });
      assert.equal(unknown.ok, false);
      assert.match(unknown.error ?? '', /401/);
      assert.match(unknown.error ?? '', /ENGRAM_TEAM_TOKEN/);
      assert.match(unknown.error ?? '', /Engram: Set Team Memory Token/);
      const forbidden = await a.sync({ token: other.token });
      assert.equal(forbidden.ok, false);
      assert.match(forbidden.error ?? '', /403/);
      assert.match(forbidden.error ?? '', new RegExp(r.repo));
      assert.deepEqual(await server.readStoredEntries(r.repo), {});
      const port = await freePort();
      const down = await a.sync({ serverUrl: `http://127.0.0.1:${port}`, retryDelaysMs: [10] });
      assert.equal(down.ok, false);
      assert.match(
        down.error ?? '',
        new RegExp(`could not reach the team server at http://127\\.0\\.0\\.1:${port}: ECONNREFUSED`),
      );
      assert.equal((await readTeamSyncState(a.teamDir))?.lastSync?.error, down.error, 'a failed sync is recorded too');
      const cancelled = await a.sync({ signal: AbortSignal.abort() });
      assert.deepEqual([cancelled.ok, cancelled.error], [false, 'team memory pull failed: the sync was cancelled']);
    });
  });

  describe(`team memory sync when the server limits or fails (${backend})`, () => {
    it("learns the server's max entries from a 413 and reports the excess as skipped", async () => {
      const server = await startServer({ maxEntries: 3 });
      const r = await newRepo(server);
      const a = r.client();
      for (const name of ['MEMORY.md', 'a.md', 'b.md', 'c.md', 'd.md']) a.write(name, `${name}\n`);
      const report = await a.sync();
      assertOk(report);
      assert.deepEqual(
        report.pushed.map((p) => p.path),
        ['MEMORY.md', 'a.md', 'b.md'],
        'the index goes first, then by name',
      );
      assert.deepEqual(
        report.skipped.map((s) => [s.path, s.reason]),
        [
          ['c.md', 'server_max_entries'],
          ['d.md', 'server_max_entries'],
        ],
      );
      assert.match(report.skipped[0].detail, /at most 3 entries/);
      assert.deepEqual(Object.keys(await server.readStoredEntries(r.repo)).sort(), ['MEMORY.md', 'a.md', 'b.md']);
      const state = await readTeamSyncState(a.teamDir);
      assert.equal(state?.serverMaxEntries, 3);
      assert.equal(state?.files['d.md']?.state, 'skipped');
      // Known now: the next sync skips them without asking the server to refuse again, and still
      // pushes an edit of a file the server holds.
      a.write('a.md', 'a, edited\n');
      const next = await a.sync();
      assertOk(next);
      assert.deepEqual(next.pushed, [{ path: 'a.md' }]);
      assert.deepEqual(
        next.skipped.map((s) => s.path),
        ['c.md', 'd.md'],
      );
    });

    it('a server with a smaller body limit: batches shrink to fit, a file too big for it alone is skipped', async () => {
      const server = await startServer({ maxBodyBytes: 64 * 1024 });
      const r = await newRepo(server);
      const a = r.client();
      for (let i = 1; i <= 3; i++) a.write(`m-${i}.md`, bigTopic(`m-${i}`, 40));
      a.write('big.md', bigTopic('big', 100));
      const report = await a.sync();
      assertOk(report);
      assert.deepEqual(report.pushed.map((p) => p.path).sort(), ['m-1.md', 'm-2.md', 'm-3.md']);
      assert.deepEqual(
        report.skipped.map((s) => [s.path, s.reason, s.detail]),
        [['big.md', 'too_large', 'the team server accepts at most 65536 bytes per request']],
      );
      assert.deepEqual(Object.keys(await server.readStoredEntries(r.repo)).sort(), ['m-1.md', 'm-2.md', 'm-3.md']);
    });

    it('the server is killed in the middle of a push and restarted: nothing acknowledged is lost, the end state is consistent', async () => {
      const server = await startServer({ quiet: false });
      const r = await newRepo(server);
      const a = r.client();
      for (let i = 1; i <= 8; i++) a.write(`f-${i}.md`, bigTopic(`f-${i}`, 90));
      let restarting: Promise<void> | undefined;
      const acknowledged: number[] = [];
      const report = await a.sync({
        onProgress: (p) => {
          if (p.phase !== 'push') return;
          acknowledged.push(p.done);
          // After the first batch is acknowledged, kill the server (SIGKILL) a moment later, while the
          // next PUT is on its way or being stored, and bring it back on the same port and storage.
          if (p.done > 0 && !restarting) {
            restarting = (async () => {
              await new Promise((res) => setTimeout(res, 15));
              await server.kill('SIGKILL');
              await server.restart();
            })();
          }
        },
      });
      assert.ok(restarting, 'the server was killed during the push');
      await restarting;
      assertOk(report);
      assert.ok(acknowledged.includes(2), 'the first batch was acknowledged before the kill');
      const stored = await server.readStoredEntries(r.repo);
      assert.deepEqual(stored, localFiles(a.teamDir), 'every file is on the server, none corrupted');
      for (const p of report.pushed) assert.equal(sha256Hex(stored[p.path]), sha256Hex(localFiles(a.teamDir)[p.path]));
      assert.deepEqual(
        report.pushed.map((p) => p.path).sort(),
        Object.keys(stored).sort(),
        'the report names every file this sync put there',
      );
      const state = await readTeamSyncState(a.teamDir);
      assert.deepEqual(state?.serverChecksums, (await server.readStored(r.repo)).checksums);
      const again = await a.sync();
      assert.deepEqual([again.ok, again.pushed, again.pulled], [true, [], []], 'a further sync finds nothing to send');
    });

    it('a PUT stored but its reply lost, then the server killed and restarted: the retry meets 412, pulls, and sends nothing twice', async () => {
      const server = await startServer();
      const proxy = await startReplyDroppingProxy(server.port, 2);
      try {
        const r = await newRepo(server);
        const a = r.client();
        for (let i = 1; i <= 8; i++) a.write(`g-${i}.md`, bigTopic(`g-${i}`, 90));
        const restarted = proxy.dropped.then(async () => {
          await server.kill('SIGKILL');
          await server.restart();
        });
        const report = await a.sync({ serverUrl: proxy.url });
        await restarted;
        assertOk(report);
        assert.equal(report.retries, 1, 'the retried PUT met a 412: the server had stored it');
        const stored = await server.readStored(r.repo);
        assert.equal(stored.version, 4, 'four batches, each stored once');
        assert.deepEqual(stored.entries, localFiles(a.teamDir));
        assert.deepEqual(
          report.pushed.map((p) => p.path).sort(),
          Object.keys(stored.entries).sort(),
          'the batch whose reply was lost counts as pushed',
        );
        assert.deepEqual((await readTeamSyncState(a.teamDir))?.serverChecksums, stored.checksums);
      } finally {
        await proxy.close();
      }
    });
  });
}
