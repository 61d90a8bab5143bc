// Dropping the oldest whole rounds: the deterministic last resort when a conversation must shrink and
// no summary can help (reactive recovery, or a summary request that is itself too long). A round ends
// where the list can be cut safely (invariants.ts): never between a tool call and its result, never
// inside one response.
import type { CompactionEntry, TokensOf } from './types';

/** Every index in [0, n] where a cut needs no widening, ascending. O(n). */
export function safeCutPoints(entries: readonly CompactionEntry[]): number[] {
  const n = entries.length;
  const toolUseAt = new Map<string, number>();
  const firstWithId = new Map<string, number>();
  // need[j]: the earliest index message j depends on (its tool_use, the first part of its response).
  const need = new Array<number>(n);
  for (let j = 0; j < n; j++) {
    const e = entries[j];
    let earliest = j;
    for (const id of e.messageIds) {
      const first = firstWithId.get(id);
      if (first === undefined) firstWithId.set(id, j);
      else earliest = Math.min(earliest, first);
    }
    if (typeof e.message.content !== 'string') {
      for (const b of e.message.content) {
        if (b.type === 'tool_use') toolUseAt.set(b.id, j);
        else if (b.type === 'tool_result') {
          const at = toolUseAt.get(b.tool_use_id);
          if (at !== undefined) earliest = Math.min(earliest, at);
        }
      }
    }
    need[j] = earliest;
  }
  const cuts = [n];
  let suffixMin = n;
  for (let i = n - 1; i >= 0; i--) {
    suffixMin = Math.min(suffixMin, need[i]);
    if (suffixMin >= i) cuts.push(i);
  }
  return cuts.reverse();
}

/**
 * The first index to keep when dropping whole rounds from `from` on until at least `tokensToFree`
 * tokens are gone. The last round always stays (it holds the request being answered), so the result
 * is the latest safe cut before the end when even that frees too little; `from` when no cut exists.
 */
export function dropOldestRounds(
  entries: readonly CompactionEntry[],
  from: number,
  tokensToFree: number,
  tokensOf: TokensOf,
): number {
  const n = entries.length;
  const cuts = safeCutPoints(entries).filter((c) => c > from && c < n);
  if (cuts.length === 0) return from;
  let freed = 0;
  let at = from;
  for (const c of cuts) {
    for (; at < c; at++) freed += tokensOf(entries[at].message);
    if (freed >= tokensToFree) return c;
  }
  return cuts[cuts.length - 1];
}
