// Shared by the MCP tests: entries for the reference servers from node_modules and for tiny bad servers
// written into a temp dir, a hub built around them, and a free loopback port for the HTTP modes.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import { McpHub } from '../../../src/core/mcp/mcpHub';
import type { EngramSession } from '../../../src/core/session/engramSession';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import type { McpHubOptions, McpServerEntry, McpTransportConfig } from '../../../src/core/mcp/types';
import type { Logger, PermissionPrompt } from '../../../src/core/ports';

export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

export function entry(name: string, transport: McpTransportConfig): McpServerEntry {
  return { name, source: 'user', transport, fingerprint: `fp-${name}` };
}

export function nodeServer(name: string, script: string, args: string[] = []): McpServerEntry {
  return entry(name, { type: 'stdio', command: process.execPath, args: [script, ...args], env: {} });
}

export interface TestHub {
  hub: McpHub;
  warnings: string[];
}

export function makeHub(servers: McpServerEntry[], extra: Partial<McpHubOptions> = {}): TestHub {
  const warnings: string[] = [];
  const logger: Logger = { info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
  const hub = new McpHub(
    {
      servers,
      clientInfo: { name: 'engram-test', version: '0.0.0' },
      mayStart: () => true,
      cwd: os.tmpdir(),
      startupTimeoutMs: 20_000,
      ...extra,
    },
    logger,
  );
  return { hub, warnings };
}

/**
 * A session on the test server at `serverUrl` whose MCP servers are `hub`'s, working in `<root>/ws` with its
 * data in `<root>/data`; notes and extraction are off unless `settings` turn them on.
 */
export function openHubSession(
  hub: McpHub,
  serverUrl: string,
  root: string,
  opts: { trusted?: boolean; prompt?: PermissionPrompt; entrypoint?: string; settings?: SettingsStore } = {},
): Promise<EngramSession> {
  return openEngramSession(
    {
      cwd: path.join(root, 'ws'),
      dataDir: path.join(root, 'data'),
      client: new AnthropicModelClient({ apiKey: 'k', baseUrl: serverUrl }),
      trusted: opts.trusted ?? true,
      permissionPrompt: opts.prompt ?? { ask: async () => 'deny' },
      version: '0.0.0-test',
      entrypoint: opts.entrypoint ?? 'vscode',
      mcp: hub,
    },
    opts.settings ?? new SettingsStore({ 'memory.extraction.enabled': false, 'sessionNotes.enabled': false }),
  );
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `engram-mcp-${prefix}-`));
}

/** Writes a node script into `dir` and returns its path. */
export function script(dir: string, name: string, body: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, body);
  return file;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The text of a ToolResult for assertions. */
export function call(hub: McpHub, name: string, input: Record<string, unknown> = {}, signal?: AbortSignal) {
  const tool = hub.tools().find((t) => t.name === name);
  if (!tool)
    throw new Error(
      `no tool ${name} among ${hub
        .tools()
        .map((t) => t.name)
        .join(', ')}`,
    );
  return tool.run(input, {
    cwd: os.tmpdir(),
    signal: signal ?? new AbortController().signal,
    readFiles: undefined as never,
  });
}
