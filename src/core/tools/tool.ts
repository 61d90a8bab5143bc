// The contract between the agent loop and the tools the model can call. Tools never throw for bad input
// or failed operations: they answer with an error result the model can read and act on.
import type { ImageBlock, TextBlock, ToolSchema } from '../conversation/types';
import type { PathGuard } from '../fs/pathGuard';
import type { ReadFileState } from './readFileState';
import type { SearchBounds, SearchEngine } from './searchTypes';

export interface ToolContext {
  /** Directory relative paths resolve against, and where Bash runs. */
  cwd: string;
  signal: AbortSignal;
  /** Tracks which files were Read and their mtime, for the Edit/Write checks. */
  readFiles: ReadFileState;
  pathGuard?: PathGuard;
  /** The engine Grep and Glob run on (the host's ripgrep); absent: the JavaScript engine. */
  search?: SearchEngine;
  /** Bounds for Grep and Glob from the host's settings; each one absent: the default. */
  searchBounds?: Partial<SearchBounds>;
}

export interface ToolResult {
  /** The result as text: what the model gets, unless `blocks` is set; what UIs and transcripts show. */
  content: string;
  isError: boolean;
  /** Sent to the model instead of `content` when set (an MCP tool's images); `content` stays its text form. */
  blocks?: Array<TextBlock | ImageBlock>;
  /** Structured data for UIs and transcripts (never sent to the model). */
  data?: unknown;
}

export interface Tool<I = Record<string, unknown>> {
  name: string;
  schema: ToolSchema;
  /** Never changes the workspace or the outside world. */
  readOnly: boolean;
  /** Safe to run in parallel with other concurrency-safe calls. */
  concurrencySafe: boolean;
  /** Checks the input's shape; returns an error text or null. */
  validate(input: unknown): string | null;
  /** One line for permission prompts and tool-call headers. */
  summarize(input: I): string;
  /**
   * Set on a tool an MCP server provides: the server's name and its own name for the tool (for cards and the
   * gauge); `readOnlyHint` when the server says the tool changes nothing (no checkpoint before it, issue 33).
   */
  mcp?: { server: string; tool: string; readOnlyHint?: boolean };
  /** The paths a call reads (relative ones against the cwd), so a read outside the workspace can ask first. */
  readPaths?(input: I): string[];
  run(input: I, ctx: ToolContext): Promise<ToolResult>;
}
