// One configured server inside the hub: its state (starting, ready, failed, or held back by the start
// rule), its live connection, its tools as checked and adapted, and the rule for calls: a call to a
// failed server restarts it once the backoff (1 s, 2 s, 4 s ... at most 60 s) has passed, and before that
// answers with an error saying when it will be tried again. Its tools stay offered while it is failed, so
// the request prefix does not change because a server crashed.
import type { Logger } from '../ports';
import { redactSecrets } from '../security/secretScan';
import type { Tool, ToolResult } from '../tools/tool';
import { fillInputs } from './configExpand';
import { isTimeout, McpConnection, McpConnectionError } from './mcpConnection';
import { DEFAULT_MAX_OUTPUT_TOKENS, mapCallResult } from './mcpResult';
import { createMcpTool } from './mcpTool';
import { checkToolDefinition, type ListedTool } from './toolDefinition';
import type {
  McpHubEvent,
  McpHubOptions,
  McpServerEntry,
  McpServerFailure,
  McpServerState,
  McpServerStatus,
  McpToolInfo,
  McpTransportConfig,
} from './types';

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_CALL_TIMEOUT_MS = 600_000;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;

export interface ServerDeps {
  opts: McpHubOptions;
  logger: Logger;
  emit(event: McpHubEvent): void;
  /** The offered tools may have changed: the hub compares and tells. */
  toolsMayHaveChanged(): void;
}

export class McpServer {
  state: McpServerState = 'stopped';
  failure: McpServerFailure | undefined;
  retryAt: number | undefined;
  private connection: McpConnection | undefined;
  /** A connection still starting (closed by stop() too, so no child outlives the hub). */
  private opening: McpConnection | undefined;
  private starting: Promise<void> | undefined;
  private infos: McpToolInfo[] = [];
  private adapted = new Map<string, Tool>();
  private attempts = 0;
  private serverInfo: { name: string; version: string } | undefined;
  /** Bumped by stop(): a start that was overtaken does not install its connection. */
  private generation = 0;

  constructor(
    readonly entry: McpServerEntry,
    private readonly deps: ServerDeps,
  ) {}

  get name(): string {
    return this.entry.name;
  }

  /** Starts in the background (once at a time); resolves when it is ready or has failed. */
  start(): Promise<void> {
    this.starting ??= this.connect().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Settles when no start is running. */
  settled(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  /** Ends the connection and holds the server in `state` (a refusal of the start rule, or closed). */
  async stop(state: McpServerState): Promise<void> {
    this.generation++;
    const connections = [this.connection, this.opening];
    this.connection = undefined;
    this.opening = undefined;
    this.setState(state);
    if (state !== 'failed') this.deps.toolsMayHaveChanged();
    await Promise.all(connections.map((c) => c?.close()));
  }

  /** Tools offered to the model: known ones, while ready, starting again or failed (restarted on use). */
  offered(): Tool[] {
    if (this.state !== 'ready' && this.state !== 'failed' && this.state !== 'starting') return [];
    return this.infos.filter((i) => !i.disabled && !i.rejected).flatMap((i) => this.adapted.get(i.rawName) ?? []);
  }

  status(): McpServerStatus {
    const e = this.entry;
    const s: McpServerStatus = {
      name: e.name,
      source: e.source,
      transport: e.transport,
      fingerprint: e.fingerprint,
      state: this.state,
      tools: this.infos.map((i) => ({ ...i })),
    };
    if (e.file !== undefined) s.file = e.file;
    if (this.serverInfo) s.serverInfo = this.serverInfo;
    if (this.failure && this.state === 'failed') s.failure = this.failure;
    if (this.retryAt !== undefined && this.state === 'failed') s.retryAt = this.retryAt;
    return s;
  }

  /** Re-asks which tools the person turned off. */
  refreshDisabled(): void {
    const isOff = this.deps.opts.isToolDisabled;
    let changed = false;
    for (const info of this.infos) {
      const off = isOff?.(this.name, info.rawName) ?? false;
      if (off !== info.disabled) {
        info.disabled = off;
        changed = true;
      }
    }
    if (changed) this.setState(this.state);
  }

  async call(rawTool: string, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const opts = this.deps.opts;
    if (this.state === 'failed' && this.retryAt !== undefined && Date.now() < this.retryAt) {
      const wait = Math.ceil((this.retryAt - Date.now()) / 1000);
      return errorResult(
        `The MCP server "${this.name}" failed (${this.failure?.message ?? 'unknown reason'}). It will be started ` +
          `again when a tool of it is used in ${wait} s or later; try another way meanwhile.`,
      );
    }
    if (this.state === 'failed' || this.state === 'starting') await this.start();
    const connection = this.connection;
    if (this.state !== 'ready' || !connection) {
      const why = this.state === 'failed' ? this.failure?.message : `it is ${this.state}`;
      return errorResult(`The MCP server "${this.name}" is not available: ${why ?? 'unknown reason'}.`);
    }
    const timeoutMs = opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    try {
      const raw = await connection.callTool(rawTool, input, signal, timeoutMs);
      this.attempts = 0;
      return mapCallResult(raw, opts.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
    } catch (e) {
      if (e instanceof McpConnectionError) {
        if (this.connection === connection) await this.fail(e.failure);
        return errorResult(
          `The MCP server "${this.name}" stopped during the call: ${e.failure.message}. ` +
            'It is restarted when one of its tools is used again.',
        );
      }
      if (signal.aborted) return errorResult('Cancelled by the user before this tool finished.');
      const text = e instanceof Error ? e.message : String(e);
      if (isTimeout(e))
        return errorResult(
          `${this.name} · ${rawTool} did not answer within ${timeoutMs / 1000} s; the call was cancelled.`,
        );
      return errorResult(`${this.name} · ${rawTool} failed: ${text}`);
    }
  }

  private async connect(): Promise<void> {
    const generation = this.generation;
    this.setState('starting');
    const transport = await this.transportWithInputs();
    if (generation !== this.generation) return;
    if (typeof transport === 'string') {
      await this.fail({ message: transport, stderr: [], at: Date.now() });
      return;
    }
    const opts = this.deps.opts;
    let connection: McpConnection;
    let listed: ListedTool[];
    try {
      connection = new McpConnection(transport, {
        clientInfo: opts.clientInfo,
        cwd: opts.cwd,
        env: opts.env ?? process.env,
        startupTimeoutMs: opts.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
        onToolsChanged: (tools) => {
          if (this.connection !== connection) return;
          this.setTools(tools);
          this.setState(this.state);
        },
        onLost: (failure) => {
          if (this.connection === connection) void this.fail(failure);
        },
      });
      this.opening = connection;
      listed = await connection.connect();
    } catch (e) {
      if (generation !== this.generation) return;
      this.opening = undefined;
      const failure =
        e instanceof McpConnectionError
          ? e.failure
          : { message: e instanceof Error ? e.message : String(e), stderr: [], at: Date.now() };
      await this.fail(failure);
      return;
    }
    if (generation !== this.generation) {
      await connection.close();
      return;
    }
    this.opening = undefined;
    this.connection = connection;
    this.serverInfo = connection.serverInfo;
    this.failure = undefined;
    this.retryAt = undefined;
    this.setTools(listed);
    this.setState('ready');
  }

  /** The transport with `${input:id}` filled in, or why the server cannot start. */
  private async transportWithInputs(): Promise<McpTransportConfig | string> {
    const t = this.entry.transport;
    const ids = this.entry.inputs?.map((i) => i.id) ?? [];
    if (ids.length === 0) return t;
    let answers: Record<string, string> | undefined;
    try {
      answers = await this.deps.opts.resolveInputs?.(this.entry);
    } catch (e) {
      return `its inputs could not be asked for: ${e instanceof Error ? e.message : String(e)}`;
    }
    const missing = ids.filter((id) => answers?.[id] === undefined);
    if (!answers || missing.length > 0) return `it needs the input ${missing.join(', ')}, which was not answered`;
    const fill = (s: string): string => fillInputs(s, answers);
    const mapValues = (m: Record<string, string>): Record<string, string> =>
      Object.fromEntries(Object.entries(m).map(([k, v]) => [k, fill(v)]));
    return t.type === 'stdio'
      ? { ...t, command: fill(t.command), args: t.args.map(fill), env: mapValues(t.env) }
      : { ...t, url: fill(t.url), headers: mapValues(t.headers) };
  }

  private setTools(listed: ListedTool[]): void {
    const known = new Map(this.infos.map((i) => [i.rawName, i]));
    const infos: McpToolInfo[] = [];
    const adapted = new Map<string, Tool>();
    for (const tool of listed) {
      const checked = checkToolDefinition(this.name, tool);
      const disabled = this.deps.opts.isToolDisabled?.(this.name, tool.name) ?? false;
      if (!checked.ok) {
        infos.push({
          name: checked.name,
          rawName: tool.name,
          description: checked.description,
          disabled,
          rejected: checked.reason,
          tokens: 0,
        });
        if (known.get(tool.name)?.rejected !== checked.reason)
          this.deps.logger.warn(`MCP server "${this.name}": the tool "${tool.name}" is left out: ${checked.reason}.`);
        continue;
      }
      infos.push({
        name: checked.schema.name,
        rawName: tool.name,
        description: checked.schema.description,
        disabled,
        tokens: checked.tokens,
      });
      adapted.set(
        tool.name,
        createMcpTool(this.name, tool.name, checked.schema, (raw, input, signal) => this.call(raw, input, signal), {
          readOnlyHint: (tool.annotations as { readOnlyHint?: unknown } | undefined)?.readOnlyHint === true,
        }),
      );
    }
    this.infos = infos;
    this.adapted = adapted;
    this.deps.toolsMayHaveChanged();
  }

  /**
   * Marks the server failed at once (calls see it), then tells the host once the failure's text and
   * stderr lines were scanned for secrets: a server that prints its token before dying must not put it in
   * the chat or the log.
   */
  private async fail(failure: McpServerFailure): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    void connection?.close();
    this.attempts++;
    this.failure = failure;
    this.retryAt = failure.at + Math.min(FIRST_BACKOFF_MS * 2 ** (this.attempts - 1), MAX_BACKOFF_MS);
    this.state = 'failed';
    const clean = await withoutSecrets(failure);
    if (this.failure === failure) this.failure = clean;
    this.setState(this.state);
    this.deps.emit({ type: 'serverFailed', server: this.name, failure: clean });
    this.deps.logger.warn(`MCP server "${this.name}" failed: ${clean.message}`);
    this.deps.toolsMayHaveChanged();
  }

  private setState(state: McpServerState): void {
    this.state = state;
    this.deps.emit({ type: 'status', server: this.name, status: this.status() });
  }
}

/** The failure with secrets in its message and stderr lines redacted (withheld if the scan fails). */
async function withoutSecrets(failure: McpServerFailure): Promise<McpServerFailure> {
  try {
    const message = (await redactSecrets(failure.message)).text;
    const stderr = await Promise.all(failure.stderr.map(async (line) => (await redactSecrets(line)).text));
    return { ...failure, message, stderr };
  } catch {
    return { ...failure, stderr: ['(stderr withheld: it could not be checked for secrets)'] };
  }
}

function errorResult(content: string): ToolResult {
  return { content, isError: true };
}
