// The prompt cache as the API keeps it for this session, rebuilt from the requests the session sent and
// the usage each one reported, so the cost line can say what the next request will read and write
// (issue 31: an edited summary, a "Not relevant", anything that changes the prompt moves the estimate).
//
// The API caches prefixes: each breakpoint of a request stores the prompt up to that block (tools, then
// system, then message blocks), keyed by everything before it; a later request reads the longest stored
// prefix ending at one of its own breakpoints or up to LOOKBACK_BLOCKS blocks before one, and writes from
// there to its last breakpoint. A read refreshes that entry's lifetime. Here each block is named by a hash
// chained over the blocks before it (and the model), so "the same prefix" means byte for byte the same
// blocks, as for the API. Token counts come from the API where it gave them (the read of a request ends
// at the entry it hit, the read plus the write at its last stored breakpoint) and from the local estimate,
// scaled to the API's, in between.
import { createHash } from 'node:crypto';
import type { ApiMessage, SystemBlock, ToolSchema, Usage } from '../conversation/types';
import { withCacheBreakpoints, type BreakpointOptions } from '../llm/cacheBreakpoints';
import { TTL_MS, type CacheTtl } from '../llm/cacheTtl';
import { MIN_CACHEABLE_TOKENS } from '../llm/nextTurnCost';
import { defaultTokenCounter, IMAGE_TOKENS } from '../tokens/accounting';

/** How many blocks before a breakpoint the API looks for a stored prefix. */
const LOOKBACK_BLOCKS = 20;

/** A request as the cache sees it: what goes out, with the breakpoint options it is sent with. */
export interface CachedPrompt {
  model: string;
  system: readonly SystemBlock[];
  tools: readonly ToolSchema[];
  messages: readonly ApiMessage[];
  cache?: BreakpointOptions;
}

/** What the next request reads from the cache, until when, and how many tokens it sends after that. */
export interface CacheLookup {
  /** Tokens read (0: nothing stored matches). */
  read: number;
  /** When the entry read expires (ms); undefined when nothing is read. */
  expiresAt: number | undefined;
  /** Estimated tokens after the read prefix, scaled to the API's count. */
  rest: number;
}

interface Block {
  /** Hash of the prefix ending with this block. */
  key: string;
  /** Local estimate of this block's tokens. */
  tokens: number;
  breakpoint: boolean;
}

interface Entry {
  tokens: number;
  ttlMs: number;
  expiresAt: number;
}

/** One block's own hash and estimate, computed once per block object, and its key after the prefix it last followed. */
interface Own {
  hash: string;
  tokens: number;
  after?: string;
  where?: string;
  key?: string;
}
const ownOf = new WeakMap<object, Own>();

export class PromptCacheModel {
  private readonly entries = new Map<string, Entry>();
  /** API tokens per estimated token, from the last answered request. */
  private ratio = 1;
  private seen = false;

  /** True once a request was seen: before that the model knows nothing of the cache. */
  get known(): boolean {
    return this.seen;
  }

  /** A request went out at `at` with breakpoints of lifetime `ttl` and was answered with `usage`. */
  observe(prompt: CachedPrompt, ttl: CacheTtl, usage: Usage, at: number): void {
    this.purge(at);
    this.seen = true;
    const blocks = promptBlocks(prompt, ttl);
    const cum = cumulative(blocks);
    const estimated = cum[cum.length - 1] ?? 0;
    const read = usage.cache_read_input_tokens ?? 0;
    const written = usage.cache_creation_input_tokens ?? 0;
    const total = read + written + usage.input_tokens;
    if (estimated > 0 && total > 0) this.ratio = total / estimated;
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let base = -1;
    if (read > 0) {
      base = this.find(blocks, breakpoints, at)?.at ?? nearest(cum, breakpoints, read / this.ratio);
      const entry = this.entries.get(blocks[base].key);
      const ttlMs = entry?.ttlMs ?? TTL_MS[ttl];
      this.entries.set(blocks[base].key, { tokens: read, ttlMs, expiresAt: at + ttlMs });
    } else {
      // Nothing was read: whatever this model thought matched is gone on the API's side.
      for (const b of blocks) this.entries.delete(b.key);
    }
    const stored = breakpoints.filter((i) => i > base && cum[i] * this.ratio >= MIN_CACHEABLE_TOKENS);
    const last = stored[stored.length - 1];
    if (written <= 0 || last === undefined) return;
    const from = base >= 0 ? cum[base] : 0;
    const span = Math.max(1, cum[last] - from);
    for (const i of stored) {
      const tokens = read + Math.round((written * (cum[i] - from)) / span);
      this.entries.set(blocks[i].key, { tokens, ttlMs: TTL_MS[ttl], expiresAt: at + TTL_MS[ttl] });
    }
  }

  /**
   * What `prompt`, sent at `now` with lifetime `ttl`, would read and what it would send after that. When
   * everything it matches has expired, what it would read were the cache warm, with that past expiry.
   */
  lookup(prompt: CachedPrompt, ttl: CacheTtl, now: number): CacheLookup {
    const blocks = promptBlocks(prompt, ttl);
    const cum = cumulative(blocks);
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    // Expired, the longest prefix still says what the request would read warm (the cost line shows both).
    const hit = this.find(blocks, breakpoints, now) ?? this.find(blocks, breakpoints, Number.NEGATIVE_INFINITY);
    const after = (cum[cum.length - 1] ?? 0) - (hit ? cum[hit.at] : 0);
    return {
      read: hit?.entry.tokens ?? 0,
      expiresAt: hit?.entry.expiresAt,
      rest: Math.round(after * this.ratio),
    };
  }

  /** The longest live prefix at a breakpoint or within the look-back before one, as the API finds it. */
  private find(blocks: Block[], breakpoints: number[], now: number): { at: number; entry: Entry } | undefined {
    let best: { at: number; entry: Entry } | undefined;
    for (const bp of breakpoints) {
      for (let p = bp; p >= Math.max(0, bp - LOOKBACK_BLOCKS) && p > (best?.at ?? -1); p--) {
        const entry = this.entries.get(blocks[p].key);
        if (entry && entry.expiresAt > now) {
          best = { at: p, entry };
          break;
        }
      }
    }
    return best;
  }

  private purge(now: number): void {
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
  }
}

/** The prompt as the cache's blocks, in its order (tools, system, message blocks), breakpoints marked. */
function promptBlocks(prompt: CachedPrompt, ttl: CacheTtl): Block[] {
  const marked = withCacheBreakpoints([...prompt.system], [...prompt.tools], [...prompt.messages], {
    ...prompt.cache,
    ttl,
  });
  const out: Block[] = [];
  let chain = createHash('sha256').update(`model:${prompt.model}`).digest('hex');
  const push = (item: object, where: string, marker: unknown, own = ownBlock(item)): void => {
    // The same block after the same prefix has the same key: only new blocks are hashed (a long conversation
    // is asked for on every gauge update).
    if (own.after !== chain || own.where !== where) {
      own.after = chain;
      own.where = where;
      own.key = createHash('sha256').update(chain).update(where).update(own.hash).digest('hex');
    }
    chain = own.key as string;
    out.push({ key: chain, tokens: own.tokens, breakpoint: marker !== undefined });
  };
  for (const [i, t] of prompt.tools.entries()) push(t, 'tool', marked.tools[i].cache_control);
  for (const [i, b] of prompt.system.entries()) push(b, 'system', marked.system[i].cache_control);
  for (const [i, m] of prompt.messages.entries()) {
    const sent = marked.messages[i].content;
    // A string content goes out as one text block: named by the message, which never changes in place.
    if (typeof m.content === 'string') push(m, `${m.role}:new`, cacheControlOf(sent[0]), stringBlock(m, m.content));
    else for (const [j, b] of m.content.entries()) push(b, j === 0 ? `${m.role}:new` : m.role, cacheControlOf(sent[j]));
  }
  return out;
}

function cacheControlOf(block: unknown): unknown {
  return (block as { cache_control?: unknown } | undefined)?.cache_control;
}

function stringBlock(m: ApiMessage, text: string): Own {
  let own = ownOf.get(m);
  if (!own) {
    own = { hash: hashOf(stableJson({ type: 'text', text })), tokens: defaultTokenCounter(text) };
    ownOf.set(m, own);
  }
  return own;
}

function ownBlock(item: object): Own {
  let own = ownOf.get(item);
  if (!own) {
    own = { hash: hashOf(stableJson(item)), tokens: estimate(item as Record<string, unknown>) };
    ownOf.set(item, own);
  }
  return own;
}

/** A block's tokens by the local counter (the text it carries, as the API bills it). */
function estimate(b: Record<string, unknown>): number {
  const text = (v: unknown): number => (typeof v === 'string' && v !== '' ? defaultTokenCounter(v) : 0);
  const json = (v: unknown): number => (v === undefined ? 0 : text(JSON.stringify(v)));
  switch (b.type) {
    case 'text':
      return text(b.text);
    case 'thinking':
      return text(b.thinking);
    case 'tool_use':
      return text(b.name) + json(b.input);
    case 'image':
      return IMAGE_TOKENS;
    case 'tool_result':
      if (!Array.isArray(b.content)) return text(b.content);
      return b.content.reduce<number>((n, inner: Record<string, unknown>) => n + estimate(inner), 0);
    default:
      // A tool schema, redacted thinking, or a block this file does not know: its JSON.
      return 'input_schema' in b ? text(b.name) + text(b.description) + json(b.input_schema) : json(b);
  }
}

function cumulative(blocks: Block[]): number[] {
  let sum = 0;
  return blocks.map((b) => (sum += b.tokens));
}

/** The block position, at or before the last breakpoint, whose estimated prefix is nearest `tokens`. */
function nearest(cum: number[], breakpoints: number[], tokens: number): number {
  const end = breakpoints[breakpoints.length - 1] ?? cum.length - 1;
  let best = 0;
  for (let p = 0; p <= end; p++) if (Math.abs(cum[p] - tokens) < Math.abs(cum[best] - tokens)) best = p;
  return best;
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with object keys sorted and breakpoints left out: moving a marker does not change a prefix. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((k) => k !== 'cache_control' && (value as Record<string, unknown>)[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
