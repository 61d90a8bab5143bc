// Team-memory sync under load (issue 11): two reference-server processes (the built bundle) on ONE
// PostgreSQL database, 50 clients x 200 files of their own: 25 repositories with 2 clients each, the two
// on different instances so pushes to one repository meet across instances. An initial push round, edit
// rounds, then a final sync of every client. Each sync is syncTeamMemory, as the extension runs it, timed
// on its own; afterwards every file on every client and in the server's storage is compared (sha256) with
// what its owner last wrote. Lost or corrupted files must be 0. PostgreSQL: as the unit tests find it
// (ENGRAM_TEST_PG_URL or the local cluster .ci/run sets up); without one the bench fails and says so.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { syncTeamMemory } from '../../src/core/memory/team/teamSync';
import type { TeamSyncReport } from '../../src/core/memory/team/teamSyncTypes';
import { createTestDatabase } from '../unit/support/postgres';
import { startTeamServerProcess, type TeamServerProcess } from '../unit/support/teamServerProcess';
import type { Metrics } from './run';

const REPOS = 25;
const CLIENTS_PER_REPO = 2;
const FILES_PER_CLIENT = 200;
const EDIT_ROUNDS = 3;
/** Files each client rewrites in an edit round. */
const EDITS_PER_ROUND = 20;
/** A sync that failed (412 after its retries, while the partner kept pushing) is run again, as the scheduler would. */
const MAX_ATTEMPTS = 5;

const root = path.resolve(__dirname, '../..');
const WORDS =
  'memory team build deploy test server client cache index topic project feedback reference note rule why how apply'.split(
    ' ',
  );

interface Client {
  repo: string;
  index: number;
  token: string;
  server: TeamServerProcess;
  teamDir: string;
}

/** A topic file of 2-5 KB whose content depends on (client, file, revision): words only, so no secret rule fires. */
function topic(client: string, file: number, revision: number): string {
  const seed = crypto.createHash('sha256').update(`${client}/${file}/${revision}`).digest();
  const lines = [`---`, `name: ${client} topic ${file}`, `description: revision ${revision}`, `type: project`, `---`];
  const size = 2048 + (seed.readUInt16BE(0) % 3072);
  for (let i = 0, n = 0; n < size; i++) {
    const line =
      Array.from({ length: 12 }, (_, w) => WORDS[seed[(i + w) % seed.length] % WORDS.length]).join(' ') + ` ${i}`;
    lines.push(line);
    n += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

const pathOf = (c: Client, file: number): string => `c${c.index}/topic-${file}.md`;

function writeFile(c: Client, rel: string, text: string): void {
  const file = path.join(c.teamDir, ...rel.split('/'));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * The 50 clients run in this process through tsx, where secretlint's profiler is the real one: every scan
 * adds marks it searches linearly, so the thousands of scans here would slow down quadratically. The
 * bundles replace it with one that records nothing (esbuild.mjs, quietSecretlintProfiler); so does this.
 */
function quietSecretlintProfiler(): void {
  // require, not import(): tsx loads secretlint through require here, and that is the instance to change.
  const profiler = createRequire(require.resolve('@secretlint/core')).resolve('@secretlint/profiler');
  (require(profiler) as { secretLintProfiler: { mark(m: unknown): void } }).secretLintProfiler.mark = () => undefined;
}

export async function run(): Promise<Metrics> {
  quietSecretlintProfiler();
  if (!fs.existsSync(path.join(root, 'dist/teamServer.js')))
    throw new Error('dist/teamServer.js is missing: run node esbuild.mjs first');
  const db = await createTestDatabase('bench_team_sync');
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'engram-bench-team-'));
  const servers: TeamServerProcess[] = [];
  try {
    for (let i = 0; i < 2; i++) servers.push(await startTeamServerProcess({ db: db.url, entry: 'bundle' }));
    const clients: Client[] = [];
    for (let r = 0; r < REPOS; r++) {
      const repo = `bench/repo-${r}`;
      const token = await servers[0].addToken(repo);
      for (let k = 0; k < CLIENTS_PER_REPO; k++) {
        const index = clients.length;
        clients.push({
          repo,
          index,
          token,
          server: servers[k % servers.length],
          teamDir: path.join(dir, `client-${index}`, 'memory', 'team'),
        });
      }
    }
    /** What each owner last wrote: repo -> path -> content. */
    const expected = new Map<string, Map<string, string>>(clients.map((c) => [c.repo, new Map()]));
    const write = (c: Client, file: number, revision: number): void => {
      const text = topic(`c${c.index}`, file, revision);
      writeFile(c, pathOf(c, file), text);
      expected.get(c.repo)!.set(pathOf(c, file), text);
    };

    const latencies: number[] = [];
    let files = 0;
    let failedAttempts = 0;
    const sync = async (c: Client): Promise<void> => {
      for (let attempt = 1; ; attempt++) {
        const started = performance.now();
        const report: TeamSyncReport = await syncTeamMemory({
          teamDir: c.teamDir,
          repo: c.repo,
          serverUrl: c.server.url,
          token: c.token,
        });
        latencies.push(performance.now() - started);
        files += report.pushed.length + report.pulled.length;
        if (report.ok) return;
        failedAttempts++;
        if (attempt >= MAX_ATTEMPTS)
          throw new Error(`client ${c.index} (${c.repo}): sync failed ${attempt} times: ${report.error}`);
      }
    };
    const round = (fn: (c: Client) => Promise<void>): Promise<unknown> => Promise.all(clients.map(fn));

    const started = performance.now();
    for (const c of clients) for (let f = 0; f < FILES_PER_CLIENT; f++) write(c, f, 0);
    await round(sync);
    for (let r = 1; r <= EDIT_ROUNDS; r++) {
      await round(async (c) => {
        for (let e = 0; e < EDITS_PER_ROUND; e++)
          write(c, (c.index * 7 + r * EDITS_PER_ROUND + e * 3) % FILES_PER_CLIENT, r);
        await sync(c);
      });
    }
    await round(sync);
    const seconds = (performance.now() - started) / 1000;

    // Every file of the repository on every client of it, and in the server's storage.
    let lost = 0;
    let corrupted = 0;
    const check = (have: Map<string, string> | Record<string, string>, want: Map<string, string>): void => {
      const get = (p: string): string | undefined => (have instanceof Map ? have.get(p) : have[p]);
      for (const [p, text] of want) {
        const got = get(p);
        if (got === undefined) lost++;
        else if (
          crypto.createHash('sha256').update(got).digest('hex') !==
          crypto.createHash('sha256').update(text).digest('hex')
        )
          corrupted++;
      }
    };
    for (const c of clients) {
      const local = new Map<string, string>();
      for (const p of expected.get(c.repo)!.keys()) {
        const file = path.join(c.teamDir, ...p.split('/'));
        if (fs.existsSync(file)) local.set(p, fs.readFileSync(file, 'utf8'));
      }
      check(local, expected.get(c.repo)!);
    }
    for (const [repo, want] of expected) check((await servers[1].readStored(repo)).entries, want);

    latencies.sort((a, b) => a - b);
    // The servers' own time per request (their log lines): what the clients' latency owes to the server.
    const serverMs = servers
      .flatMap((srv) =>
        [...srv.log().matchAll(/ (?:GET|PUT) \/api\/team_memory .* (\d+) ([\d.]+)ms$/gm)].map((m) => Number(m[2])),
      )
      .sort((a, b) => a - b);
    const metrics: Metrics = {
      team_sync_p50_ms: { value: Math.round(percentile(latencies, 50)), unit: 'ms' },
      team_sync_p99_ms: { value: Math.round(percentile(latencies, 99)), unit: 'ms' },
      team_server_request_p50_ms: { value: Math.round(percentile(serverMs, 50)), unit: 'ms' },
      team_server_request_p99_ms: {
        value: Math.round(percentile(serverMs, 99)),
        unit: 'ms',
        note: `${serverMs.length} requests`,
      },
      team_sync_files_per_s: { value: Math.round(files / seconds), unit: 'files/s' },
      team_sync_lost_files: { value: lost, unit: 'files', target: 0 },
      team_sync_corrupted_files: { value: corrupted, unit: 'files', target: 0 },
      team_sync_syncs: { value: latencies.length, unit: 'syncs', note: `${failedAttempts} failed and were run again` },
    };
    console.log(
      `\nteam sync: ${clients.length} clients x ${FILES_PER_CLIENT} files, ${REPOS} repositories, 2 instances on one PostgreSQL: ` +
        `${latencies.length} syncs (${failedAttempts} run again) in ${seconds.toFixed(1)} s, ${files} files moved, ` +
        `p50 ${metrics.team_sync_p50_ms.value} ms, p99 ${metrics.team_sync_p99_ms.value} ms (server side per request: p50 ` +
        `${metrics.team_server_request_p50_ms.value} ms, p99 ${metrics.team_server_request_p99_ms.value} ms), lost ${lost}, corrupted ${corrupted}`,
    );
    if (lost > 0 || corrupted > 0) throw new Error(`team sync lost ${lost} and corrupted ${corrupted} files`);
    return metrics;
  } finally {
    for (const s of servers) await s.stop();
    await db.drop();
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
