// A simulation of the API's prompt cache, close enough that cost benchmarks mean something.
//
// What it models (from the prompt-caching docs):
// - The prompt is a sequence of blocks (tools, system, messages; see promptSegments.ts). A block with
//   cache_control is a breakpoint; at most 4 (the validator enforces that).
// - A write stores the prefix ending at each breakpoint, keyed by a hash chained over every block up
//   to it (and the model), with a TTL of 5 minutes, or 1 hour for `ttl: '1h'`. A hit refreshes the TTL.
// - A read: at each breakpoint the cache is checked at that block and at up to LOOKBACK_BLOCKS
//   (20) blocks before it; the longest prefix found is read.
// - Prefixes shorter than the model's minimum (1,024 tokens by default) are never written.
// Usage: cache_read = tokens of the longest hit; cache_creation = tokens from there to the last
// breakpoint that can be written, split into 5m / 1h by the TTL of the breakpoint closing each span;
// input_tokens = the rest (everything after the last breakpoint, or everything when nothing caches).
// Not modelled: per-organisation isolation, eviction under load, thinking-parameter invalidation.

import { createHash } from 'node:crypto';
import type { PromptSegment } from './promptSegments';

export const LOOKBACK_BLOCKS = 20;
export const DEFAULT_MIN_CACHEABLE_TOKENS = 1_024;
const TTL_5M_MS = 5 * 60_000;
const TTL_1H_MS = 60 * 60_000;

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

export interface PromptCacheOptions {
  now?: () => number;
  /** Prefixes below this many tokens are not cached (the API's per-model minimum). */
  minCacheableTokens?: number;
}

interface Entry {
  tokens: number;
  ttlMs: number;
  expiresAt: number;
}

export class PromptCacheSimulator {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly minTokens: number;

  constructor(opts: PromptCacheOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.minTokens = opts.minCacheableTokens ?? DEFAULT_MIN_CACHEABLE_TOKENS;
  }

  /** Number of live cached prefixes. */
  get size(): number {
    this.purge();
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  /** Reads and writes the cache for one request and returns its input usage. */
  process(model: string, segments: PromptSegment[]): CacheUsage {
    this.purge();
    const now = this.now();
    const hashes: string[] = [];
    const cumulative: number[] = [];
    let h = createHash('sha256').update(`model:${model}`).digest('hex');
    let sum = 0;
    for (const s of segments) {
      h = createHash('sha256').update(h).update('\n').update(s.key).digest('hex');
      hashes.push(h);
      sum += s.tokens;
      cumulative.push(sum);
    }
    const total = sum;
    const breakpoints = segments.flatMap((s, i) => (s.cacheControl ? [i] : []));

    // Longest hit at a breakpoint or within the lookback window before one.
    let hitPos = -1;
    for (const bp of breakpoints) {
      for (let p = bp; p >= Math.max(0, bp - LOOKBACK_BLOCKS) && p > hitPos; p--) {
        const entry = this.entries.get(hashes[p]);
        if (entry) {
          hitPos = p;
          entry.expiresAt = now + entry.ttlMs;
          break;
        }
      }
    }
    const read = hitPos >= 0 ? cumulative[hitPos] : 0;

    let created5m = 0;
    let created1h = 0;
    let covered = hitPos; // last block position whose tokens are already read or created
    for (const bp of breakpoints) {
      if (bp <= hitPos) continue;
      if (cumulative[bp] < this.minTokens) continue; // too short: its tokens roll into the next span
      const ttlMs = segments[bp].cacheControl?.ttl === '1h' ? TTL_1H_MS : TTL_5M_MS;
      const span = cumulative[bp] - (covered >= 0 ? cumulative[covered] : 0);
      if (ttlMs === TTL_1H_MS) created1h += span;
      else created5m += span;
      covered = bp;
      this.entries.set(hashes[bp], { tokens: cumulative[bp], ttlMs, expiresAt: now + ttlMs });
    }
    const created = created5m + created1h;
    return {
      input_tokens: total - read - created,
      cache_creation_input_tokens: created,
      cache_read_input_tokens: read,
      cache_creation: { ephemeral_5m_input_tokens: created5m, ephemeral_1h_input_tokens: created1h },
    };
  }

  private purge(): void {
    const now = this.now();
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
  }
}
