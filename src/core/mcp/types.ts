// The MCP client's shapes, shared by the config reader, the hub of connections and the hosts: what a
// server entry is once read (Claude Code's `.mcp.json`, VS Code's `.vscode/mcp.json`, Engram's own
// `~/.engram/mcp.json` and setting, the CLI's --mcp-config), where it came from, and what a host is told
// about each server while it starts, runs, fails and comes back.

/** How to reach one server, with every `${VAR}` / `${VAR:-default}` / `${input:id}` already expanded. */
export type McpTransportConfig =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { type: 'http' | 'sse'; url: string; headers: Record<string, string> };

/**
 * Where an entry was read. Precedence when two define one name (first wins): cli, project, vscode,
 * setting, user.
 *  - cli: `engram -p --mcp-config FILE|JSON`
 *  - project: the workspace's `.mcp.json` (Claude Code's format, committed with the repository)
 *  - vscode: the workspace's `.vscode/mcp.json` (VS Code's format)
 *  - setting: the VS Code setting `engram.mcp.servers` (Claude Code's `mcpServers` shape)
 *  - user: `<dataDir>/mcp.json` (Claude Code's format)
 */
export type McpSource = 'cli' | 'project' | 'vscode' | 'setting' | 'user';

/** Sources a repository ships: their servers start only after the person approved them. */
export const REPOSITORY_SOURCES: ReadonlySet<McpSource> = new Set<McpSource>(['project', 'vscode']);

/** A `.vscode/mcp.json` input (`${input:id}`), answered by the person when the server first starts. */
export interface McpInputSpec {
  id: string;
  type: string;
  description?: string;
  password?: boolean;
}

export interface McpServerEntry {
  name: string;
  source: McpSource;
  /** The file it was read from (absent for a setting or an inline --mcp-config JSON). */
  file?: string;
  /** Still holds `${input:id}` where `inputs` are referenced: the hub fills them in (resolveInputs) before a start. */
  transport: McpTransportConfig;
  /** The `.vscode/mcp.json` inputs this entry references. */
  inputs?: McpInputSpec[];
  /**
   * sha256 of the entry as written (before expansion, so a secret in the environment is not part of
   * it): an approval is kept for this fingerprint and lapses when the entry changes.
   */
  fingerprint: string;
}

export interface McpConfigProblem {
  source: McpSource;
  file?: string;
  /** The entry at fault; absent when the whole file is unreadable. */
  server?: string;
  message: string;
}

/** A name defined by more than one source: which one is used. */
export interface McpShadowed {
  name: string;
  used: McpSource;
  ignored: McpSource[];
}

export interface MergedMcpConfig {
  servers: McpServerEntry[];
  shadowed: McpShadowed[];
  problems: McpConfigProblem[];
}

export type McpServerState =
  /** A repository's server nobody approved yet (or its entry changed since): not started. */
  | 'needsApproval'
  /** Turned off by the person for this project. */
  | 'disabled'
  /** The workspace is not trusted: repository servers do not start. */
  | 'untrusted'
  | 'starting'
  | 'ready'
  /** Failed to start or crashed; restarted on next use, with backoff. */
  | 'failed'
  | 'stopped';

export interface McpToolInfo {
  /** The name the model sees: `mcp__<server>__<tool>`, sanitized and capped. */
  name: string;
  /** The server's own name for it, used for the call. */
  rawName: string;
  description: string;
  /** Turned off by the person for this project. */
  disabled: boolean;
  /** Left out of requests, and why (a schema or name the API would reject). */
  rejected?: string;
  /** Tokens its definition adds to every request (local estimate). */
  tokens: number;
}

export interface McpServerFailure {
  message: string;
  exitCode?: number | null;
  signal?: string | null;
  /** The last lines the server wrote to stderr. */
  stderr: string[];
  at: number;
}

export interface McpServerStatus {
  name: string;
  source: McpSource;
  file?: string;
  transport: McpTransportConfig;
  fingerprint: string;
  state: McpServerState;
  tools: McpToolInfo[];
  /** The server's own name and version from `initialize`, once known. */
  serverInfo?: { name: string; version: string };
  failure?: McpServerFailure;
  /** Earliest time the next restart is tried (backoff), while failed. */
  retryAt?: number;
}

/** What the hub tells its host (chat notices, the inspector, the session's tool list). */
export type McpHubEvent =
  | { type: 'status'; server: string; status: McpServerStatus }
  /** The tools offered to the model changed: the next request's prefix changes (the chat says so). */
  | { type: 'toolsChanged'; added: string[]; removed: string[] }
  | { type: 'serverFailed'; server: string; failure: McpServerFailure };

export interface McpHubOptions {
  servers: readonly McpServerEntry[];
  /** Sent as `clientInfo` in `initialize`. */
  clientInfo: { name: string; version: string };
  /** Whether a server may start now (approval, trust, the person's off switch); asked before each start. */
  mayStart(entry: McpServerEntry): McpServerState | true;
  /**
   * Answers the inputs an entry references (VS Code: the input box, kept in SecretStorage), by id;
   * undefined: not answered, the server does not start and says why.
   */
  resolveInputs?(entry: McpServerEntry): Promise<Record<string, string> | undefined>;
  /** Tools turned off for this project (by the server's own tool name). */
  isToolDisabled?(server: string, rawTool: string): boolean;
  /** A call that takes longer is cancelled (`engram.mcp.callTimeoutSeconds`, default 600 s). */
  callTimeoutMs?: number;
  /** `initialize` must answer within this (`engram.mcp.startupTimeoutSeconds`, default 30 s). */
  startupTimeoutMs?: number;
  /** Output over this is cut, with a note (`engram.mcp.maxOutputTokens`, default 25,000 as Claude Code). */
  maxOutputTokens?: number;
  /** stdio servers run here unless their entry names a cwd. */
  cwd: string;
  /** The environment stdio servers inherit (their entry's `env` is laid over it). */
  env?: Record<string, string | undefined>;
}
