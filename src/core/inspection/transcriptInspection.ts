// The context gauge of a transcript on disk, in the model every surface shows (contextSnapshot.ts): the
// live gauge replayed on the current conversation (the last usage report plus what came after it), and
// per model call what the API reported next to what the engine would have estimated then. `engram gauge`
// prints it; the inspector shows it for a session read from disk.
import { releaseHeldTexts } from '../compaction/heldText';
import { loadTranscriptView } from '../compaction/transcriptView';
import { findBranches, reportBranches, type BranchReport } from '../conversation/branches';
import { transcriptProblems, type TranscriptProblem } from '../conversation/transcriptReader';
import type { EngramSettings } from '../settings/engramSettings';
import type { TokenCounter } from '../tokens/accounting';
import { transcriptEstimator } from '../tokens/historyEstimator';
import { countTokens, ensureTokenizer } from '../tokens/tokenizer';
import { gaugeOf, type GaugeTurn } from '../tokens/transcriptGauge';
import type { GaugeState } from '../../protocol/messages';
import { gaugeState } from './contextSnapshot';

/** How the commands print a problem of a transcript (`FILE:LINE: skipped: reason`), and where it branches. */
export { formatProblem, type TranscriptProblem } from '../conversation/transcriptReader';
export { formatBranchReport, type BranchReport } from '../conversation/branches';

export interface TranscriptMeasure {
  /** Framed by the settings' window, reserve and marks. */
  gauge: GaugeState;
  /** Messages of the current conversation. */
  messages: number;
  /** The part of `gauge.usedTokens` that is the engine's estimate (after the last usage report). */
  estimatedTokens: number;
  turns: GaugeTurn[];
  /** Lines skipped or repaired while reading, and a torn tail (what `engram inspect` counts). */
  problems: TranscriptProblem[];
  /** Where the conversation branches: the gauge measures the branch a resume reads. */
  branches: BranchReport[];
}

/**
 * Measures with `count` (the inspector's counter); the measure does not depend on the settings. A session
 * never compacted is the whole file: the long texts of a big one stay on disk until read (heldText.ts;
 * `holdBigTexts` true or false decides for any size, with the same measure).
 */
export async function measureTranscript(
  file: string,
  settings: EngramSettings,
  count: TokenCounter,
  holdBigTexts: boolean | 'big-files' = 'big-files',
): Promise<TranscriptMeasure> {
  const view = await loadTranscriptView(file, { holdBigTexts });
  try {
    // Old history is estimated from its length: tokenizing a 200 MB session took minutes (historyEstimator.ts).
    const measured = gaugeOf(view.lines, view.entries, transcriptEstimator(view, count, settings.contextWindow));
    return {
      gauge: gaugeState(measured.gauge, { messages: measured.messages }, settings),
      messages: view.entries.length,
      estimatedTokens: measured.breakdown.estimated,
      turns: measured.turns,
      problems: transcriptProblems(file, view),
      branches: await reportBranches(file, findBranches(view.lines)),
    };
  } finally {
    // The measure holds no text: the file need not stay open.
    if (holdBigTexts !== false) releaseHeldTexts();
  }
}

/** With the exact tokenizer (loaded first), as a report of token counts should be. */
export async function gaugeTranscript(file: string, settings: EngramSettings): Promise<TranscriptMeasure> {
  await ensureTokenizer();
  return measureTranscript(file, settings, countTokens);
}
