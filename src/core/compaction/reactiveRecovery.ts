// Runs the reactive stage for the orchestrator: the conversation the API found too long, shrunk for
// another try (reactive.ts), with the session notes as its summarising step, or a full summary on
// the first try only, so recovery never waits on a model call twice.
import type { PromptTooLongError } from '../llm/errors';
import type { CompactProgress, SummarizerConfig } from './fullCompact';
import type { NotesSource } from './notesSource';
import { runCompaction } from './pipeline';
import { reactiveCompact } from './reactive';
import { sessionMemoryCompact } from './sessionMemoryCompact';
import type { CompactionSettings } from './settings';
import { sumTokens, type CompactionEntry, type StageOutcome, type TokensOf } from './types';

export interface RecoveryInput {
  entries: readonly CompactionEntry[];
  error: PromptTooLongError;
  /** 1 for the first recovery of this request. */
  attempt: number;
  settings: CompactionSettings;
  tokensOf: TokensOf;
  /** System prompt and tool schemas: sent with every request, never compacted. */
  fixedTokens: number;
  tokensBefore: number;
  notes: NotesSource | undefined;
  summarizer: SummarizerConfig | undefined;
  /** Put after the notes or summary (the pins' block; recovery re-attaches no files). */
  reattach?: string;
  onProgress(progress: CompactProgress): void;
}

/** The shorter conversation to retry with, or why there is none. */
export function shrinkTooLongConversation(input: RecoveryInput): Promise<StageOutcome> {
  const { settings: s, attempt, notes, summarizer, tokensOf, fixedTokens: fixed } = input;
  const bounds = { minTokens: s.keepMinTokens, minTextMessages: s.keepMinTextMessages, maxTokens: s.keepMaxTokens };
  return reactiveCompact({
    entries: input.entries,
    error: input.error,
    attempt,
    contextWindow: s.contextWindow,
    tokensOf,
    fixedTokens: fixed,
    tokensBefore: input.tokensBefore,
    micro: { keepRecent: s.keepRecentToolResults, maxChars: s.toolResultChars },
    // The notes cost nothing; a full summary only on the first try, so recovery never waits on it twice.
    compact: async (trimmed) => {
      const sm = notes
        ? await sessionMemoryCompact(notes, s.notesWaitMs, {
            entries: trimmed,
            bounds,
            thresholdTokens: Number.POSITIVE_INFINITY,
            fixedTokens: fixed,
            tokensOf,
            ...(input.reattach ? { reattach: input.reattach } : {}),
          })
        : undefined;
      if (sm?.ok || attempt > 1 || !summarizer)
        return sm ?? { ok: false, stage: 'session-memory', code: 'no-notes', reason: 'No notes.' };
      const full = await runCompaction('full', trimmed, fixed + sumTokens(trimmed, tokensOf), {
        settings: s,
        tokensOf,
        fixedTokens: fixed,
        summarizer,
        automatic: true,
        ...(input.reattach ? { reattach: async () => input.reattach ?? '' } : {}),
        onProgress: input.onProgress,
      });
      const last = full.applied[full.applied.length - 1];
      return last?.stage === 'full'
        ? { ok: true, result: last }
        : (full.failure ?? { ok: false, stage: 'full', code: 'model-error', reason: 'No summary.' });
    },
  });
}
