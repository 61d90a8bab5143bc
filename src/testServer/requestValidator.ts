// Rejects what the real Messages API rejects, with the API's own texts, so that tests fail here rather
// than in front of a user. Other parts (transcript normaliser, compaction) run their output through it.
//
// Texts come from real API error reports (GitHub issues quoting the 400 bodies). Behaviour worth knowing:
// - Message indices are 0-based into the request's `messages` array, as in the API's texts.
// - Consecutive messages of the same role are accepted: the API combines them into one turn (the SDK's
//   own docs say so). tool_use/tool_result pairing is therefore checked between combined turns.
// - A first message with the assistant role is accepted (the first-party API accepts it; only older
//   versions and Bedrock answered `first message must use the "user" role`).
// - The tool_result blocks answering an assistant turn must open the next user turn: the API only
//   looks at the leading run of tool_result blocks, so `[text, tool_result]` fails with the
//   "tool_use ids were found without tool_result blocks" text (verified against the live API by
//   QwenLM/qwen-code#8161). A result that is present but not leading is reported the same way.
// - Empty text blocks and whitespace-only text carry no index in the API's texts
//   (`messages: text content blocks must be non-empty`); the validator matches that.
// - A tool_result whose content is the empty string is accepted (it is not a text block).
// Checks run in this order: request shape, each message's shape, empty content and text, unique tool
// ids, tool pairing, cache_control count, context window; the first failure is returned.

import { DEFAULT_CONTEXT_WINDOW } from '../core/thresholds';
import { approximateInputTokens } from './promptSegments';

export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error';

export interface ApiErrorBody {
  status: number;
  type: ApiErrorType;
  message: string;
}

export interface ValidateOptions {
  /** Maximum input tokens; default 200,000. `Infinity` turns the check off. */
  contextWindow?: number;
  /** Counts the request's input tokens; default: the server's approximation (promptSegments.ts). */
  countTokens?: (body: Record<string, unknown>) => number;
  /** count_tokens requests need no max_tokens and have no window check. */
  endpoint?: 'messages' | 'count_tokens';
}

/** The simulated API's window when a test sets none: the same 200K the client assumes by default. */
export { DEFAULT_CONTEXT_WINDOW };
export const MAX_CACHE_BREAKPOINTS = 4;
const TOOL_USE_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,128}$/;
const BLOCK_TYPES = ['text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'];

type Rec = Record<string, unknown>;

const bad = (message: string): ApiErrorBody => ({ status: 400, type: 'invalid_request_error', message });

export function validateMessagesRequest(body: unknown, opts: ValidateOptions = {}): ApiErrorBody | null {
  const b = record(body);
  if (!b) return bad('Input should be a valid dictionary');
  const endpoint = opts.endpoint ?? 'messages';
  const shape = checkTopLevel(b, endpoint);
  if (shape) return shape;
  const messages = b.messages as unknown[];
  for (let i = 0; i < messages.length; i++) {
    const err = checkMessageShape(messages[i], i);
    if (err) return err;
  }
  const msgs = messages as Rec[];
  return (
    checkContent(msgs) ??
    checkUniqueToolUseIds(msgs) ??
    checkToolPairing(msgs) ??
    checkCacheControlCount(b) ??
    (endpoint === 'messages' ? checkWindow(b, opts) : null)
  );
}

function checkTopLevel(b: Rec, endpoint: 'messages' | 'count_tokens'): ApiErrorBody | null {
  if (b.model === undefined) return bad('model: Field required');
  if (typeof b.model !== 'string') return bad('model: Input should be a valid string');
  if (b.model.length === 0) return bad('model: String should have at least 1 character');
  if (endpoint === 'messages') {
    if (b.max_tokens === undefined) return bad('max_tokens: Field required');
    if (typeof b.max_tokens !== 'number' || !Number.isInteger(b.max_tokens)) {
      return bad('max_tokens: Input should be a valid integer');
    }
    if (b.max_tokens < 0) return bad('max_tokens: Input should be greater than or equal to 0');
  }
  if (b.messages === undefined) return bad('messages: Field required');
  if (!Array.isArray(b.messages)) return bad('messages: Input should be a valid list');
  if (b.messages.length === 0) return bad('messages: at least one message is required');
  if (b.system !== undefined && typeof b.system !== 'string') {
    if (!Array.isArray(b.system)) return bad('system: Input should be a valid list');
    for (let j = 0; j < b.system.length; j++) {
      const s = record(b.system[j]);
      if (!s || s.type !== 'text') return bad(`system.${j}.type: Input should be 'text'`);
      if (typeof s.text !== 'string') return bad(`system.${j}.text: Field required`);
    }
  }
  if (b.tools !== undefined) {
    if (!Array.isArray(b.tools)) return bad('tools: Input should be a valid list');
    const names = new Set<string>();
    for (let j = 0; j < b.tools.length; j++) {
      const t = record(b.tools[j]);
      if (!t) return bad(`tools.${j}: Input should be a valid dictionary`);
      if (t.type !== undefined && t.type !== 'custom') continue; // server tools have their own schemas
      if (typeof t.name !== 'string') return bad(`tools.${j}.custom.name: Field required`);
      if (!TOOL_NAME_PATTERN.test(t.name)) {
        return bad(`tools.${j}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
      }
      if (t.input_schema === undefined) return bad(`tools.${j}.custom.input_schema: Field required`);
      const schemaProblem = checkInputSchema(record(t.input_schema), j);
      if (schemaProblem) return schemaProblem;
      if (names.has(t.name)) return bad('tools: Tool names must be unique.');
      names.add(t.name);
    }
  }
  return null;
}

/** What the API refuses in a tool's input_schema: not an object, a type other than "object", a top-level combiner. */
function checkInputSchema(schema: Rec | undefined, j: number): ApiErrorBody | null {
  if (!schema) return bad(`tools.${j}.custom.input_schema: Input should be a valid dictionary`);
  // A schema without a type passes here (older tests send `{}`); Engram's own tools and MCP tools always set it.
  if (schema.type !== undefined && schema.type !== 'object')
    return bad(`tools.${j}.custom.input_schema.type: Input should be 'object'`);
  if (schema.oneOf !== undefined || schema.anyOf !== undefined || schema.allOf !== undefined)
    return bad(`tools.${j}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level`);
  return null;
}

function checkMessageShape(message: unknown, i: number): ApiErrorBody | null {
  const m = record(message);
  if (!m) return bad(`messages.${i}: Input should be a valid dictionary`);
  if (m.role === undefined) return bad(`messages.${i}.role: Field required`);
  if (m.role !== 'user' && m.role !== 'assistant')
    return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
  if (m.content === undefined) return bad(`messages.${i}.content: Field required`);
  if (typeof m.content === 'string') return null;
  if (!Array.isArray(m.content)) return bad(`messages.${i}.content: Input should be a valid list`);
  for (let j = 0; j < m.content.length; j++) {
    const err = checkBlockShape(m.content[j], `messages.${i}.content.${j}`);
    if (err) return err;
  }
  return null;
}

function checkBlockShape(block: unknown, at: string): ApiErrorBody | null {
  const c = record(block);
  if (!c) return bad(`${at}: Input should be a valid dictionary`);
  if (typeof c.type !== 'string' || !BLOCK_TYPES.includes(c.type)) {
    return bad(
      `${at}: Input tag '${String(c.type)}' found using 'type' does not match any of the expected tags: ` +
        BLOCK_TYPES.map((t) => `'${t}'`).join(', '),
    );
  }
  switch (c.type) {
    case 'text':
      return typeof c.text === 'string' ? null : bad(`${at}.text.text: Field required`);
    case 'thinking':
      if (typeof c.thinking !== 'string') return bad(`${at}.thinking.thinking: Field required`);
      return typeof c.signature === 'string' ? null : bad(`${at}.thinking.signature: Field required`);
    case 'redacted_thinking':
      return typeof c.data === 'string' ? null : bad(`${at}.redacted_thinking.data: Field required`);
    case 'image':
    case 'document':
      return record(c.source) ? null : bad(`${at}.${c.type}.source: Field required`);
    case 'tool_use':
      if (typeof c.id !== 'string') return bad(`${at}.tool_use.id: Field required`);
      if (!TOOL_USE_ID_PATTERN.test(c.id))
        return bad(`${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (typeof c.name !== 'string') return bad(`${at}.tool_use.name: Field required`);
      return record(c.input) ? null : bad(`${at}.tool_use.input: Input should be a valid dictionary`);
    case 'tool_result': {
      if (typeof c.tool_use_id !== 'string') return bad(`${at}.tool_result.tool_use_id: Field required`);
      if (!TOOL_USE_ID_PATTERN.test(c.tool_use_id)) {
        return bad(`${at}.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      }
      if (c.content === undefined || typeof c.content === 'string') return null;
      if (!Array.isArray(c.content)) return bad(`${at}.tool_result.content: Input should be a valid list`);
      for (let k = 0; k < c.content.length; k++) {
        const inner = record(c.content[k]);
        if (!inner || (inner.type !== 'text' && inner.type !== 'image' && inner.type !== 'document')) {
          return bad(
            `${at}.tool_result.content.${k}: Input tag '${String(inner?.type)}' found using 'type' ` +
              "does not match any of the expected tags: 'text', 'image', 'document'",
          );
        }
        if (inner.type === 'text' && typeof inner.text !== 'string')
          return bad(`${at}.tool_result.content.${k}.text: Field required`);
      }
      return null;
    }
  }
  return null;
}

/** Empty messages, empty or whitespace-only text, and trailing whitespace on a prefill. */
function checkContent(msgs: Rec[]): ApiErrorBody | null {
  const last = msgs.length - 1;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    const finalAssistant = i === last && m.role === 'assistant';
    const blocks = contentBlocks(m);
    if (blocks.length === 0) {
      if (finalAssistant) continue;
      return bad(
        `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    for (let j = 0; j < blocks.length; j++) {
      // A prefill's closing text is judged by the trailing-whitespace rule below instead.
      const prefillEnd = finalAssistant && j === blocks.length - 1;
      for (const text of textsOf(blocks[j])) {
        if (text === '') return bad('messages: text content blocks must be non-empty');
        if (!prefillEnd && text.trim() === '')
          return bad('messages: text content blocks must contain non-whitespace text');
      }
    }
    if (finalAssistant) {
      const lastBlock = blocks[blocks.length - 1];
      if (lastBlock.type === 'text' && /\s$/.test(String(lastBlock.text))) {
        return bad('messages: final assistant content cannot end with trailing whitespace');
      }
    }
  }
  return null;
}

function checkUniqueToolUseIds(msgs: Rec[]): ApiErrorBody | null {
  const seen = new Set<string>();
  for (let i = 0; i < msgs.length; i++) {
    const blocks = contentBlocks(msgs[i]);
    for (let j = 0; j < blocks.length; j++) {
      if (blocks[j].type !== 'tool_use') continue;
      const id = blocks[j].id as string;
      if (seen.has(id)) return bad(`messages.${i}.content.${j}: \`tool_use\` ids must be unique`);
      seen.add(id);
    }
  }
  return null;
}

/**
 * Every tool_use of an assistant turn needs its tool_result in the leading run of tool_result blocks of
 * the next user turn; every tool_result needs its tool_use in the previous assistant turn. Turns are
 * runs of consecutive same-role messages (the API combines them).
 */
function checkToolPairing(msgs: Rec[]): ApiErrorBody | null {
  const turns = groupTurns(msgs);
  for (let t = 0; t < turns.length; t++) {
    const turn = turns[t];
    if (turn.role === 'assistant') {
      const answered = leadingToolResultIds(msgs, turns[t + 1]);
      for (const i of turn.indices) {
        const missing = toolUseIds(msgs[i]).filter((id) => !answered.has(id));
        if (missing.length > 0) {
          return bad(
            `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ` +
              `${missing.join(', ')}. ` +
              'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
          );
        }
      }
    } else {
      const prev = turns[t - 1];
      const offered = new Set(prev ? prev.indices.flatMap((i) => toolUseIds(msgs[i])) : []);
      for (const i of turn.indices) {
        const blocks = contentBlocks(msgs[i]);
        for (let j = 0; j < blocks.length; j++) {
          const id = blocks[j].tool_use_id;
          if (blocks[j].type === 'tool_result' && typeof id === 'string' && !offered.has(id)) {
            return bad(
              `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
                'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
            );
          }
        }
      }
    }
  }
  return null;
}

function checkCacheControlCount(b: Rec): ApiErrorBody | null {
  let found = 0;
  const count = (v: unknown): void => {
    const r = record(v);
    if (r && r.cache_control !== undefined && r.cache_control !== null) found++;
  };
  if (Array.isArray(b.tools)) b.tools.forEach(count);
  if (Array.isArray(b.system)) b.system.forEach(count);
  for (const m of b.messages as Rec[]) {
    for (const block of contentBlocks(m)) {
      count(block);
      if (block.type === 'tool_result' && Array.isArray(block.content)) block.content.forEach(count);
    }
  }
  if (found > MAX_CACHE_BREAKPOINTS) {
    return bad(`A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`);
  }
  return null;
}

function checkWindow(b: Rec, opts: ValidateOptions): ApiErrorBody | null {
  const window = opts.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  if (!Number.isFinite(window)) return null;
  const tokens = (opts.countTokens ?? approximateInputTokens)(b);
  return tokens > window ? bad(`prompt is too long: ${tokens} tokens > ${window} maximum`) : null;
}

interface Turn {
  role: 'user' | 'assistant';
  indices: number[];
}

function groupTurns(msgs: Rec[]): Turn[] {
  const turns: Turn[] = [];
  msgs.forEach((m, i) => {
    const role = m.role as Turn['role'];
    const lastTurn = turns[turns.length - 1];
    if (lastTurn && lastTurn.role === role) lastTurn.indices.push(i);
    else turns.push({ role, indices: [i] });
  });
  return turns;
}

function leadingToolResultIds(msgs: Rec[], turn: Turn | undefined): Set<string> {
  const ids = new Set<string>();
  if (!turn || turn.role !== 'user') return ids;
  for (const i of turn.indices) {
    for (const block of contentBlocks(msgs[i])) {
      if (block.type !== 'tool_result') return ids;
      ids.add(String(block.tool_use_id));
    }
  }
  return ids;
}

function toolUseIds(m: Rec): string[] {
  return contentBlocks(m).flatMap((c) => (c.type === 'tool_use' ? [String(c.id)] : []));
}

/** A message's content as blocks; a string is one text block (as the API reads it). */
function contentBlocks(m: Rec): Rec[] {
  if (typeof m.content === 'string') return m.content === '' ? [] : [{ type: 'text', text: m.content }];
  return Array.isArray(m.content) ? (m.content as Rec[]) : [];
}

/** Texts of a text block, or of the text blocks nested in a tool_result's content. */
function textsOf(c: Rec): string[] {
  if (c.type === 'text') return [String(c.text)];
  if (c.type === 'tool_result' && Array.isArray(c.content)) {
    return (c.content as Rec[]).flatMap((inner) => (inner.type === 'text' ? [String(inner.text)] : []));
  }
  return [];
}

function record(v: unknown): Rec | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined;
}
