// The test server's deterministic token approximation, and the prompt cut into the "blocks" that the
// API's prompt cache works on (tools, then system, then message content blocks, in that order).
//
// Counting rule (documented so tests and benchmarks can predict numbers): every block costs
// ceil(chars / 4) tokens, where chars is the length of the text the block carries:
//   tool        name + description + JSON of input_schema
//   system      the text (a string system prompt is one block)
//   text        the text                      tool_use     name + JSON of input
//   thinking    the thinking text             tool_result  its string content, or the sum over its
//   redacted    the data                                   nested blocks (text / image)
//   image       a flat IMAGE_TOKENS
// A string message content is one text block. The input total is the sum over blocks, so a prefix's
// count is the sum over its blocks, which is what the cache simulation needs.
// Real tokenizers differ; nothing here claims to match them, only to be stable.

import type { CacheControl } from '../core/conversation/types';

/** A typical ~1.15 megapixel image costs about this many tokens on the real API. */
export const IMAGE_TOKENS = 1_600;

/** Average characters per token of the approximation. */
export const CHARS_PER_TOKEN = 4;

export interface PromptSegment {
  /** Canonical JSON of the block without its cache_control, plus where it sits; hashed for the cache. */
  key: string;
  tokens: number;
  cacheControl?: CacheControl;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function approxTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Total input tokens of a Messages request body (any shape; unknown parts count as zero). */
export function approximateInputTokens(body: unknown): number {
  // Keys are skipped: the validator counts every request and need not pay for canonical JSON.
  return collectSegments(body, false).reduce((sum, s) => sum + s.tokens, 0);
}

/** The prompt as cacheable blocks, in the API's prefix order: tools, system, messages. */
export function promptSegments(body: unknown): PromptSegment[] {
  return collectSegments(body, true);
}

function collectSegments(body: unknown, withKeys: boolean): PromptSegment[] {
  const segment = (where: string, block: Record<string, unknown>, tokens: number): PromptSegment =>
    withKeys ? keyedSegment(where, block, tokens) : { key: '', tokens };
  const b = asRecord(body);
  if (!b) return [];
  const out: PromptSegment[] = [];
  for (const tool of asArray(b.tools)) {
    const t = asRecord(tool);
    if (!t) continue;
    const chars = str(t.name).length + str(t.description).length + jsonLength(t.input_schema);
    out.push(segment('tool', t, approxTokens(chars)));
  }
  if (typeof b.system === 'string') {
    out.push(segment('system', { type: 'text', text: b.system }, approxTokens(b.system.length)));
  } else {
    for (const block of asArray(b.system)) {
      const s = asRecord(block);
      if (s) out.push(segment('system', s, approxTokens(str(s.text).length)));
    }
  }
  asArray(b.messages).forEach((message, i) => {
    const m = asRecord(message);
    if (!m) return;
    const where = `m${i}:${str(m.role)}`;
    if (typeof m.content === 'string') {
      out.push(segment(where, { type: 'text', text: m.content }, approxTokens(m.content.length)));
      return;
    }
    for (const block of asArray(m.content)) {
      const c = asRecord(block);
      if (c) out.push(segment(where, c, blockTokens(c)));
    }
  });
  return out;
}

/** Tokens of one content block (also used for generated output). */
export function blockTokens(block: Record<string, unknown>): number {
  switch (block.type) {
    case 'text':
      return approxTokens(str(block.text).length);
    case 'thinking':
      return approxTokens(str(block.thinking).length);
    case 'redacted_thinking':
      return approxTokens(str(block.data).length);
    case 'tool_use':
      return approxTokens(str(block.name).length + jsonLength(block.input));
    case 'image':
      return IMAGE_TOKENS;
    case 'tool_result': {
      if (typeof block.content === 'string') return approxTokens(block.content.length);
      return asArray(block.content).reduce<number>((sum, inner) => {
        const r = asRecord(inner);
        return sum + (r ? blockTokens(r) : 0);
      }, 0);
    }
    default:
      return approxTokens(jsonLength(block));
  }
}

function keyedSegment(where: string, block: Record<string, unknown>, tokens: number): PromptSegment {
  const cc = asRecord(block.cache_control);
  const seg: PromptSegment = { key: `${where}|${canonicalJson(withoutCacheControl(block))}`, tokens };
  if (cc) seg.cacheControl = { type: 'ephemeral', ...(cc.ttl === '1h' || cc.ttl === '5m' ? { ttl: cc.ttl } : {}) };
  return seg;
}

// Moving a breakpoint must not change what the cached prefix is, so markers are left out of the key,
// including markers on blocks nested in a tool_result.
function withoutCacheControl(value: unknown): Json {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  const r = asRecord(value);
  if (!r) return (value ?? null) as Json;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(r)) if (k !== 'cache_control' && v !== undefined) out[k] = withoutCacheControl(v);
  return out;
}

/** JSON with object keys sorted, so two equal blocks always hash the same. */
export function canonicalJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function jsonLength(v: unknown): number {
  return v === undefined ? 0 : JSON.stringify(v).length;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
