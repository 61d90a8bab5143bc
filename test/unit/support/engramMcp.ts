// `engram mcp` as a real child process (TypeScript through tsx, as cliProcess.ts runs the CLI), driven by
// the official SDK's Client over stdio: what Claude Code or any other MCP client does. HOME and TMPDIR are
// a test folder and nothing of the developer's environment leaks in but PATH.
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface EngramMcp {
  client: Client;
  /** What the server wrote to stderr so far (its logs). */
  stderr(): string;
  /** A tool call's result, with the text of its content joined. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult & { text: string }>;
  close(): Promise<void>;
}

/** The command line that runs `engram <args>` from this checkout. */
export function engramCommand(args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', 'tsx', path.resolve('src/cli/main.ts'), ...args] };
}

export async function startEngramMcp(opts: {
  home: string;
  args: string[];
  env?: Record<string, string>;
  clientName?: string;
}): Promise<EngramMcp> {
  const { command, args } = engramCommand(['mcp', ...opts.args]);
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', HOME: opts.home, TMPDIR: opts.home, ...opts.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: opts.clientName ?? 'claude-code', version: '2.1.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    call: async (name, callArgs = {}) => {
      const result = (await client.callTool({ name, arguments: callArgs })) as CallToolResult;
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      return { ...result, text };
    },
    close: () => client.close(),
  };
}
