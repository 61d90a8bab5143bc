// A session's claim on its transcript: one writer at a time (fs/writerLock.ts), so two processes on one
// session (two `engram -p --resume`, two VS Code windows, the chat and the CLI) append one after the
// other instead of branching the conversation (issue #20).
// - 'run' (engram -p): the lock is taken before the transcript is read and held until the session
//   ends, so a second process waits, then reads the first one's turns and appends after them.
// - 'turn' (the chat, open for hours): the lock is taken for each turn. A transcript that grew by
//   more than this session wrote (another writer's turns) fails the turn with SessionChangedError
//   before anything is sent, and the host opens the session again from disk and retries.
import { promises as fsp } from 'node:fs';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import { isErrno } from '../fs/errno';
import { acquireWriterLock, type LockHolder, type WriterLock } from '../fs/writerLock';

export interface SessionWriterOptions {
  mode: 'run' | 'turn';
  /** How long to wait for another writer (default: 10 minutes). */
  waitMs?: number;
  /** Told once per wait that another process holds the session (to say so). */
  onWait?: (holder: LockHolder | undefined) => void;
  /** Ends a wait (Ctrl-C). */
  signal?: AbortSignal;
}

export const DEFAULT_WRITER_WAIT_MS = 10 * 60_000;

/** Another process appended to the transcript since this session read it: open it again and retry. */
export class SessionChangedError extends Error {
  constructor(readonly file: string) {
    super(`Another Engram process wrote to this session since it was opened here (${file}).`);
    this.name = 'SessionChangedError';
  }
}

export class TranscriptGuard {
  private lock: WriterLock | undefined;
  private writer: TranscriptWriter | undefined;

  private constructor(
    readonly file: string,
    private readonly opts: SessionWriterOptions,
    private readonly baseline: number,
  ) {}

  /** Before the transcript is read: takes the lock for a 'run', and notes the size it is read at. */
  static async beforeRead(file: string, opts: SessionWriterOptions): Promise<TranscriptGuard> {
    const lock = opts.mode === 'run' ? await acquire(file, opts) : undefined;
    try {
      const guard = new TranscriptGuard(file, opts, await sizeOf(file));
      guard.lock = lock;
      return guard;
    } catch (e) {
      await lock?.release();
      throw e;
    }
  }

  /** The writer whose lines are this session's own. */
  watch(writer: TranscriptWriter): void {
    this.writer = writer;
  }

  /** Runs `work` (a turn, a compaction) as the session's only writer. */
  async asWriter<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.opts.mode === 'run') return work();
    const lock = await acquire(this.file, { ...this.opts, ...(signal ? { signal } : {}) });
    try {
      await this.writer?.flush();
      if ((await sizeOf(this.file)) !== this.baseline + (this.writer?.appendedBytes ?? 0))
        throw new SessionChangedError(this.file);
      const result = await work();
      await this.writer?.flush();
      return result;
    } finally {
      await lock.release();
    }
  }

  async release(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    await lock?.release();
  }
}

function acquire(file: string, opts: SessionWriterOptions): Promise<WriterLock> {
  return acquireWriterLock(file, {
    waitMs: opts.waitMs ?? DEFAULT_WRITER_WAIT_MS,
    ...(opts.onWait ? { onWait: opts.onWait } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await fsp.stat(file)).size;
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return 0;
    throw e;
  }
}
