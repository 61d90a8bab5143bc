// Which recent messages session-memory compaction keeps verbatim (DESIGN 5). The notes cover the
// conversation up to a cursor (`lastSummarizedMessageId`); everything after it must be kept, since no
// summary holds it yet. Beyond that, a little recent context is kept on purpose, because the notes say
// what happened but not how the last exchanges went:
//
//   start = first message after the cursor (or the end, when the notes cover everything)
//   extend start backwards, one message at a time, while
//       kept tokens < minTokens  OR  kept messages with text < minTextMessages
//   but never past `floor` (the start of the current conversation, right after the last compact
//   boundary) and never so far that the kept tokens would exceed maxTokens.
//
// The messages after the cursor are kept even when they alone exceed maxTokens (dropping them would
// lose what the notes do not have); the caller then finds the result too big and falls back to a full
// compaction. The index returned here is not yet safe to cut at: widenToKeepInvariants moves it
// earlier when a tool call or a split response would be cut in two.
import type { ApiMessage } from '../conversation/types';
import type { CompactionEntry, TokensOf } from './types';

export interface KeepBounds {
  /** Keep at least this many tokens of recent messages... */
  minTokens: number;
  /** ...and at least this many messages that contain text (user prompts, answers)... */
  minTextMessages: number;
  /** ...but at most this many tokens (unless the messages after the cursor alone are more). */
  maxTokens: number;
}

export interface KeepIndexInput {
  /** Number of messages. */
  count: number;
  /** Token count of message i; called only for the messages the walk looks at (the recent end). */
  tokensAt(i: number): number;
  /** Whether message i has text a person wrote or reads (counts toward minTextMessages). */
  hasTextAt(i: number): boolean;
  /** First index not covered by the notes: the cursor's index + 1, or `count` when all are covered. */
  firstUncovered: number;
  /** Never keep from before this index (default 0: the list already starts after the last boundary). */
  floor?: number;
  bounds: KeepBounds;
}

export interface KeepIndexResult {
  /** First index to keep (before widening for the API invariants). */
  index: number;
  keptTokens: number;
  keptTextMessages: number;
  /** Why the walk stopped: bounds met, the max reached, the floor reached, or already over the max. */
  stoppedBy: 'min-met' | 'max-tokens' | 'floor' | 'uncovered-over-max';
}

export function computeKeepIndex(input: KeepIndexInput): KeepIndexResult {
  const { count, bounds } = input;
  const floor = Math.max(0, Math.min(count, input.floor ?? 0));
  let index = Math.max(floor, Math.min(count, input.firstUncovered));
  let keptTokens = 0;
  let keptTextMessages = 0;
  for (let i = index; i < count; i++) {
    keptTokens += input.tokensAt(i);
    if (input.hasTextAt(i)) keptTextMessages++;
  }
  if (keptTokens >= bounds.maxTokens) return { index, keptTokens, keptTextMessages, stoppedBy: 'uncovered-over-max' };
  const met = (): boolean => keptTokens >= bounds.minTokens && keptTextMessages >= bounds.minTextMessages;
  while (!met()) {
    if (index <= floor) return { index, keptTokens, keptTextMessages, stoppedBy: 'floor' };
    const tokens = input.tokensAt(index - 1);
    if (keptTokens + tokens > bounds.maxTokens) return { index, keptTokens, keptTextMessages, stoppedBy: 'max-tokens' };
    index--;
    keptTokens += tokens;
    if (input.hasTextAt(index)) keptTextMessages++;
  }
  return { index, keptTokens, keptTextMessages, stoppedBy: 'min-met' };
}

/** A message that has non-blank text (a string, or a text block). Tool results alone do not count. */
export function hasText(m: ApiMessage): boolean {
  if (typeof m.content === 'string') return m.content.trim() !== '';
  return m.content.some((b) => b.type === 'text' && b.text.trim() !== '');
}

/**
 * Index of the message holding the cursor: a transcript line uuid or an assistant `message.id` (the
 * notes updater may record either). Searched from the end, where it almost always is. -1 when absent.
 */
export function findCursorIndex(entries: readonly CompactionEntry[], cursor: string): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.uuids.includes(cursor) || e.messageIds.includes(cursor)) return i;
  }
  return -1;
}

/** computeKeepIndex over entries, with token counts taken lazily from `tokensOf`. */
export function keepIndexOf(
  entries: readonly CompactionEntry[],
  firstUncovered: number,
  bounds: KeepBounds,
  tokensOf: TokensOf,
  floor = 0,
): KeepIndexResult {
  return computeKeepIndex({
    count: entries.length,
    tokensAt: (i) => tokensOf(entries[i].message),
    hasTextAt: (i) => hasText(entries[i].message),
    firstUncovered,
    floor,
    bounds,
  });
}
