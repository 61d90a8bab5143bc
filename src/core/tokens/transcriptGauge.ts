// The context gauge of a transcript on disk (`engram gauge`): how full the window is by the engine's
// rule (DESIGN 5: the last response's input + cache creation + cache read + output, plus an estimate of
// what came after it), and, per model call, what the API reported next to what the engine would have
// estimated at that point (the previous report plus its own count of the messages since), so the
// estimate's drift can be measured on real sessions.
import type { NormalisedEntry } from '../conversation/normalise';
import type { TranscriptLine } from '../conversation/transcriptReader';
import { SYNTHETIC_MODEL } from '../conversation/transcriptWriter';
import type { AssistantLine } from '../conversation/types';
import { ContextAccountant, usageTotal, type ContextBreakdown, type TokenEstimator } from './accounting';

export interface GaugeTurn {
  /** The last transcript line of the response (it carries the final usage). */
  uuid: string;
  messageId: string;
  reportedTokens: number;
  estimatedTokens: number;
}

export interface TranscriptGauge {
  usedTokens: number;
  window: number;
  percent: number;
  /** `system` holds everything the usage reports beyond the messages (system prompt, tools). */
  breakdown: ContextBreakdown;
  turns: GaugeTurn[];
}

/**
 * `lines` are the current conversation's lines and `entries` its API messages (transcriptView.ts).
 * Responses written by Engram itself as copies (model `<synthetic>`) and API error lines report no
 * real usage and are skipped.
 */
export function gaugeOf(lines: readonly TranscriptLine[], entries: readonly NormalisedEntry[], window: number, estimator: TokenEstimator): TranscriptGauge {
  const reports = new Map<string, { uuid: string; total: number }>();
  for (const l of lines) {
    if (l.type !== 'assistant') continue;
    const a = l as AssistantLine;
    if (a.isApiErrorMessage || a.message.model === SYNTHETIC_MODEL || !a.message.usage) continue;
    reports.set(a.message.id, { uuid: a.uuid, total: usageTotal(a.message.usage) });
  }
  const tokens = entries.map((e) => {
    const t = estimator.message(e.message);
    return t.messages + t.toolResults;
  });
  const prefix = [0];
  for (const t of tokens) prefix.push(prefix[prefix.length - 1] + t);

  const turns: GaugeTurn[] = [];
  let prev: { index: number; total: number } | undefined;
  entries.forEach((e, i) => {
    for (const id of e.messageIds) {
      const r = reports.get(id);
      if (!r) continue;
      const estimatedTokens = prev ? prev.total + prefix[i + 1] - prefix[prev.index + 1] : prefix[i + 1];
      turns.push({ uuid: r.uuid, messageId: id, reportedTokens: r.total, estimatedTokens });
      prev = { index: i, total: r.total };
    }
  });

  const accountant = new ContextAccountant({ estimator });
  if (prev) accountant.setFixed({ system: Math.max(0, prev.total - prefix[prev.index + 1]) });
  accountant.reset(entries.map((e) => e.message));
  if (prev) accountant.onResponse({ input_tokens: prev.total, output_tokens: 0 }, prev.index + 1);
  const usedTokens = accountant.used();
  return {
    usedTokens,
    window,
    percent: window > 0 ? Math.round((usedTokens / window) * 10_000) / 100 : 0,
    breakdown: accountant.breakdown(),
    turns,
  };
}
