// The prompt cache's lifetime (`engram.promptCache.ttl`): 5 minutes, 1 hour, or automatic. A 1-hour
// write costs 2x the base input instead of 1.25x; it pays when the user comes back after more than five
// minutes, when a 5-minute cache would have expired and the whole conversation be written again.
//
// The automatic rule: 1 hour once more than a sixth of the gaps between the user's messages in this
// session (the transcript's timestamps, so a resumed session keeps its pace; the message being sent
// counts, its gap ending now) were over 5 minutes (CACHE_TTL_AUTO_SLOW_SHARE says why a sixth); before
// the second message, and while the user comes back within 5 minutes that often, 5 minutes. A median
// would wait for half the gaps to be slow: the think-time bench showed it keeping 5 minutes (and paying
// 40% more than 1 hour) on a session where 15 gaps in 40 were pauses of 6-20 minutes.
// Every breakpoint of a request gets the same TTL: the API wants 1-hour breakpoints before 5-minute ones
// when they are mixed, and one TTL per request never mixes them.

import { CACHE_TTL_AUTO_SLOW_SHARE } from '../thresholds';

export type CacheTtl = '5m' | '1h';
export type CacheTtlSetting = CacheTtl | 'auto';

export const TTL_MS: Record<CacheTtl, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/** A gap longer than this (the 5-minute TTL) outlives a 5-minute cache. */
const SLOW_GAP_MS = TTL_MS['5m'];

export function cacheTtlSetting(value: string): CacheTtlSetting {
  return value === '5m' || value === '1h' ? value : 'auto';
}

/** The TTL the next request uses: the setting, or for `auto` the rule above over `promptTimes` (ms, any order). */
export function chooseTtl(setting: CacheTtlSetting, promptTimes: readonly number[]): CacheTtl {
  if (setting !== 'auto') return setting;
  const share = slowGapShare(promptTimes);
  return share !== undefined && share > CACHE_TTL_AUTO_SLOW_SHARE ? '1h' : '5m';
}

/** The share of gaps between consecutive times that are over 5 minutes, or undefined with fewer than two. */
export function slowGapShare(times: readonly number[]): number | undefined {
  const sorted = times.filter(Number.isFinite).sort((a, b) => a - b);
  const gaps = sorted.slice(1).map((t, i) => t - sorted[i]);
  if (gaps.length === 0) return undefined;
  return gaps.filter((g) => g > SLOW_GAP_MS).length / gaps.length;
}
