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

/** What the user answered to a permission prompt. */
export type PermissionAnswer = 'allowOnce' | 'allowSession' | 'deny';

export interface PermissionRequest {
  toolName: string;
  toolUseId: string;
  /** One line a person can judge, e.g. the command or the file path. */
  summary: string;
  input: Record<string, unknown>;
}

/** Asks a person (or a policy, in headless mode) whether a tool call may run. */
export interface PermissionPrompt {
  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
}
