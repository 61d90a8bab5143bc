// The reference team-memory server as a real child process (packages/team-server/src/main.ts through tsx,
// or the bundle), for tests and benches that need real HTTP, a real kill -9 and a restart on the same storage.
// readStored* opens the storage directly, so a test can prove what the server STORED, not what it said.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { openTeamStore } from '../../../packages/team-server/src/openTeamStore';
import type { TeamSnapshot, TeamStore } from '../../../packages/team-server/src/teamStore';

export interface TeamServerProcessOptions {
  /** A SQLite file path or a postgres:// URL (see support/postgres.ts for a fresh database). */
  db: string;
  maxEntries?: number;
  maxBodyBytes?: number;
  /** Port to listen on; default a free one (kept across restart()). */
  port?: number;
  /** `bundle` runs dist/teamServer.js (build it first); default the TypeScript source through tsx. */
  entry?: 'source' | 'bundle';
  /** Pass --quiet (no per-request log lines). */
  quiet?: boolean;
}

export interface TeamServerProcess {
  /** `http://127.0.0.1:PORT`; the same after restart(). */
  readonly url: string;
  readonly port: number;
  readonly db: string;
  /** A new token for `repo`, written straight into the storage (the token CLI is tested on its own). */
  addToken(repo: string): Promise<string>;
  /** Sends `signal` (default SIGKILL: no chance to finish anything) and resolves once the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the server again on the same port and storage (after kill(), or stops it first). */
  restart(): Promise<void>;
  /** SIGTERM (a graceful stop), then closes the direct storage handle. Safe to call twice. */
  stop(): Promise<void>;
  /** What the storage holds for `repo`, read directly. */
  readStored(repo: string): Promise<TeamSnapshot>;
  readStoredEntries(repo: string): Promise<Record<string, string>>;
  /** Everything the process wrote to stderr so far (request log lines, errors). */
  log(): string;
}

const STARTUP_TIMEOUT_MS = 30_000;
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

interface Spawned {
  child: ChildProcess;
  url: string;
  port: number;
}

function spawnServer(opts: TeamServerProcessOptions, port: number, stderr: { text: string }): Promise<Spawned> {
  const root = process.cwd();
  const entry =
    opts.entry === 'bundle'
      ? [path.join(root, 'dist/teamServer.js')]
      : ['--import', 'tsx', path.join(root, 'packages/team-server/src/main.ts')];
  const args = [...entry, '--host', '127.0.0.1', '--port', String(port), '--db', opts.db];
  if (opts.maxEntries !== undefined) args.push('--max-entries', String(opts.maxEntries));
  if (opts.maxBodyBytes !== undefined) args.push('--max-body-bytes', String(opts.maxBodyBytes));
  if (opts.quiet) args.push('--quiet');
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr.text += d;
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the team server did not start within ${STARTUP_TIMEOUT_MS} ms:\n${stderr.text}`));
    }, STARTUP_TIMEOUT_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the team server exited (${signal ?? code}) before it listened:\n${stderr.text}`));
    });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const m = /on (http:\/\/127\.0\.0\.1:(\d+)) \(/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.once('exit', () => live.delete(child));
        resolve({ child, url: m[1], port: Number(m[2]) });
      }
    });
  });
}

export async function startTeamServerProcess(opts: TeamServerProcessOptions): Promise<TeamServerProcess> {
  const stderr = { text: '' };
  let current = await spawnServer(opts, opts.port ?? 0, stderr);
  const port = current.port;
  let store: Promise<TeamStore> | undefined;
  const direct = (): Promise<TeamStore> => (store ??= openTeamStore(opts.db));

  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    const { child } = current;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited(child);
  };
  const restart = async (): Promise<void> => {
    await kill('SIGTERM');
    // The port was just freed; another process may take it in between, so try a few times.
    for (let attempt = 1; ; attempt++) {
      try {
        current = await spawnServer(opts, port, stderr);
        return;
      } catch (err) {
        if (attempt >= 5 || !stderr.text.includes('EADDRINUSE')) throw err;
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  };
  const readStored = async (repo: string): Promise<TeamSnapshot> => (await direct()).get(repo);

  return {
    url: current.url,
    port,
    db: opts.db,
    addToken: async (repo) => (await direct()).addToken(repo),
    kill,
    restart,
    stop: async () => {
      await kill('SIGTERM');
      const s = store;
      store = undefined;
      if (s !== undefined) await (await s).close();
    },
    readStored,
    readStoredEntries: async (repo) => (await readStored(repo)).entries,
    log: () => stderr.text,
  };
}
