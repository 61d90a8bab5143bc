// Reactive compaction (DESIGN 5): the API answered "prompt is too long" (or 413, too many bytes), so
// the request is shrunk and sent again (the loop allows 3 tries). Recovery must not hang on another
// model call succeeding, so the path that always works is deterministic:
//   1. microcompact (from the second try on, the newest results too);
//   2. a summarising stage when the caller offers one (session notes cost no call; a full summary
//      costs one and may fail, which is fine);
//   3. if it still does not fit, drop the oldest whole rounds after the summary until it does.
// The API's numbers calibrate our estimate: it said N tokens where we counted E, so our count is
// scaled by N / E before comparing with its limit.
import { withDropped } from './droppedFacts';
import { isRequestTooLarge } from '../agent/reactiveErrors';
import type { PromptTooLongError } from '../llm/errors';
import { assembleCompacted } from './compactedConversation';
import { microcompact, type MicrocompactOptions } from './microcompact';
import { dropOldestRounds } from './rounds';
import { droppedNoteText } from './summaryPrompt';
import { sumTokens, unavailable, type CompactionEntry, type StageOutcome, type TokensOf } from './types';

export interface ReactiveOptions {
  entries: readonly CompactionEntry[];
  error: PromptTooLongError;
  /** 1 for the first recovery of this request. */
  attempt: number;
  /** Used when the error carries no limit. */
  contextWindow: number;
  tokensOf: TokensOf;
  fixedTokens?: number;
  tokensBefore?: number;
  micro: MicrocompactOptions;
  /** A summarising stage to try after microcompact; its failure is not the recovery's failure. */
  compact?(entries: readonly CompactionEntry[]): Promise<StageOutcome>;
}

/**
 * How hard microcompact cuts. A 413 refuses bytes, and the bytes are nearly always a few huge tool
 * results, often the newest (a file read or a command's output): those are cut from the first try,
 * shorter on each try, before any summary is asked for (the summary request would carry them too).
 */
function microFor(opts: ReactiveOptions): MicrocompactOptions {
  if (isRequestTooLarge(opts.error))
    return { keepRecent: 0, maxChars: Math.max(200, Math.floor(opts.micro.maxChars / opts.attempt)) };
  return opts.attempt >= 2 ? { ...opts.micro, keepRecent: 0 } : opts.micro;
}

/** Aim this far under the limit: our counts are estimates even after calibration. */
const FIT_MARGIN = 0.9;

export async function reactiveCompact(opts: ReactiveOptions): Promise<StageOutcome> {
  const { entries, tokensOf, error } = opts;
  const fixed = opts.fixedTokens ?? 0;
  const before = fixed + sumTokens(entries, tokensOf);
  const limit = error.maxTokens ?? opts.contextWindow;
  const ratio = error.promptTokens && before > 0 ? Math.max(1, error.promptTokens / before) : 1;
  const target = Math.floor((limit * FIT_MARGIN) / ratio);

  const micro = microcompact(
    entries.map((e) => e.message),
    microFor(opts),
  );
  const trimmed = entries.map((e, i) => (micro.messages[i] === e.message ? e : { ...e, message: micro.messages[i] }));
  let summaryText: string | undefined;
  let keptFrom = 0;
  let modelCalls = 0;
  if (opts.compact) {
    const out = await opts.compact(trimmed);
    if (out.ok && out.result.summaryText !== undefined) {
      summaryText = out.result.summaryText;
      keptFrom = out.result.keptFrom;
      modelCalls += out.result.modelCalls;
    }
  }
  let current = summaryText === undefined ? trimmed : assembleCompacted(summaryText, trimmed, keptFrom);
  const over = fixed + sumTokens(current, tokensOf) - target;
  if (over > 0) {
    const cut = dropOldestRounds(trimmed, keptFrom, over, tokensOf);
    if (cut > keptFrom) {
      const note = droppedNoteText(cut - keptFrom);
      summaryText = summaryText === undefined ? note : `${summaryText}\n\n${note}`;
      keptFrom = cut;
      current = assembleCompacted(summaryText, trimmed, keptFrom);
    }
  }
  if (summaryText === undefined && micro.changed.length === 0) {
    return unavailable('reactive', 'nothing-to-compact', 'Nothing could be trimmed, summarised or dropped.');
  }
  return {
    ok: true,
    result: withDropped({
      stage: 'reactive',
      entries: current,
      keptFrom,
      replaced: entries.slice(0, keptFrom),
      ...(summaryText !== undefined ? { summaryText } : {}),
      trimmedToolUseIds: micro.trimmedToolUseIds,
      tokensBefore: opts.tokensBefore ?? before,
      tokensAfter: fixed + sumTokens(current, tokensOf),
      modelCalls,
    }),
  };
}
