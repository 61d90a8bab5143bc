// One writer at a time for a file that several processes may append to (a session's transcript: two
// `engram -p --resume` of one session, a VS Code window and the CLI). The lock is a file next to it,
// `<file>.lock`, made with O_EXCL and holding who made it (pid, host, start time). A crashed holder
// cannot leave it behind: a lock whose process is gone (same host) or that was not refreshed for
// STALE_MS (a live holder touches it every HEARTBEAT_MS) is taken over. A second writer waits, up to a
// bound, and is told once who it waits for; past the bound it gets an error naming the holder.
import { randomBytes } from 'node:crypto';
import fs, { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { isErrno } from './errno';

/** Who holds a lock, as its file says. */
export interface LockHolder {
  pid: number;
  hostname: string;
  /** ISO time the lock was taken. */
  since: string;
  /** Tells this holder's lock from a later one of the same process. */
  token: string;
}

export interface WriterLockOptions {
  /** How long to wait for another holder before giving up (ms). */
  waitMs: number;
  /** Called once, when the lock is held by someone else and the wait begins. */
  onWait?: (holder: LockHolder | undefined) => void;
  signal?: AbortSignal;
  /** How often to look again while waiting (ms). */
  pollMs?: number;
}

export interface WriterLock {
  readonly file: string;
  /** Lets go of the lock (only if it is still this one); safe to call twice. */
  release(): Promise<void>;
}

/** A live holder touches its lock this often, so others can tell it from one that died elsewhere. */
export const HEARTBEAT_MS = 10_000;
/** A lock not touched for this long is taken over (its holder stopped: another host's crash, a pid reused). */
export const STALE_MS = 120_000;
const POLL_MS = 100;

export class LockBusyError extends Error {
  constructor(
    file: string,
    readonly lockFile: string,
    readonly holder: LockHolder | undefined,
    waitedMs: number,
  ) {
    super(
      `${describeHolder(holder)} is writing ${file}; gave up after waiting ${formatWait(waitedMs)} for it. ` +
        `Try again when it has finished, or remove ${lockFile} if that process is gone.`,
    );
    this.name = 'LockBusyError';
  }
}

/** "Another Engram process (pid 123 on box, since 10:01:02)". */
export function describeHolder(holder: LockHolder | undefined): string {
  if (!holder) return 'Another Engram process';
  const here = holder.hostname === os.hostname() ? '' : ` on ${holder.hostname}`;
  return `Another Engram process (pid ${holder.pid}${here}, since ${holder.since})`;
}

export function formatWait(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}

/** Locks held by this process, let go of synchronously if it exits without releasing them. */
const held = new Map<string, string>();
let exitHook = false;

export async function acquireWriterLock(file: string, opts: WriterLockOptions): Promise<WriterLock> {
  const lockFile = `${file}.lock`;
  await fsp.mkdir(path.dirname(lockFile), { recursive: true });
  const started = Date.now();
  let told = false;
  for (;;) {
    opts.signal?.throwIfAborted();
    const mine = await tryCreate(lockFile);
    if (mine) return mine;
    const seen = await readLock(lockFile);
    if (!seen) continue; // gone between the two looks: try again at once
    if (isStale(seen)) {
      await takeOver(lockFile, seen.text);
      continue;
    }
    if (!told) {
      told = true;
      opts.onWait?.(seen.holder);
    }
    const waited = Date.now() - started;
    if (waited >= opts.waitMs) throw new LockBusyError(file, lockFile, seen.holder, waited);
    await delay(
      Math.min(opts.pollMs ?? POLL_MS, opts.waitMs - waited),
      undefined,
      opts.signal ? { signal: opts.signal } : {},
    );
  }
}

async function tryCreate(lockFile: string): Promise<WriterLock | undefined> {
  const holder: LockHolder = {
    pid: process.pid,
    hostname: os.hostname(),
    since: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  let handle;
  try {
    handle = await fsp.open(lockFile, 'wx');
  } catch (e) {
    if (isErrno(e, 'EEXIST')) return undefined;
    throw e;
  }
  try {
    await handle.writeFile(JSON.stringify(holder));
  } catch (e) {
    // A lock nobody can read would hold everyone off until it goes stale: none at all.
    await handle.close().catch(() => undefined);
    await fsp.rm(lockFile, { force: true });
    throw e;
  }
  await handle.close();
  return holdLock(lockFile, holder.token);
}

function holdLock(lockFile: string, token: string): WriterLock {
  held.set(lockFile, token);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', releaseAllSync);
  }
  const beat = setInterval(() => {
    const now = new Date();
    fsp.utimes(lockFile, now, now).catch(() => undefined);
  }, HEARTBEAT_MS);
  beat.unref();
  let released = false;
  return {
    file: lockFile,
    release: async () => {
      if (released) return;
      released = true;
      clearInterval(beat);
      held.delete(lockFile);
      const seen = await readLock(lockFile);
      if (seen?.holder?.token === token) await fsp.rm(lockFile, { force: true });
    },
  };
}

function releaseAllSync(): void {
  for (const [lockFile, token] of held) {
    try {
      const holder = parseHolder(fs.readFileSync(lockFile, 'utf8'));
      if (holder?.token === token) fs.rmSync(lockFile, { force: true });
    } catch {
      // gone already
    }
  }
}

interface SeenLock {
  text: string;
  /** Undefined while its maker has not written it yet, or when it is not a lock Engram wrote. */
  holder: LockHolder | undefined;
  mtimeMs: number;
}

async function readLock(lockFile: string): Promise<SeenLock | undefined> {
  try {
    const [text, st] = await Promise.all([fsp.readFile(lockFile, 'utf8'), fsp.stat(lockFile)]);
    return { text, holder: parseHolder(text), mtimeMs: st.mtimeMs };
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return undefined;
    throw e;
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    if (
      typeof h.pid === 'number' &&
      typeof h.hostname === 'string' &&
      typeof h.since === 'string' &&
      typeof h.token === 'string'
    )
      return h as LockHolder;
  } catch {
    // being written, or not ours
  }
  return undefined;
}

function isStale(seen: SeenLock): boolean {
  if (Date.now() - seen.mtimeMs > STALE_MS) return true;
  const h = seen.holder;
  return h !== undefined && h.hostname === os.hostname() && !processAlive(h.pid);
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, it is someone else's.
    return isErrno(e, 'EPERM');
  }
}

/**
 * Removes a stale lock without removing a fresh one that another waiter made in the meantime: the lock
 * is moved aside first, and put back if what was moved is not the stale one that was judged.
 */
async function takeOver(lockFile: string, staleText: string): Promise<void> {
  const aside = `${lockFile}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await fsp.rename(lockFile, aside);
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return; // another waiter took it over first
    throw e;
  }
  const moved = await fsp.readFile(aside, 'utf8').catch(() => staleText);
  if (moved !== staleText) await fsp.link(aside, lockFile).catch(() => undefined);
  await fsp.rm(aside, { force: true });
}
