// The prompt cache's lifetime (`engram.promptCache.ttl`): 5 minutes, 1 hour, or automatic. A 1-hour
// write costs 2x the base input instead of 1.25x; it pays when the user comes back after more than five
// minutes, when a 5-minute cache would have expired and the whole conversation be written again.
//
// The automatic rule: 1 hour once the median gap between the user's messages in this session (the
// transcript's timestamps, so a resumed session keeps its pace; the message being sent counts, its gap
// ending now) is over 5 minutes; until there are two messages, and while the median is 5 minutes or
// less, 5 minutes. The median, not the mean: one lunch break does not make a quick session slow.
// Every breakpoint of a request gets the same TTL: the API wants 1-hour breakpoints before 5-minute ones
// when they are mixed, and one TTL per request never mixes them.

export type CacheTtl = '5m' | '1h';
export type CacheTtlSetting = CacheTtl | 'auto';

export const TTL_MS: Record<CacheTtl, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/** Gaps longer than this (the 5-minute TTL) make the automatic choice 1 hour. */
const AUTO_GAP_MS = TTL_MS['5m'];

export function cacheTtlSetting(value: string): CacheTtlSetting {
  return value === '5m' || value === '1h' ? value : 'auto';
}

/** The TTL the next request uses: the setting, or for `auto` the rule above over `promptTimes` (ms, any order). */
export function chooseTtl(setting: CacheTtlSetting, promptTimes: readonly number[]): CacheTtl {
  if (setting !== 'auto') return setting;
  const gap = medianGap(promptTimes);
  return gap !== undefined && gap > AUTO_GAP_MS ? '1h' : '5m';
}

/** The median gap between consecutive times, or undefined with fewer than two. */
export function medianGap(times: readonly number[]): number | undefined {
  const sorted = times.filter(Number.isFinite).sort((a, b) => a - b);
  const gaps = sorted.slice(1).map((t, i) => t - sorted[i]);
  if (gaps.length === 0) return undefined;
  gaps.sort((a, b) => a - b);
  const mid = gaps.length >> 1;
  return gaps.length % 2 === 1 ? gaps[mid] : (gaps[mid - 1] + gaps[mid]) / 2;
}
