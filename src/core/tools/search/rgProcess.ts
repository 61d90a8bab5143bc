// Running one ripgrep process: its stdout and stderr line by line, killed on Stop, on the time limit or when
// the caller has enough; the promise settles only once the process is gone (no orphan rg).
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';

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
    splitLines(proc.stdout, (l) => !stopped && !timedOut && lines.onStdout(l));
    splitLines(proc.stderr, (l) => lines.onStderr(l));
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

function splitLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  const dec = new StringDecoder('utf8');
  let rest = '';
  stream.on('data', (chunk: Buffer) => {
    const text = rest + dec.write(chunk);
    let start = 0;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
      onLine(text.slice(start, i));
      start = i + 1;
    }
    rest = text.slice(start);
  });
  stream.on('end', () => {
    const last = rest + dec.end();
    if (last) onLine(last);
  });
  stream.on('error', () => undefined);
}
