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
   * A cheap test on a stdout line's bytes (`bytes[start, end)`, no terminator) before it is decoded: a
   * line it refuses never becomes a string. A listing of 80,000 paths where a few thousand match costs
   * far less this way.
   */
  keepStdout?(bytes: Buffer, start: number, end: number): boolean;
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
    splitByteLines(
      proc.stdout,
      (l) => !stopped && !timedOut && lines.onStdout(l),
      lines.keepStdout?.bind(lines) ?? (() => true),
    );
    splitByteLines(
      proc.stderr,
      (l) => lines.onStderr(l),
      () => true,
    );
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

/**
 * Calls `onLine` for each line of `stream` that `keep` accepts, decoded as UTF-8 (a trailing CR kept; a
 * last line without a terminator too). Lines are cut on the bytes, so a character split between two
 * chunks is whole when decoded; a line longer than a chunk is joined once, when its end comes.
 */
function splitByteLines(
  stream: NodeJS.ReadableStream,
  onLine: (line: string) => void,
  keep: (bytes: Buffer, start: number, end: number) => boolean,
): void {
  let pending: Buffer[] = [];
  const whole = (line: Buffer): void => {
    if (keep(line, 0, line.length)) onLine(line.toString('utf8'));
  };
  stream.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
      if (pending.length > 0) {
        whole(Buffer.concat([...pending, chunk.subarray(0, i)]));
        pending = [];
      } else if (keep(chunk, start, i)) onLine(chunk.toString('utf8', start, i));
      start = i + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
  stream.on('end', () => {
    if (pending.length > 0) whole(Buffer.concat(pending));
    pending = [];
  });
  stream.on('error', () => undefined);
}
