// The stdio transport for a local MCP server: the child is started in its own process group (so closing
// ends whatever it started too), its stdout is read as newline-delimited JSON-RPC (the SDK's
// message parser, lines joined without copying a growing buffer), and what the SDK's StdioClientTransport does not keep is kept here for the failure message:
// the last lines of stderr (never passed to the model), the exit code or signal, and the first line of
// stdout that was not JSON-RPC.
import { type ChildProcess, spawn } from 'node:child_process';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const STDERR_LINES = 20;
/** Process groups of the servers running now, ended if this process exits without closing them. */
const liveGroups = new Set<number>();
let exitHook = false;

function watchGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHook || process.platform === 'win32') return;
  exitHook = true;
  // A server in its own group does not get the terminal's Ctrl-C; an exit that skipped close() ends it here.
  process.once('exit', () => {
    for (const group of liveGroups) {
      try {
        process.kill(-group, 'SIGTERM');
      } catch {
        // gone already
      }
    }
  });
}
/** Largest single message read from a server (a 10 MB result must still arrive whole, to be cut). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const GRACE_MS = 2000;

export interface StdioParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** How the child ended, once it has. */
export interface ChildExit {
  code: number | null;
  signal: string | null;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The last lines the child wrote to stderr. */
  readonly stderr: string[] = [];
  /** Set when the child has exited. */
  exit: ChildExit | undefined;
  /** The first stdout line that was not a JSON-RPC message (cut to 200 characters). */
  garbage: string | undefined;
  /** Why it could not be started (spawn error), in words. */
  spawnError: string | undefined;
  private child: ChildProcess | undefined;
  /** The chunks of the line being read, and their size. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stderrPartial = '';
  private exited: Promise<void> | undefined;

  constructor(private readonly params: StdioParams) {}

  start(): Promise<void> {
    if (this.child) throw new Error('The stdio transport is already started.');
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        env: this.params.env,
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
        // Its own process group, so close() can end the children it starts (npx -> node, uvx -> python).
        detached: process.platform !== 'win32',
      });
      this.child = child;
      this.exited = new Promise<void>((done) => {
        child.once('close', (code, signal) => {
          this.flushStderr();
          this.exit = { code, signal };
          done();
          this.onclose?.();
        });
      });
      child.once('error', (e: NodeJS.ErrnoException) => {
        this.spawnError = describeSpawnError(this.params.command, e);
        reject(new Error(this.spawnError));
        this.onerror?.(e);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) watchGroup(child.pid);
        resolve();
      });
      child.stdin?.on('error', (e) => this.onerror?.(e));
      child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
      child.stderr?.on('data', (chunk: Buffer) => this.keepStderr(chunk.toString('utf8')));
    });
  }

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.exit) {
        reject(new Error('The server is not running.'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the child: stdin closed, then SIGTERM to its group, then SIGKILL, a grace period apart. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || !this.exited) return;
    if (!this.exit) {
      try {
        child.stdin?.end();
      } catch {
        // already closed
      }
      const waited = (ms: number): Promise<boolean> =>
        Promise.race([
          this.exited?.then(() => true) ?? Promise.resolve(true),
          new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
        ]);
      if (!(await waited(GRACE_MS))) {
        this.signal(child, 'SIGTERM');
        if (!(await waited(GRACE_MS))) this.signal(child, 'SIGKILL');
      }
    }
    // Children the server left behind in its group go too.
    this.signal(child, 'SIGKILL', true);
    if (child.pid !== undefined) liveGroups.delete(child.pid);
    this.pending = [];
  }

  /** Sends a signal to the child's process group (or the child alone where groups are not used). */
  private signal(child: ChildProcess, sig: NodeJS.Signals, groupOnly = false): void {
    const pid = child.pid;
    if (pid === undefined) return;
    try {
      if (process.platform !== 'win32') process.kill(-pid, sig);
      else if (!groupOnly) child.kill(sig);
    } catch {
      // the group is gone already
    }
  }

  private read(chunk: Buffer): void {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(10, from);
      if (nl === -1) {
        this.pending.push(chunk.subarray(from));
        this.pendingBytes += chunk.length - from;
        if (this.pendingBytes > MAX_MESSAGE_BYTES) {
          this.pending = [];
          this.pendingBytes = 0;
          this.onerror?.(new Error(`The server sent a message over ${MAX_MESSAGE_BYTES / 1024 / 1024} MB.`));
        }
        return;
      }
      this.pending.push(chunk.subarray(from, nl));
      const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
      this.pending = [];
      this.pendingBytes = 0;
      from = nl + 1;
      if (line.trim() !== '') this.handleLine(line);
    }
  }

  private handleLine(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch {
      this.garbage ??= line.length > 200 ? `${line.slice(0, 200)}…` : line;
      this.onerror?.(new Error(`The server wrote something that is not JSON-RPC on stdout: ${this.garbage}`));
      return;
    }
    this.onmessage?.(message);
  }

  private keepStderr(text: string): void {
    const lines = (this.stderrPartial + text).split(/\r?\n/);
    this.stderrPartial = lines.pop() ?? '';
    for (const line of lines) this.pushStderr(line);
  }

  private flushStderr(): void {
    if (this.stderrPartial) this.pushStderr(this.stderrPartial);
    this.stderrPartial = '';
  }

  private pushStderr(line: string): void {
    if (line.trim() === '') return;
    this.stderr.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
    if (this.stderr.length > STDERR_LINES) this.stderr.shift();
  }
}

function describeSpawnError(command: string, e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
      return `"${command}" was not found (is it installed and on PATH?)`;
    case 'EACCES':
      return `"${command}" is not executable (check its permissions)`;
    default:
      return `"${command}" could not be started: ${e.message}`;
  }
}
