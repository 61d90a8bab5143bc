// MCP servers for `engram -p`: which servers a headless run starts, and what it says about the others.
// The user's own servers (<dataDir>/mcp.json, engram.mcp.servers) and those given with --mcp-config start;
// a repository's (.mcp.json, .vscode/mcp.json) start only when the person approved them: by name in
// engram.mcp.approvedProjectServers (a --settings file), in the editor (the same approval, kept under the
// data dir), or by passing them with --mcp-config. Servers start in the background while the session
// opens; before the first model request the run waits for them to settle (bounded by
// engram.mcp.startupTimeoutSeconds), since a one-shot run has no later turn for a slow server's tools to
// join. A server that fails is reported on stderr (why, exit code, its last stderr lines) and the run goes
// on without it. Every child is ended when the run ends, is interrupted, or fails.
import path from 'node:path';
import {
  createMcpHub,
  mcpStartPolicy,
  mcpToolName,
  parseMcpRuleName,
  readMcpChoices,
  readMcpConfig,
  type McpHub,
  type McpServerEntry,
  type McpServerState,
  type McpServerStatus,
} from '../core/host/mcp';
import { ENGRAM_VERSION, type EngramSettings } from '../core/host/config';
import { redactAttachedText, type Logger } from '../core/host/sessions';
import { UsageError, type OptionSpecs } from './args';
import type { CliIo } from './command';

/** `engram -p`'s MCP flags (Claude Code's names). */
export const MCP_OPTIONS = {
  'mcp-config': {
    type: 'string',
    multiple: true,
    valueName: 'FILE|JSON',
    help: "MCP servers to start: a file or inline JSON in .mcp.json's shape (repeatable).",
  },
  'strict-mcp-config': {
    type: 'boolean',
    help: "Use only the --mcp-config servers (none from <data dir>/mcp.json, the settings or the project's).",
  },
} satisfies OptionSpecs;

/** `engram -p --help`'s paragraph on MCP servers. */
export const MCP_HELP = `MCP servers: the user's (<data dir>/mcp.json, engram.mcp.servers) and the --mcp-config ones start; a
  project's (.mcp.json, .vscode/mcp.json) only when approved: in Engram for VS Code, by name in
  engram.mcp.approvedProjectServers (--settings), or given with --mcp-config. The run waits for them to start
  (engram.mcp.startupTimeoutSeconds); one that fails is reported on stderr and the run goes on without it.
  Their tools (mcp__SERVER__TOOL) run only when --allowed-tools or an allow rule names them (mcp__SERVER:
  all of a server's). With --output-format json, "mcp_servers" gives each server's state and tool count.`;

type McpSource = McpServerEntry['source'];
type McpServerFailure = NonNullable<McpServerStatus['failure']>;

/** How long past engram.mcp.startupTimeoutSeconds the run waits for the hub to call a slow server failed. */
const SETTLE_MARGIN_MS = 2_000;

/** How many of a failed server's last stderr lines are shown. */
const STDERR_LINES = 10;

export interface CliMcpOptions {
  /** Each --mcp-config value: a file (relative to the current directory) or inline JSON. */
  configs: readonly string[];
  /** --strict-mcp-config: only the --mcp-config servers, none from the user's or the project's files. */
  strict: boolean;
  dataDir: string;
  /** The project folder (--cwd): its `.mcp.json` and `.vscode/mcp.json`, and where stdio servers run. */
  cwd: string;
  settings: EngramSettings;
}

/** One server in `--output-format json`'s `mcp_servers`. */
export interface McpServerReport {
  name: string;
  source: McpSource;
  /** `needsInput`: a `.vscode/mcp.json` entry asking for `${input:...}`, which only VS Code can answer. */
  state: McpServerState | 'needsInput';
  /** The tools it offers the model (those turned off or left out as invalid not counted). */
  tools: number;
  failure?: { message: string; exitCode?: number | null; stderr: string[] };
}

/** The run's MCP servers: the hub the session uses (none without servers), and the run's own duties. */
export interface CliMcp {
  hub: McpHub | undefined;
  /**
   * Waits until no server is still starting (at most the startup timeout, or until `signal` aborts), then
   * says which MCP names in `allowed` (--allowed-tools) no server offers: a typo would otherwise only deny.
   */
  settle(signal: AbortSignal, allowed?: readonly string[]): Promise<void>;
  /** Each configured server with the state it had when the run ended, for the JSON output (after close). */
  report(): McpServerReport[];
  /** Ends every server the run started; safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Reads the MCP configuration, says on stderr which servers will not start and why, and starts the
 * others in the background. A problem with a --mcp-config value is a usage error (it was typed for this
 * run); a bad entry in another file is reported and the rest still load.
 */
export async function startCliMcp(opts: CliMcpOptions, io: CliIo, logger: Logger): Promise<CliMcp> {
  const merged = await readMcpConfig({
    dataDir: opts.dataDir,
    projectRoot: opts.cwd,
    setting: opts.settings.mcp.servers,
    // A file is named from where the command was typed; inline JSON is passed as it is.
    cli: opts.configs.map((c) => (c.trimStart().startsWith('{') ? c : path.resolve(io.cwd, c))),
    env: io.env,
  });
  const keep = (source: McpSource): boolean => !opts.strict || source === 'cli';
  const cliProblems = merged.problems.filter((p) => p.source === 'cli');
  if (cliProblems.length > 0) throw new UsageError(cliProblems.map((p) => `--mcp-config: ${describe(p)}`).join('\n'));
  for (const p of merged.problems.filter((q) => keep(q.source))) io.stderr(`engram: MCP config: ${describe(p)}\n`);
  for (const s of merged.shadowed)
    logger.info(`MCP server "${s.name}": the ${s.used} entry is used; ${s.ignored.join(', ')} ignored`);

  const servers = merged.servers.filter((s) => keep(s.source));
  const choices = await readMcpChoices(opts.dataDir, opts.cwd);
  // A headless run starts a project's server only when the settings name it (or --mcp-config gives it): an
  // approval clicked in the editor is for the editor's sessions, so a script's behaviour does not depend on it.
  const policy = mcpStartPolicy({
    trusted: true,
    choices: { ...choices, approved: {} },
    approvedNames: opts.settings.mcp.approvedProjectServers,
  });
  const needInput = servers.filter((s) => (s.inputs?.length ?? 0) > 0 && policy(s) === true);
  for (const s of needInput) io.stderr(`engram: ${notStarted(s, 'needsInput')}\n`);
  for (const s of servers) {
    const verdict = policy(s);
    if (verdict !== true) io.stderr(`engram: ${notStarted(s, verdict)}\n`);
  }
  // The hub gets the rest, unapproved ones too: it keeps them stopped and reports their state.
  const forHub = servers.filter((s) => !needInput.includes(s));
  const skipped: McpServerReport[] = needInput.map((s) => ({
    name: s.name,
    source: s.source,
    state: 'needsInput',
    tools: 0,
  }));
  if (forHub.length === 0) return noServers(skipped);

  const mcp = opts.settings.mcp;
  const hub = createMcpHub(
    {
      servers: forHub,
      clientInfo: { name: 'engram', version: ENGRAM_VERSION },
      mayStart: policy,
      isToolDisabled: (server, tool) => choices.disabledTools.includes(`${server}/${tool}`),
      callTimeoutMs: mcp.callTimeoutSeconds * 1000,
      startupTimeoutMs: mcp.startupTimeoutSeconds * 1000,
      maxOutputTokens: mcp.maxOutputTokens,
      cwd: opts.cwd,
      env: io.env,
    },
    logger,
  );
  // Each failure is said once, as it happens (a crash mid-run too); the lines are written in order.
  let printed: Promise<void> = Promise.resolve();
  hub.onEvent((e) => {
    if (e.type !== 'serverFailed') return;
    const text = failureText(e.server, e.failure);
    printed = printed.then(async () => io.stderr(await text));
  });
  hub.start();
  let closing: Promise<void> | undefined;
  // The states as the run used them, taken at close: once closed, every server reads "stopped".
  let final: McpServerReport[] = skipped;
  return {
    hub,
    settle: async (signal, allowed = []) => {
      // A little past the hub's own limit, so a server that overruns it is reported as failed by the hub.
      const timeoutMs = mcp.startupTimeoutSeconds * 1000 + SETTLE_MARGIN_MS;
      await untilAborted(hub.whenSettled(timeoutMs), signal);
      await printed;
      if (signal.aborted) return;
      for (const s of hub.status()) {
        if (s.state === 'starting')
          io.stderr(
            `engram: MCP server "${s.name}" did not finish starting within ${mcp.startupTimeoutSeconds} s ` +
              '(engram.mcp.startupTimeoutSeconds); the run goes on without its tools.\n',
          );
        if (s.state === 'ready') logger.info(readyLine(s));
      }
      for (const line of unmatchedNames(allowed, hub)) io.stderr(`engram: ${line}\n`);
    },
    report: () => final,
    close: () => {
      closing ??= (async () => {
        const reports = Promise.all(hub.status().map(toReport));
        await hub.close().catch((e: unknown) => logger.error('Could not stop the MCP servers', e));
        final = [...(await reports), ...skipped];
        await printed;
      })();
      return closing;
    },
  };
}

function noServers(skipped: McpServerReport[]): CliMcp {
  return { hub: undefined, settle: async () => {}, report: () => skipped, close: async () => {} };
}

/**
 * The MCP names of --allowed-tools (`mcp__server`, `mcp__server__tool`) that match no tool a started
 * server offers, each with the server's tools when it is up. Names of servers that did not start are
 * left out: why they did not was said already.
 */
function unmatchedNames(allowed: readonly string[], hub: McpHub): string[] {
  const offered = hub.tools().map((t) => t.name);
  const out: string[] = [];
  for (const name of allowed) {
    const parsed = parseMcpRuleName(name);
    if (!parsed || name.includes('(') || offered.some((t) => t === name || t.startsWith(`${name}__`))) continue;
    const prefix = `mcp__${parsed.server}__`;
    const status = hub.status().find((st) => mcpToolName(st.name, 'x').startsWith(prefix));
    if (status && status.state !== 'ready') continue;
    const own = offered.filter((t) => t.startsWith(prefix)).map((t) => t.slice(prefix.length));
    out.push(
      status
        ? `--allowed-tools names ${name}, but server "${status.name}" has no such tool (its tools: ${own.join(', ')}).`
        : `--allowed-tools names ${name}, but no MCP server "${parsed.server}" is configured for this run.`,
    );
  }
  return out;
}

/** Where an entry was read, as a person would look for it. */
function origin(entry: { source: McpSource; file?: string }): string {
  if (entry.file) return entry.file;
  return entry.source === 'setting' ? 'engram.mcp.servers' : entry.source === 'cli' ? '--mcp-config' : entry.source;
}

function describe(p: { source: McpSource; file?: string; server?: string; message: string }): string {
  return `${origin(p)}: ${p.server !== undefined ? `server "${p.server}": ` : ''}${p.message}`;
}

/** Why a server is not started in this run, and how to start it. */
function notStarted(entry: McpServerEntry, why: McpServerState | 'needsInput'): string {
  const head = `MCP server "${entry.name}" (${origin(entry)}) was not started`;
  switch (why) {
    case 'needsApproval':
      return (
        `${head}: servers a repository ships run only when approved. Approve it in Engram for VS Code, ` +
        `add "${entry.name}" to engram.mcp.approvedProjectServers in a --settings file, or pass it with --mcp-config.`
      );
    case 'needsInput': {
      const ids = (entry.inputs ?? []).map((i) => `\${input:${i.id}}`).join(', ');
      return (
        `${head}: it asks for ${ids}, which only VS Code can answer. ` +
        'Pass it with --mcp-config, with the value in its env or args.'
      );
    }
    case 'disabled':
      return `${head}: it is turned off for this project (Engram's inspector turns it back on).`;
    case 'untrusted':
      return `${head}: the folder is not trusted.`;
    case 'starting':
    case 'ready':
    case 'failed':
    case 'stopped':
      return `${head} (${why}).`;
  }
}

/** -v: a server that is up, its tools and what their definitions add to every request. */
function readyLine(s: McpServerStatus): string {
  const offered = s.tools.filter((t) => !t.disabled && t.rejected === undefined);
  const tokens = offered.reduce((n, t) => n + t.tokens, 0);
  const left = s.tools.length - offered.length;
  return (
    `MCP server "${s.name}" is ready: ${offered.length} tools, about ${tokens} tokens of definitions in every request` +
    (left > 0 ? ` (${left} turned off or left out)` : '')
  );
}

/** The stderr lines of a failure: why, the exit code when the reason does not say it, the last stderr lines. */
async function failureText(server: string, f: McpServerFailure): Promise<string> {
  const code = f.exitCode ?? undefined;
  const exit = code !== undefined && !f.message.includes(`code ${code}`) ? ` (exit code ${code})` : '';
  const lines = f.stderr.slice(-STDERR_LINES);
  const tail = lines.length > 0 ? `\n  its last stderr lines:\n${lines.map((l) => `    ${l}`).join('\n')}` : '';
  // A server may print its own token; what it wrote is redacted as any tool output is.
  const text = await redactAttachedText(`${f.message}${exit}; the run goes on without its tools.${tail}`);
  return `engram: MCP server "${server}" failed: ${text}\n`;
}

/** A server's line in the JSON output, with what it wrote redacted. */
async function toReport(s: McpServerStatus): Promise<McpServerReport> {
  const f = s.failure;
  return {
    name: s.name,
    source: s.source,
    state: s.state,
    tools: s.tools.filter((t) => !t.disabled && t.rejected === undefined).length,
    ...(f
      ? {
          failure: {
            message: await redactAttachedText(f.message),
            exitCode: f.exitCode ?? null,
            stderr: await Promise.all(f.stderr.map(redactAttachedText)),
          },
        }
      : {}),
  };
}

/** `work`, or sooner when `signal` aborts (Ctrl-C while servers start). */
function untilAborted(work: Promise<unknown>, signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve();
  return Promise.race([
    work,
    new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
  ]);
}
