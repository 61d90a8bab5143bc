// An MCP server's tool adapted to the Tool contract the agent runs: named as the model sees it
// (`mcp__<server>__<tool>`), described by the server's checked definition, never read-only (every call goes
// through the permission gate) and never run alongside other calls, with a one-line summary for the
// permission card and the chat (`<server> · <tool>` and the arguments, short).
import type { ToolSchema } from '../conversation/types';
import type { Tool, ToolResult } from '../tools/tool';

/** How a call reaches the server (the hub: restarts, backoff, timeout, result mapping). */
export type McpCall = (rawTool: string, input: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>;

const SUMMARY_ARGS_CHARS = 120;

export function createMcpTool(
  server: string,
  rawTool: string,
  schema: ToolSchema,
  call: McpCall,
  hints: { readOnlyHint?: boolean } = {},
): Tool {
  return {
    name: schema.name,
    schema,
    readOnly: false,
    concurrencySafe: false,
    mcp: { server, tool: rawTool, ...(hints.readOnlyHint ? { readOnlyHint: true } : {}) },
    validate(input: unknown): string | null {
      return input !== null && typeof input === 'object' && !Array.isArray(input)
        ? null
        : 'the arguments must be a JSON object';
    },
    summarize(input: Record<string, unknown>): string {
      return `${server} · ${rawTool}${argsLine(input)}`;
    },
    run(input: Record<string, unknown>, ctx) {
      return call(rawTool, input, ctx.signal);
    },
  };
}

/** The arguments as one short line of JSON (empty for none). */
function argsLine(input: Record<string, unknown>): string {
  let text: string;
  try {
    text = JSON.stringify(input) ?? '';
  } catch {
    return '';
  }
  if (text === '{}' || text === '') return '';
  const flat = text.replace(/\s+/g, ' ');
  return ` ${flat.length > SUMMARY_ARGS_CHARS ? `${flat.slice(0, SUMMARY_ARGS_CHARS)}…` : flat}`;
}
