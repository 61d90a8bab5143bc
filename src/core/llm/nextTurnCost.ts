// What sending the next message costs, warm (the prompt cache still holds what the last request wrote)
// and cold (it expired: everything is written again), in tokens and in the model's price. The cost line
// in the chat header and the inspector shows it (issue 24).
//
// The request after a response is the conversation so far plus the new message. Warm, the prefix the
// last request cached (its cache read + cache write: the engine puts its last breakpoint at the end of
// that request's newest user message) is read at the cache-read price, and everything after it (the last
// answer, anything added since, the new message) is written at the cache-write price of the TTL in use.
// After a compaction the conversation is new: only the system prompt and tools (the first breakpoint)
// can still be read. Cold, everything is written. Once the session has sent a request, its model of the
// cache (session/promptCacheModel.ts) compares the prompt the next request will send with the prefixes
// the cache holds (`prefix`), so an edited summary, a dropped attachment or a new tool moves the figure;
// the guess from the last usage is for a session that has sent nothing yet in this process (a resume). A prompt below the model's minimum cacheable length
// is sent uncached. Output is not counted: nobody knows the answer's length before it is written.
import type { Usage } from '../conversation/types';
import { TTL_MS, type CacheTtl } from './cacheTtl';
import { priceOf } from './modelPrices';
import type { ProviderConfig } from './providerTypes';

/** The API's shortest cacheable prompt for most models (the test server's default too). */
export const MIN_CACHEABLE_TOKENS = 1_024;

export interface CacheFacts {
  model: string;
  /** Where the model is reached: its prices (the Anthropic API when absent). */
  provider?: ProviderConfig;
  /** The TTL the next request will write with. */
  ttl: CacheTtl;
  /** When the cached prefix was last written or read (ms), undefined before the first request. */
  lastRequestAt: number | undefined;
  /** The TTL the prefix was written with (the last request's); default `ttl`. */
  lastTtl?: CacheTtl;
  /** The last main request's usage, when it still describes the start of the conversation. */
  lastUsage: Usage | undefined;
  /** Tokens in context now (the gauge: the last report plus estimates of what came after it). */
  contextTokens: number;
  /** The system prompt and tools: still cached after a compaction. */
  fixedTokens: number;
  /** A compaction replaced the conversation since `lastUsage`. */
  compacted: boolean;
  /**
   * What the next request reads from the cache, until when, and the tokens it sends after that (the
   * session's cache model): when given, it decides instead of `lastUsage` and `compacted`.
   */
  prefix?: { read: number; expiresAt: number | undefined; rest: number };
  /** `contextTokens` rests on a usage report that still applies (exact up to the last response). */
  contextMeasured?: boolean;
}

export interface TokenSplit {
  read: number;
  write: number;
  /** Sent uncached (a prompt too short to cache). */
  input: number;
  /** USD; undefined when the model's price is unknown. */
  usd: number | undefined;
}

export interface NextTurnCost {
  /** Warm until `expiresAt` (ms); cold when it passed or nothing was sent yet. */
  warm: boolean;
  expiresAt: number | undefined;
  /** Milliseconds of cache left (0 when cold). */
  leftMs: number;
  ttl: CacheTtl;
  ifWarm: TokenSplit;
  ifCold: TokenSplit;
  priceKnown: boolean;
}

/** The cache's state at `now` and the next message's cost both ways; `newTokens` is the new message's estimate. */
export function nextTurnCost(facts: CacheFacts, now: number, newTokens = 0): NextTurnCost {
  if (facts.prefix) return fromPrefix(facts, facts.prefix, now, newTokens);
  const lastTtl = facts.lastTtl ?? facts.ttl;
  const expiresAt = facts.lastRequestAt === undefined ? undefined : facts.lastRequestAt + TTL_MS[lastTtl];
  const lastCached = facts.lastUsage
    ? (facts.lastUsage.cache_read_input_tokens ?? 0) + (facts.lastUsage.cache_creation_input_tokens ?? 0)
    : undefined;
  // A last request too short to cache left nothing to be warm.
  const warm = expiresAt !== undefined && now < expiresAt && lastCached !== 0;
  const total = Math.max(0, facts.contextTokens + newTokens);
  const cached = lastCached !== undefined && !facts.compacted ? lastCached : facts.fixedTokens;
  return costOf(facts, warm, expiresAt, now, total, facts.lastRequestAt === undefined ? 0 : cached);
}

function fromPrefix(facts: CacheFacts, prefix: NonNullable<CacheFacts['prefix']>, now: number, newTokens: number) {
  const warm = prefix.expiresAt !== undefined && now < prefix.expiresAt && prefix.read > 0;
  // The gauge is exact up to the last response while its report applies; after a rewrite the cache model's
  // count (the read part exact, the rest estimated and scaled to the API's count) is the closer one.
  const total = facts.contextMeasured
    ? Math.max(prefix.read, facts.contextTokens + newTokens)
    : Math.max(0, prefix.read + prefix.rest + newTokens);
  return costOf(facts, warm, prefix.expiresAt, now, total, prefix.read);
}

function costOf(
  facts: CacheFacts,
  warm: boolean,
  expiresAt: number | undefined,
  now: number,
  total: number,
  read: number,
): NextTurnCost {
  const split = (r: number): TokenSplit => {
    if (total < MIN_CACHEABLE_TOKENS) return priced(facts, { read: 0, write: 0, input: total });
    const kept = Math.min(r, total);
    return priced(facts, { read: kept, write: total - kept, input: 0 });
  };
  return {
    warm,
    expiresAt,
    leftMs: warm && expiresAt !== undefined ? expiresAt - now : 0,
    ttl: facts.ttl,
    ifWarm: split(read),
    ifCold: split(0),
    priceKnown: priceOf(facts.model, facts.provider) !== undefined,
  };
}

function priced(facts: CacheFacts, t: Omit<TokenSplit, 'usd'>): TokenSplit {
  return { ...t, usd: priceOfTokens(facts.model, facts.ttl, t, facts.provider) };
}

/** USD for input-side tokens, or undefined for a model without a known price. */
export function priceOfTokens(
  model: string,
  ttl: CacheTtl,
  t: { read: number; write: number; input: number },
  provider?: ProviderConfig,
): number | undefined {
  const p = priceOf(model, provider);
  if (!p) return undefined;
  const write = ttl === '1h' ? p.write1h : p.write5m;
  return (t.read * p.read + t.write * write + t.input * p.input) / 1e6;
}
