// Shared by the `engram -p` MCP tests: the reference servers from npm, a --mcp-config value naming one
// stdio server, `engram -p` as a child process a test can interrupt, and the servers still alive.
import { execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/** A --mcp-config value (inline JSON) naming one stdio server. */
export function mcpConfig(name: string, command: string, args: string[]): string {
  return JSON.stringify({ mcpServers: { [name]: { command, args } } });
}

/** server-everything as "everything"; `marker` (an argument it ignores) finds its process again. */
export function everythingConfig(marker = 'engram-test'): string {
  return mcpConfig('everything', process.execPath, [EVERYTHING, 'stdio', marker]);
}

/** Servers (not the engram process that names them) whose command line holds `marker` (Linux: /proc). */
export function serversWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(marker) && !cmdline.includes('src/cli/main.ts')) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

export interface RunningEngram {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
}

/** `engram ARGS` as a child process, with HOME and TMPDIR in `home` and only PATH of this environment. */
export function startEngram(args: string[], home: string, env: Record<string, string>): RunningEngram {
  const child = execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, TMPDIR: home, ...env },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => void (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}
