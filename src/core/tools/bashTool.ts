// Bash: runs a command with `bash -c` in the working directory. The command gets its own process group so
// a timeout or the stop button can kill everything it started, not just the shell.
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { commandNamesProcSecret, PROC_SECRET_REASON } from '../security/procFiles';
import type { Tool, ToolContext, ToolResult } from './tool';
import { defineTool, errorResult, errorText } from './toolSupport';

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** Output kept for the model (~8K tokens); head and tail, because errors and summaries sit at the ends. */
export const BASH_MAX_OUTPUT_CHARS = 30_000;
/** Time between SIGTERM and SIGKILL, for processes that ignore or handle SIGTERM. */
const KILL_GRACE_MS = 2_000;
/** How long to wait for the pipes after the shell exits: a background child may hold them open forever. */
const PIPE_DRAIN_MS = 250;

export type BashInput = { command: string; timeout?: number; description?: string };

export interface BashData {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  interrupted: boolean;
  /** Characters the command printed in all, before the cap. */
  outputChars: number;
  truncated: boolean;
}

export function bashTool(): Tool<BashInput> {
  return defineTool<BashInput>({
    name: 'Bash',
    description:
      'Run a shell command with bash in the working directory; stdout and stderr are returned together with ' +
      'the exit code. timeout in ms (default 120000, max 600000). Long output keeps its start and end. ' +
      'Prefer Read, Grep and Glob over cat, grep and find.',
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command to run' },
        timeout: { type: 'integer', minimum: 1, maximum: BASH_MAX_TIMEOUT_MS, description: 'Timeout in milliseconds' },
        description: { type: 'string', description: 'What the command does, in a few words' },
      },
      required: ['command'],
      additionalProperties: false,
    },
    fields: {
      command: { type: 'string', required: true, nonEmpty: true },
      timeout: { type: 'integer', min: 1 },
      description: { type: 'string' },
    },
    readOnly: false,
    concurrencySafe: false,
    summarize: (input) => {
      const cmd = input.command.replace(/\s*\n\s*/g, ' ⏎ ');
      const short = cmd.length > 200 ? `${cmd.slice(0, 200)}…` : cmd;
      return input.description ? `${short}  (${input.description})` : short;
    },
    run: runBash,
  });
}

function runBash(input: BashInput, ctx: ToolContext): Promise<ToolResult> {
  // The command runs without the API key, but /proc/<parent>/environ still has it.
  if (commandNamesProcSecret(input.command))
    return Promise.resolve(errorResult(`${PROC_SECRET_REASON} Command not run.`));
  const timeoutMs = Math.min(input.timeout ?? BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS);
  const out = new HeadTailBuffer(BASH_MAX_OUTPUT_CHARS);
  const posix = process.platform !== 'win32';

  return new Promise<ToolResult>((resolve) => {
    let child;
    try {
      child = spawn('bash', ['-c', input.command], {
        cwd: ctx.cwd,
        detached: posix, // own process group (setsid), so the whole tree can be killed
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
        env: commandEnv(),
      });
    } catch (err) {
      resolve(errorResult(`Could not start bash: ${errorText(err)}`));
      return;
    }
    const proc = child;
    let timedOut = false;
    let interrupted = false;
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const killGroup = (sig: NodeJS.Signals): void => {
      try {
        if (posix && proc.pid !== undefined) process.kill(-proc.pid, sig);
        else proc.kill(sig);
      } catch {
        // already gone
      }
    };
    const terminate = (): void => {
      killGroup('SIGTERM');
      killTimer ??= setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
      killTimer.unref(); // the SIGKILL still fires if we are alive; it must not keep Node alive on its own
    };
    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, timeoutMs);
    const onAbort = (): void => {
      interrupted = true;
      terminate();
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    if (ctx.signal.aborted) onAbort();

    for (const stream of [proc.stdout, proc.stderr]) {
      const dec = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => out.append(dec.write(chunk)));
      stream.on('end', () => out.append(dec.end()));
      stream.on('error', () => undefined);
    }

    const finish = (spawnError?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      ctx.signal.removeEventListener('abort', onAbort);
      proc.stdout.destroy();
      proc.stderr.destroy();
      if (spawnError) {
        resolve(errorResult(`Could not run bash: ${errorText(spawnError)}`));
        return;
      }
      const notes: string[] = [];
      if (timedOut)
        notes.push(`[Command timed out after ${formatSeconds(timeoutMs)}; it and its child processes were killed.]`);
      else if (interrupted) notes.push('[Command was interrupted; it and its child processes were killed.]');
      else if (exitCode !== 0)
        notes.push(exitCode === null ? `[Killed by signal ${exitSignal}]` : `[Exit code ${exitCode}]`);
      const text = out.text();
      const body = text.trim() === '' ? '(no output)' : text.replace(/\s+$/, '');
      const data: BashData = {
        exitCode,
        signal: exitSignal,
        timedOut,
        interrupted,
        outputChars: out.total,
        truncated: out.truncated,
      };
      resolve({ content: [body, ...notes].join('\n'), isError: timedOut || interrupted || exitCode !== 0, data });
    };

    proc.on('error', (err) => finish(err));
    proc.on('exit', (code, sig) => {
      exitCode = code;
      exitSignal = sig;
      drainTimer = setTimeout(() => finish(), PIPE_DRAIN_MS);
    });
    proc.on('close', () => finish());
  });
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Keeps the first and last `cap / 2` characters of a stream, in bounded memory, and counts the rest. */
export class HeadTailBuffer {
  total = 0;
  private head = '';
  private tail: string[] = [];
  private tailLen = 0;
  private readonly half: number;

  constructor(private readonly cap: number) {
    this.half = Math.floor(cap / 2);
  }

  get truncated(): boolean {
    return this.total > this.cap;
  }

  append(s: string): void {
    if (!s) return;
    this.total += s.length;
    if (this.head.length < this.cap) {
      // Until the cap is reached everything fits; keep it all in head to return it verbatim.
      const take = Math.min(s.length, this.cap - this.head.length);
      this.head += s.slice(0, take);
      s = s.slice(take);
      if (!s) return;
    }
    this.tail.push(s);
    this.tailLen += s.length;
    while (this.tail.length > 1 && this.tailLen - this.tail[0].length >= this.half) {
      this.tailLen -= (this.tail.shift() as string).length;
    }
  }

  text(): string {
    if (!this.truncated) return this.head + this.tail.join('');
    // Over the cap: the first half of head, then the last `half` characters seen.
    const all = this.head + this.tail.join('');
    const tail = all.slice(all.length - this.half);
    const omitted = this.total - this.half - this.half;
    return `${this.head.slice(0, this.half)}\n\n[... ${omitted} characters omitted ...]\n\n${tail}`;
  }
}

/**
 * The environment a model-written command runs with: the user's, minus the API credentials the agent
 * itself uses (a command has no business reading them), and with git's credential prompt off (it would
 * hang until the timeout).
 */
export function commandEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, GIT_TERMINAL_PROMPT: '0' };
  for (const key of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ENGRAM_API_KEY']) delete out[key];
  return out;
}
