// Running one ripgrep process: its stdout and stderr line by line, killed on Stop, on the time limit or when
// the caller has enough; the promise settles only once the process is gone (no orphan rg).
import { spawn } from 'node:child_process';

export interface RgRun {
  /** Exit code (0 matches, 1 none, 2 error), null when killed. */
  code: number | null;
  /** Killed by the time limit. */
  timedOut: boolean;
  /** Killed because the caller stopped (Stop) or had enough (`stop()`). */
  stopped: boolean;
  /** Its process id, for tests that check it is gone. */
  pid: number | undefined;
}

export interface RgLines {
  onStdout(line: string): void;
  /**
   * Which stdout lines to decode: called with whole lines (each ending in LF), it calls `take` with the
   * [start, end) range of each line wanted, terminator excluded. A line it passes over never becomes a
   * string: a listing of 80,000 paths where a few thousand match costs far less this way. All by default.
   */
  pickStdout?: LinePicker;
  onStderr(line: string): void;
  /** Called once the process started: `stop()` ends it early (the caller has what it needs). */
  started?(stop: () => void, pid: number | undefined): void;
}

/** Runs `rg` with `args` in `cwd`; never rejects for a non-zero exit (the caller reads the code and stderr). */
export function runRg(
  rgPath: string,
  args: string[],
  cwd: string,
  signal: AbortSignal,
  timeLimitMs: number,
  lines: RgLines,
): Promise<RgRun> {
  return new Promise<RgRun>((resolve, reject) => {
    let child;
    try {
      child = spawn(rgPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    } catch (err) {
      reject(err);
      return;
    }
    const proc = child;
    let timedOut = false;
    let stopped = false;
    const kill = (): void => {
      try {
        proc.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    const stop = (): void => {
      stopped = true;
      kill();
    };
    const timer =
      Number.isFinite(timeLimitMs) && timeLimitMs > 0
        ? setTimeout(() => {
            timedOut = true;
            kill();
          }, timeLimitMs)
        : undefined;
    signal.addEventListener('abort', stop, { once: true });
    if (signal.aborted) stop();
    splitByteLines(proc.stdout, (l) => !stopped && !timedOut && lines.onStdout(l), lines.pickStdout ?? everyLine);
    splitByteLines(proc.stderr, (l) => lines.onStderr(l), everyLine);
    lines.started?.(stop, proc.pid);
    const finish = (code: number | null, err?: Error): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      if (err) reject(err);
      else resolve({ code, timedOut, stopped, pid: proc.pid });
    };
    proc.once('error', (err) => finish(null, err));
    proc.once('close', (code) => finish(code));
  });
}

/** Picks lines out of `bytes`, whole lines each ending in LF, by calling `take(start, end)` for each. */
export type LinePicker = (bytes: Buffer, take: (start: number, end: number) => void) => void;

/** Every line. */
const everyLine: LinePicker = (bytes, take) => {
  let start = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, start)) {
    take(start, i);
    start = i + 1;
  }
};

/**
 * Calls `onLine` for each line of `stream` that `pick` takes, decoded as UTF-8 (a last line without a
 * terminator too). Lines are cut on the bytes, so a character split between two chunks is whole when
 * decoded; a line longer than a chunk is joined once, when its end comes.
 */
function splitByteLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void, pick: LinePicker): void {
  let pending: Buffer[] = [];
  const lines = (bytes: Buffer): void => pick(bytes, (start, end) => onLine(bytes.toString('utf8', start, end)));
  stream.on('data', (chunk: Buffer) => {
    const last = chunk.lastIndexOf(10);
    if (last === -1) {
      pending.push(chunk);
      return;
    }
    lines(pending.length > 0 ? Buffer.concat([...pending, chunk.subarray(0, last + 1)]) : chunk.subarray(0, last + 1));
    pending = last + 1 < chunk.length ? [chunk.subarray(last + 1)] : [];
  });
  stream.on('end', () => {
    if (pending.length > 0) lines(Buffer.concat([...pending, Buffer.from('\n')]));
    pending = [];
  });
  stream.on('error', () => undefined);
}
