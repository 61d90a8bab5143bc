// The names the model sees for MCP tools, as Claude Code writes them: `mcp__<server>__<tool>`. The API
// takes tool names of letters, digits, `_` and `-` (the test server checks the same pattern), so other
// characters become `_`; a name past 64 characters is cut and given a short hash of the full name, so
// two long names that share a beginning stay distinct. The server's own name is kept for the call.
import { createHash } from 'node:crypto';

export const MCP_PREFIX = 'mcp__';
/** Longest model-facing name we build (Claude Code's cap; the API itself takes up to 128). */
export const MAX_TOOL_NAME = 64;

/** `mcp__<server>__<tool>`, sanitized to what the API accepts and capped at 64 characters. */
export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_PREFIX}${sanitize(server)}__${sanitize(tool)}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}

function sanitize(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, '_') || '_';
}

/**
 * A rule's or --allowed-tools' MCP name: `mcp__server` (every tool of the server) or
 * `mcp__server__tool`; undefined for a name that is not an MCP one.
 */
export function parseMcpRuleName(name: string): { server: string; tool?: string } | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const rest = name.slice(MCP_PREFIX.length);
  const cut = rest.indexOf('__');
  if (cut === -1) return rest ? { server: rest } : undefined;
  const server = rest.slice(0, cut);
  const tool = rest.slice(cut + 2);
  if (!server) return undefined;
  return tool ? { server, tool } : { server };
}

/** Whether a model-facing tool name is an MCP server's tool (`mcp__...`). */
export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_PREFIX);
}
