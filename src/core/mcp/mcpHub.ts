// The hub of a session's MCP servers: starts every server the start rule allows, in the background (a
// turn never waits for one), offers their tools to the agent, tells its host what changed (a server's
// status, a failure with its reason, the offered tool list), and ends every child when closed. The hosts
// build it (src/core/host/mcp.ts) and the session owns it.
import { silentLogger, type Logger } from '../ports';
import type { Tool } from '../tools/tool';
import { McpServer } from './mcpServer';
import type { McpHubEvent, McpHubOptions, McpServerStatus } from './types';

export class McpHub {
  private readonly servers: McpServer[];
  private readonly listeners = new Set<(e: McpHubEvent) => void>();
  private offeredNames: string[] = [];
  private closed = false;
  private started = false;

  constructor(
    private readonly opts: McpHubOptions,
    private readonly logger: Logger = silentLogger,
  ) {
    this.servers = opts.servers.map(
      (entry) =>
        new McpServer(entry, {
          opts,
          logger,
          emit: (e) => this.emit(e),
          toolsMayHaveChanged: () => this.compareTools(),
        }),
    );
  }

  /** Starts every allowed server in the background; returns at once. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.refresh();
  }

  /**
   * The tools offered to the model now (each with `Tool.mcp` set): ready servers' tools, and a failed
   * server's known tools (a call restarts it); turned-off and rejected tools are left out. A name two
   * servers' tools both sanitize to is offered once (the first).
   */
  tools(): Tool[] {
    const seen = new Set<string>();
    const out: Tool[] = [];
    for (const server of this.servers) {
      for (const tool of server.offered()) {
        if (seen.has(tool.name)) continue;
        seen.add(tool.name);
        out.push(tool);
      }
    }
    return out;
  }

  status(): McpServerStatus[] {
    return this.servers.map((s) => s.status());
  }

  /** Tokens the offered tools' definitions add to every request (for the gauge and the inspector). */
  definitionTokens(): number {
    const offered = new Set(this.tools().map((t) => t.name));
    let sum = 0;
    for (const s of this.status()) for (const t of s.tools) if (offered.has(t.name)) sum += t.tokens;
    return sum;
  }

  onEvent(listener: (e: McpHubEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Asks the start rule and the tool switches again: starts servers newly allowed, stops those now
   * refused (approval revoked, turned off), and re-reads which tools are off.
   */
  refresh(): void {
    if (this.closed) return;
    this.started = true;
    for (const server of this.servers) {
      server.refreshDisabled();
      const verdict = this.opts.mayStart(server.entry);
      const running = server.state === 'ready' || server.state === 'starting' || server.state === 'failed';
      if (verdict === true) {
        if (!running) void server.start();
      } else if (server.state !== verdict) void server.stop(verdict);
    }
    this.compareTools();
  }

  /** Stops and starts one server again (the inspector's Restart), whatever its backoff says. */
  async restart(name: string): Promise<void> {
    const server = this.servers.find((s) => s.name === name);
    if (!server || this.closed) return;
    await server.stop('stopped');
    const verdict = this.opts.mayStart(server.entry);
    if (verdict === true) await server.start();
    else await server.stop(verdict);
  }

  /** Resolves once no server is starting (or after `timeoutMs`): `engram -p` and tests wait here. */
  async whenSettled(timeoutMs?: number): Promise<void> {
    const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    while (this.servers.some((s) => s.state === 'starting')) {
      const all = Promise.all(this.servers.map((s) => s.settled()));
      if (deadline === undefined) await all;
      else {
        const left = deadline - Date.now();
        if (left <= 0) return;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, left)))]);
        clearTimeout(timer);
      }
    }
  }

  /** Ends every server's connection and child process; the hub starts nothing after. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.servers.map((s) => s.stop('stopped')));
    this.listeners.clear();
  }

  private compareTools(): void {
    const now = this.tools().map((t) => t.name);
    const before = new Set(this.offeredNames);
    const after = new Set(now);
    const added = now.filter((n) => !before.has(n));
    const removed = this.offeredNames.filter((n) => !after.has(n));
    this.offeredNames = now;
    if (added.length > 0 || removed.length > 0) this.emit({ type: 'toolsChanged', added, removed });
  }

  private emit(event: McpHubEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (e) {
        this.logger.error('An MCP hub listener threw', e);
      }
    }
  }
}
