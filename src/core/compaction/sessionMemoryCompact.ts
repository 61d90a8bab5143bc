// Session-memory compaction (DESIGN 5, second stage): the session notes already describe the old part
// of the conversation, so it can be replaced by them without a model call. The recent messages stay
// verbatim (keepIndex.ts picks them, invariants.ts makes the cut safe); one user message holding the
// notes goes before them.
//
// It declines (returns a reason, so the caller falls back to a full compaction) when it would lose
// something or not help: no notes, notes that are still the bare template, a cursor whose message is no
// longer in the conversation (the notes cannot say what they cover), nothing old enough to replace, or
// a result still over the threshold.
import { withDropped } from './droppedFacts';
import { assembleCompacted } from './compactedConversation';
import { widenToKeepInvariants } from './invariants';
import { compactedBecause } from './summaryPrompt';
import { findCursorIndex, keepIndexOf, type KeepBounds } from './keepIndex';
import type { NotesSnapshot, NotesSource } from './notesSource';
import { sumTokens, unavailable, type CompactionEntry, type StageOutcome, type TokensOf } from './types';

export interface SessionMemoryCompactOptions {
  entries: readonly CompactionEntry[];
  bounds: KeepBounds;
  /** The result (fixed parts included) must stay below this many tokens. */
  thresholdTokens: number;
  /** System prompt, tools and anything else sent besides the messages. */
  fixedTokens?: number;
  tokensOf: TokensOf;
  /** What the context held before (the caller may know it from the API's usage); estimated if absent. */
  tokensBefore?: number;
  /** Never keep from before this index (default 0). */
  floor?: number;
  /** Appended to the notes message: files and context re-attached after a compaction. */
  reattach?: string;
  /**
   * Let live notes catch up first when they lag behind by more than the recent window (automatic and
   * manual compactions; not the reactive stage, whose conversation the API just refused).
   */
  catchUp?: boolean;
  /** The user asked for this compaction: the opening message does not say the conversation grew too long. */
  manual?: boolean;
}

/** The opening message of a conversation compacted with the session notes (`manual`: the user asked). */
export function notesSummaryText(notes: string, reattach?: string, manual?: boolean): string {
  const parts = [
    `${compactedBecause(manual)} Its earlier part has been replaced by the session notes below, which were ` +
      'kept up to date while it happened; the most recent messages follow unchanged after this one.',
    `<session-notes>\n${notes.trim()}\n</session-notes>`,
    'Treat the notes as your own record of the earlier work. Carry on from where the conversation stopped, ' +
      'and do not ask the user to repeat what they already said.',
  ];
  if (reattach && reattach.trim() !== '') parts.push(reattach.trim());
  return parts.join('\n\n');
}

/** With the notes already read: pure and synchronous (the benchmark and the property tests call this). */
export function compactWithNotes(
  notes: NotesSnapshot | undefined,
  isEmpty: (text: string) => boolean,
  opts: SessionMemoryCompactOptions,
): StageOutcome {
  const stage = 'session-memory';
  if (!notes) return unavailable(stage, 'no-notes', 'There are no session notes yet.');
  if (notes.text.trim() === '' || isEmpty(notes.text))
    return unavailable(stage, 'empty-notes', 'The session notes are still empty (only the template).');
  const { entries, tokensOf } = opts;
  let firstUncovered = entries.length;
  if (notes.lastSummarizedMessageId !== undefined) {
    const at = findCursorIndex(entries, notes.lastSummarizedMessageId);
    if (at < 0)
      return unavailable(
        stage,
        'cursor-lost',
        'The message the session notes cover up to is no longer in the conversation.',
      );
    firstUncovered = at + 1;
  }
  const keep = keepIndexOf(entries, firstUncovered, opts.bounds, tokensOf, opts.floor ?? 0);
  const keptFrom = widenToKeepInvariants(entries, keep.index);
  if (keptFrom === 0)
    return unavailable(
      stage,
      'nothing-to-compact',
      'Every message is recent enough to keep; there is nothing for the notes to replace.',
    );

  const fixed = opts.fixedTokens ?? 0;
  const summaryText = notesSummaryText(notes.text, opts.reattach, opts.manual);
  const keptTokens = keptFrom === keep.index ? keep.keptTokens : sumTokens(entries, tokensOf, keptFrom);
  const tokensAfter = fixed + summaryTokens(tokensOf, summaryText) + keptTokens;
  if (tokensAfter >= opts.thresholdTokens) {
    return unavailable(
      stage,
      'still-over',
      `With the session notes the conversation would still hold ${tokensAfter} tokens ` +
        `(the mark is ${opts.thresholdTokens}).`,
    );
  }
  return {
    ok: true,
    result: withDropped({
      stage,
      entries: assembleCompacted(summaryText, entries, keptFrom),
      keptFrom,
      replaced: entries.slice(0, keptFrom),
      summaryText,
      summaryBody: notes.text.trim(),
      tokensBefore: opts.tokensBefore ?? fixed + sumTokens(entries, tokensOf),
      tokensAfter,
      modelCalls: 0,
    }),
  };
}

/** Waits (bounded) for a running notes update, so the freshest notes replace the messages. */
export async function sessionMemoryCompact(
  source: NotesSource,
  waitMs: number,
  opts: SessionMemoryCompactOptions,
): Promise<StageOutcome> {
  await source.waitForUpdate(waitMs);
  let notes = await source.read();
  const cover = opts.catchUp && source.catchUp ? lastResponseCover(opts) : undefined;
  if (cover && source.catchUp && lagsBehind(notes, source, opts)) {
    await source.catchUp(cover);
    notes = await source.read();
  }
  return compactWithNotes(notes, (t) => source.isEmpty(t), opts);
}

/**
 * Whether the notes miss more of the conversation than the recent window keeps anyway: then the
 * compaction would keep every uncovered message (up to the max, or decline and fall back to a summary),
 * so bringing the notes up to date first is worth one update. Missing, empty or lost notes lag too.
 */
function lagsBehind(notes: NotesSnapshot | undefined, source: NotesSource, opts: SessionMemoryCompactOptions): boolean {
  if (!notes || notes.text.trim() === '' || source.isEmpty(notes.text)) return true;
  if (notes.lastSummarizedMessageId === undefined) return false;
  const at = findCursorIndex(opts.entries, notes.lastSummarizedMessageId);
  if (at < 0) return true;
  return sumTokens(opts.entries, opts.tokensOf, at + 1) > opts.bounds.minTokens;
}

/** The newest model response: what fresh notes will say they cover. */
function lastResponseCover(
  opts: SessionMemoryCompactOptions,
): { messageId: string; contextTokens: number } | undefined {
  for (let i = opts.entries.length - 1; i >= 0; i--) {
    const id = opts.entries[i].messageIds.at(-1);
    if (id)
      return {
        messageId: id,
        contextTokens: opts.tokensBefore ?? (opts.fixedTokens ?? 0) + sumTokens(opts.entries, opts.tokensOf),
      };
  }
  return undefined;
}

// The notes message is rebuilt on every compaction but its text rarely changes; counting 12K tokens
// of notes each time would dominate the stage's cost, so the last count per counter is kept.
const lastCount = new WeakMap<TokensOf, { text: string; tokens: number }>();

function summaryTokens(tokensOf: TokensOf, text: string): number {
  const last = lastCount.get(tokensOf);
  if (last?.text === text) return last.tokens;
  const tokens = tokensOf({ role: 'user', content: text });
  lastCount.set(tokensOf, { text, tokens });
  return tokens;
}
