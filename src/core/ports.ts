// Outside dependencies of the engine, as small interfaces. VS Code supplies adapters (src/vscode),
// the CLI supplies Node ones, tests supply honest in-memory or on-disk ones.

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/**
 * What the user answered to a permission prompt. `allowAlways`: run it, and save
 * `PermissionRequest.suggestedRule` so the same kind of call never asks again.
 */
export type PermissionAnswer = 'allowOnce' | 'allowSession' | 'allowAlways' | 'deny';

export interface PermissionRequest {
  toolName: string;
  toolUseId: string;
  /** One line a person can judge, e.g. the command or the file path. */
  summary: string;
  input: Record<string, unknown>;
  /** The MCP server and its own name for the tool, when an MCP server provides it. */
  mcp?: { server: string; tool: string };
  /** The rule "Always allow" saves (Claude Code's syntax), shown before the person clicks. */
  suggestedRule?: string;
}

/** Asks a person (or a policy, in headless mode) whether a tool call may run. */
export interface PermissionPrompt {
  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
}
