// One live connection to one MCP server, through the SDK's Client: opens the transport (stdio, Streamable
// HTTP or SSE), runs `initialize` within the startup timeout, lists the tools (every page), follows
// `notifications/tools/list_changed`, calls tools with the turn's signal and a timeout (the SDK sends
// `notifications/cancelled` for either), and says in words why it failed or stopped: not found or not
// executable, exited with a code before answering, never answered, wrote something that is not JSON-RPC.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { StdioTransport } from './stdioTransport';
import type { ListedTool } from './toolDefinition';
import type { McpServerFailure, McpTransportConfig } from './types';

/**
 * `tools/list` read loosely: the SDK's own schema refuses the whole list when one tool's schema is off
 * (no `type: "object"`), and here one bad tool must be left out alone (toolDefinition.ts).
 */
const looseToolList = z.looseObject({
  tools: z.array(z.looseObject({ name: z.string(), description: z.string().optional(), inputSchema: z.unknown() })),
  nextCursor: z.string().optional(),
});
/** `tools/call` read loosely too: mcpResult.ts maps whatever blocks come, and notes the ones it cannot show. */
const looseCallResult = z.looseObject({});

/** Most pages of `tools/list` read from one server (a server that pages forever is cut off). */
const MAX_TOOL_PAGES = 50;

export interface ConnectionOptions {
  clientInfo: { name: string; version: string };
  cwd: string;
  env: Record<string, string | undefined>;
  startupTimeoutMs: number;
  /** The server's tools changed (list_changed, read again). */
  onToolsChanged(tools: ListedTool[]): void;
  /** The connection ended without close() being called: a crash, an exit, a dropped stream. */
  onLost(failure: McpServerFailure): void;
}

/** A failure with its details, thrown by connect() and callTool(). */
export class McpConnectionError extends Error {
  constructor(readonly failure: McpServerFailure) {
    super(failure.message);
  }
}

export class McpConnection {
  serverInfo: { name: string; version: string } | undefined;
  private readonly client: Client;
  private readonly transport: Transport;
  private closing = false;
  private ready = false;
  /** A remote server's address without its query (which may hold a token), for messages. */
  private readonly where: string | undefined;

  constructor(
    config: McpTransportConfig,
    private readonly opts: ConnectionOptions,
  ) {
    this.client = new Client(opts.clientInfo, { capabilities: {} });
    this.where = config.type === 'stdio' ? undefined : addressOf(config.url);
    this.transport = makeTransport(config, opts);
    this.client.onclose = () => {
      if (this.closing || !this.ready) return;
      this.ready = false;
      this.opts.onLost(this.failure('stopped'));
    };
    this.client.onerror = () => {
      // Recorded by the transport (garbage on stdout) or surfaced by the failing request itself.
    };
  }

  /** Connects and lists the tools; throws McpConnectionError saying why it could not. */
  async connect(): Promise<ListedTool[]> {
    const timeoutMs = this.opts.startupTimeoutMs;
    try {
      await this.client.connect(this.transport, { timeout: timeoutMs });
    } catch (e) {
      const failure = this.failure('beforeInitialize', e);
      await this.close();
      throw new McpConnectionError(failure);
    }
    const info = this.client.getServerVersion();
    if (info) this.serverInfo = { name: info.name, version: info.version };
    let tools: ListedTool[];
    try {
      tools = await this.listTools();
    } catch (e) {
      const failure = this.failure('listing', e);
      await this.close();
      throw new McpConnectionError(failure);
    }
    this.ready = true;
    if (this.client.getServerCapabilities()?.tools?.listChanged) {
      this.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        try {
          this.opts.onToolsChanged(await this.listTools());
        } catch {
          // The next list_changed or restart tries again; the old list stays meanwhile.
        }
      });
    }
    return tools;
  }

  /** Every page of `tools/list`. */
  async listTools(): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const params = cursor ? { cursor } : {};
      const r = await this.client.request({ method: 'tools/list', params }, looseToolList, {
        timeout: this.opts.startupTimeoutMs,
      });
      tools.push(...r.tools);
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  get connected(): boolean {
    return this.ready;
  }

  /**
   * Calls a tool; the SDK sends `notifications/cancelled` when `signal` aborts or `timeoutMs` passes.
   * Throws McpConnectionError when the connection went away during the call, and the SDK's error otherwise.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<unknown> {
    try {
      const request = { method: 'tools/call' as const, params: { name, arguments: args } };
      return await this.client.request(request, looseCallResult, {
        signal,
        timeout: timeoutMs,
        maxTotalTimeout: timeoutMs,
      });
    } catch (e) {
      if (signal.aborted) throw e;
      // The server answered with an error (a timeout is the SDK's own answer): the connection is fine.
      // Anything else (the child exited, the HTTP server went away or forgot the session) is a lost connection.
      const answered = e instanceof McpError && e.code !== ErrorCode.ConnectionClosed;
      if (!answered) {
        this.ready = false;
        throw new McpConnectionError(this.failure('stopped', e));
      }
      throw e;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.ready = false;
    try {
      await this.client.close();
    } catch {
      // already closed
    }
    // A transport the client never took (connect failed before start) is closed here.
    await this.transport.close().catch(() => undefined);
  }

  /** What went wrong, in words a person can act on, with the child's exit and last stderr lines. */
  private failure(phase: 'beforeInitialize' | 'listing' | 'stopped', e?: unknown): McpServerFailure {
    const stdio = this.transport instanceof StdioTransport ? this.transport : undefined;
    const exit = stdio?.exit;
    const parts: string[] = [];
    if (stdio?.spawnError) parts.push(stdio.spawnError);
    else {
      if (stdio?.garbage) parts.push(`wrote something that is not JSON-RPC on stdout ("${stdio.garbage}")`);
      const ended = exit ? exitWords(exit) : undefined;
      const timedOut = e instanceof McpError && e.code === ErrorCode.RequestTimeout;
      if (phase === 'beforeInitialize') {
        if (ended) parts.push(`${ended} before answering initialize`);
        else if (timedOut) parts.push(`did not answer initialize within ${seconds(this.opts.startupTimeoutMs)}`);
        else if (this.where) parts.push(`could not connect to ${this.where}: ${errorText(e)}`);
        else parts.push(`could not be initialized: ${errorText(e)}`);
      } else if (phase === 'listing') parts.push(`could not list its tools: ${ended ?? errorText(e)}`);
      else parts.push(ended ?? (e ? `lost the connection: ${errorText(e)}` : 'closed the connection'));
    }
    const failure: McpServerFailure = {
      message: parts.join('; '),
      stderr: stdio ? [...stdio.stderr] : [],
      at: Date.now(),
    };
    if (exit) {
      failure.exitCode = exit.code;
      failure.signal = exit.signal;
    }
    return failure;
  }
}

function makeTransport(config: McpTransportConfig, opts: ConnectionOptions): Transport {
  if (config.type === 'stdio') {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.env)) if (v !== undefined) env[k] = v;
    Object.assign(env, config.env);
    return new StdioTransport({ command: config.command, args: config.args, env, cwd: config.cwd ?? opts.cwd });
  }
  const init = { requestInit: { headers: config.headers } };
  return config.type === 'http'
    ? new StreamableHTTPClientTransport(new URL(config.url), init)
    : new SSEClientTransport(new URL(config.url), init);
}

/** Whether a call failed because it ran past its timeout (the SDK then sent `notifications/cancelled`). */
export function isTimeout(e: unknown): boolean {
  return e instanceof McpError && e.code === ErrorCode.RequestTimeout;
}

function addressOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return 'an invalid URL';
  }
}

function exitWords(exit: { code: number | null; signal: string | null }): string {
  return exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code}`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
