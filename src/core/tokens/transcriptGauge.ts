// The context gauge of a transcript on disk (`engram gauge`): how full the window is by the engine's
// rule (DESIGN 5: the last response's input + cache creation + cache read + output, plus an estimate of
// what came after it), and, per model call, what the API reported next to what the engine would have
// estimated at that point (the previous report plus its own count of the messages since), so the
// estimate's drift can be measured on real sessions.
import type { NormalisedEntry } from '../conversation/normalise';
import type { TranscriptLine } from '../conversation/transcriptReader';
import type { ApiMessage } from '../conversation/types';
import { usageReports, type UsageReport } from '../conversation/usageReports';
import { usageTotal, type ContextBreakdown, type TokenEstimator } from './accounting';
import { ContextGauge } from './contextGauge';

export interface GaugeTurn {
  /** The last transcript line of the response (it carries the final usage). */
  uuid: string;
  messageId: string;
  reportedTokens: number;
  estimatedTokens: number;
}

export interface TranscriptGauge {
  /** The live gauge replayed on the transcript: what a session resumed from it would show. */
  gauge: ContextGauge;
  /** The current conversation's messages, as the gauge counted them. */
  messages: ApiMessage[];
  usedTokens: number;
  /** `system` holds everything the usage reports beyond the messages (system prompt, tools). */
  breakdown: ContextBreakdown;
  turns: GaugeTurn[];
}

/** The last response of `entries` that reported usage: its message's index and the report's total. */
export function lastReport(
  entries: readonly NormalisedEntry[],
  reports: ReadonlyMap<string, UsageReport>,
): { index: number; total: number } | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const ids = entries[i].messageIds;
    for (let j = ids.length - 1; j >= 0; j--) {
      const r = reports.get(ids[j]);
      if (r) return { index: i, total: usageTotal(r.usage) };
    }
  }
  return undefined;
}

/**
 * `lines` are the current conversation's lines and `entries` its API messages (transcriptView.ts).
 * Responses written by Engram itself as copies (model `<synthetic>`) and API error lines report no
 * real usage and are skipped (usageReports.ts).
 */
export function gaugeOf(
  lines: readonly TranscriptLine[],
  entries: readonly NormalisedEntry[],
  estimator: TokenEstimator,
): TranscriptGauge {
  const reports = new Map(
    [...usageReports(lines)].map(([id, r]) => [id, { uuid: r.uuid, total: usageTotal(r.usage) }]),
  );
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

  // The same gauge a live session keeps, fed as if the session were resumed: the last report, then
  // the messages after it. Without the system prompt (transcripts do not store it), what the report
  // holds beyond the messages stands for it.
  const messages = entries.map((e) => e.message);
  const gauge = new ContextGauge({ estimator });
  if (prev) {
    gauge.setFixed({ system: Math.max(0, prev.total - prefix[prev.index + 1]) });
    gauge.onResponse({ input_tokens: prev.total, output_tokens: 0 }, messages.slice(0, prev.index + 1));
  }
  gauge.sync(messages);
  return { gauge, messages, usedTokens: gauge.used(), breakdown: gauge.breakdown(), turns };
}
