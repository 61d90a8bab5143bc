// A server's tool checked before it reaches a request: the API answers a whole request with 400 when one
// tool definition is wrong, so a tool whose schema it would reject is left out here (with the reason)
// instead. Rules: the input schema is a JSON object of `type: "object"` (added when a server leaves the
// type out), serializable, at most 64 KB, without `oneOf`/`anyOf`/`allOf` at its top (the API refuses
// those); the model-facing name is built by toolNames.ts; a description past 2,048 characters is cut with
// a note, as Claude Code does for MCP tools (generated servers send tens of KB).
import type { ToolSchema } from '../conversation/types';
import { countTokens, estimateTokensFast, isTokenizerLoaded } from '../tokens/tokenizer';
import { mcpToolName } from './toolNames';

export const MAX_DESCRIPTION_CHARS = 2048;
export const MAX_SCHEMA_BYTES = 64 * 1024;
const TOP_LEVEL_COMBINERS = ['oneOf', 'anyOf', 'allOf'];

/** A tool as a server lists it (`tools/list`), only the fields read here. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
  /** The server's hints (`readOnlyHint`: the tool changes nothing), read as claims, never as permissions. */
  annotations?: unknown;
}

/** The definition sent to the model, or why the tool is left out. */
export type CheckedTool =
  | { ok: true; schema: ToolSchema; tokens: number }
  | { ok: false; name: string; reason: string; description: string };

export function checkToolDefinition(server: string, tool: ListedTool): CheckedTool {
  const name = mcpToolName(server, tool.name);
  const description = capDescription(tool.description ?? '');
  const schemaOrWhy = checkInputSchema(tool.inputSchema);
  if (typeof schemaOrWhy === 'string') return { ok: false, name, reason: schemaOrWhy, description };
  if (!tool.name) return { ok: false, name, reason: 'the server gave the tool no name', description };
  const schema: ToolSchema = { name, description, input_schema: schemaOrWhy };
  return { ok: true, schema, tokens: definitionTokens(schema) };
}

/** The schema to send, or why the API would refuse it. */
export function checkInputSchema(raw: unknown): Record<string, unknown> | string {
  if (raw === undefined) return { type: 'object', properties: {} };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 'its input schema is not a JSON object';
  const schema = raw as Record<string, unknown>;
  if (schema.type !== undefined && schema.type !== 'object')
    return `its input schema has type ${JSON.stringify(schema.type)}; the API takes only "object"`;
  const combiner = TOP_LEVEL_COMBINERS.find((k) => schema[k] !== undefined);
  if (combiner) return `its input schema has "${combiner}" at the top level, which the API does not accept`;
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch (e) {
    return `its input schema cannot be written as JSON (${(e as Error).message})`;
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_SCHEMA_BYTES)
    return `its input schema is ${Math.round(bytes / 1024)} KB, over the ${MAX_SCHEMA_BYTES / 1024} KB allowed`;
  return schema.type === undefined ? { type: 'object', ...schema } : schema;
}

/** The description, cut at 2,048 characters with a note saying so. */
export function capDescription(text: string): string {
  if (text.length <= MAX_DESCRIPTION_CHARS) return text;
  const left = text.length - MAX_DESCRIPTION_CHARS;
  return `${text.slice(0, MAX_DESCRIPTION_CHARS)}… [description cut: ${left} more characters]`;
}

/** Tokens a definition adds to every request (the tokenizer once loaded, a char estimate before). */
export function definitionTokens(schema: ToolSchema): number {
  const text = JSON.stringify(schema);
  return isTokenizerLoaded() ? countTokens(text) : estimateTokensFast(text);
}
