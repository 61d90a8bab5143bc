// The inspector's "MCP servers" section, as the host sends it: each server with where it was defined (and
// which definition wins when two sources name it), whether it runs and why not, its tools with the tokens
// each definition adds to every request, and the rules the permission gate applies. Names, commands and
// tool descriptions come from config files and servers: the webview shows them as text, never as HTML.
import type { Shapes } from './shapes';

/** The MCP servers section's requests: approve a repository's server, turn a server or one of its tools off or on, restart. */
export type McpToHost =
  | { type: 'mcpApprove'; server: string }
  | { type: 'mcpSetServer'; server: string; on: boolean }
  | { type: 'mcpSetTool'; server: string; tool: string; on: boolean }
  | { type: 'mcpRestart'; server: string };

export const MCP_TO_HOST_SHAPES: Shapes<McpToHost> = {
  mcpApprove: { server: 'string' },
  mcpSetServer: { server: 'string', on: 'boolean' },
  mcpSetTool: { server: 'string', tool: 'string', on: 'boolean' },
  mcpRestart: { server: 'string' },
};

export type McpSourceView = 'cli' | 'project' | 'vscode' | 'setting' | 'user';

export type McpStateView =
  | 'needsApproval'
  | 'disabled'
  | 'untrusted'
  | 'starting'
  | 'ready'
  | 'failed'
  | 'stopped'
  /** Allowed, but no chat session runs it yet: it starts with the next chat. */
  | 'notStarted';

export interface McpToolView {
  /** The name the model sees (`mcp__<server>__<tool>`). */
  name: string;
  /** The server's own name for it (what the per-tool switch names). */
  rawName: string;
  /** Clipped to a line or two. */
  description: string;
  tokens: number;
  disabled: boolean;
  /** Left out of requests, and why. */
  rejected?: string;
}

export interface McpServerView {
  name: string;
  source: McpSourceView;
  /** The file it was read from (absent for the setting or inline --mcp-config JSON). */
  file?: string;
  transport: 'stdio' | 'http' | 'sse';
  /** The command line (stdio) or the URL, as the person approves it; secrets are masked. */
  target: string;
  state: McpStateView;
  /** Why it failed: the message, exit code and the last lines it wrote to stderr. */
  failure?: { message: string; exitCode?: number | null; stderr: string[]; at: number };
  /** When the next restart may be tried (ms since the epoch). */
  retryAt?: number;
  serverInfo?: { name: string; version: string };
  tools: McpToolView[];
  /** Tokens the tools offered to the model (not turned off, not rejected) add to every request. */
  tokens: number;
  /** Other sources that define the same name and are ignored, because this one wins. */
  shadows: McpSourceView[];
  /** A repository's server (approval needed before it starts). */
  fromRepository: boolean;
}

export interface McpServersView {
  servers: McpServerView[];
  /** Entries that could not be read, each with where and why (the rest still load). */
  problems: Array<{ source: McpSourceView; file?: string; server?: string; message: string }>;
  /** What every request carries for all MCP tools together. */
  tokens: number;
  /** The workspace is trusted (repository servers may start once approved). */
  trusted: boolean;
}

/** One permission rule in force, and where it came from. */
export interface PermissionRuleView {
  text: string;
  behavior: 'allow' | 'deny';
  source: 'user' | 'project' | 'local' | 'cli' | 'session';
  file?: string;
}
