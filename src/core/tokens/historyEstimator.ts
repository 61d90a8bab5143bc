// Token counts for a transcript on disk (issue #13, class 8): a 200 MB session holds ~50M tokens, and
// tokenizing all of it took minutes, while the gauge's rule needs exact counts only for what came after
// the last usage report (the API counted the rest) and compaction only for the recent window it keeps.
// So the newest messages (at least everything after the last report, and a few windows' worth of text)
// are tokenized; older history is estimated from its length, which costs nothing.
import type { NormalisedEntry } from '../conversation/normalise';
import type { TranscriptLine } from '../conversation/transcriptReader';
import { SYNTHETIC_MODEL } from '../conversation/transcriptWriter';
import type { ApiMessage, AssistantLine } from '../conversation/types';
import { TokenEstimator, type MessageTokens, type TokenCounter } from './accounting';
import { estimateTokensFast } from './tokenizer';

/** Characters of the newest messages that are tokenized exactly, per token of the context window. */
const EXACT_CHARS_PER_WINDOW_TOKEN = 4 * 4;

export class HistoryEstimator extends TokenEstimator {
  private readonly cheap = new TokenEstimator(estimateTokensFast);

  /** Messages of `old` are estimated from their length. */
  constructor(
    count: TokenCounter,
    private readonly old: WeakSet<ApiMessage>,
  ) {
    super(count);
  }

  override message(m: ApiMessage): MessageTokens {
    return this.old.has(m) ? this.cheap.message(m) : super.message(m);
  }
}

/**
 * An estimator exact for the newest messages of `messages`: those after `exactAfter` (the index of the
 * last message a usage report covers; -1 for none) and the newest holding `contextWindow * 16` characters.
 */
export function historyEstimator(
  messages: readonly ApiMessage[],
  count: TokenCounter,
  contextWindow: number,
  exactAfter = messages.length - 1,
): TokenEstimator {
  const budget = contextWindow * EXACT_CHARS_PER_WINDOW_TOKEN;
  let from = messages.length;
  let chars = 0;
  while (from > 0 && chars < budget) chars += charsOf(messages[--from]);
  from = Math.min(from, exactAfter + 1);
  const old = new WeakSet<ApiMessage>();
  for (let i = 0; i < from; i++) old.add(messages[i]);
  return new HistoryEstimator(count, old);
}

/** A cheap size: no tokenizing, no copying of big strings. */
function charsOf(m: ApiMessage): number {
  if (typeof m.content === 'string') return m.content.length;
  let n = 0;
  for (const b of m.content) {
    if (b.type === 'text') n += b.text.length;
    else if (b.type === 'tool_result')
      n +=
        typeof b.content === 'string'
          ? b.content.length
          : b.content.reduce((k, c) => k + (c.type === 'text' ? c.text.length : 0), 0);
    else if (b.type === 'thinking') n += b.thinking.length;
    else n += 100;
  }
  return n;
}

/**
 * historyEstimator for a transcript's current conversation, exact after its last usage report
 * (transcriptGauge's rule).
 */
export function transcriptEstimator(
  view: { lines: readonly TranscriptLine[]; entries: readonly NormalisedEntry[] },
  count: TokenCounter,
  contextWindow: number,
): TokenEstimator {
  const reported = new Set<string>();
  for (const l of view.lines) {
    if (l.type !== 'assistant') continue;
    const a = l as AssistantLine;
    if (!a.isApiErrorMessage && a.message.model !== SYNTHETIC_MODEL && a.message.usage) reported.add(a.message.id);
  }
  let last = -1;
  view.entries.forEach((e, i) => {
    if (e.messageIds.some((id) => reported.has(id))) last = i;
  });
  return historyEstimator(
    view.entries.map((e) => e.message),
    count,
    contextWindow,
    last,
  );
}
