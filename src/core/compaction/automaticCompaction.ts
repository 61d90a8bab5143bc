// Runs the automatic stages for the orchestrator before a model call: the chain its plan picked
// (pipeline.ts), each applied stage handed to `record` as it is kept. The transcript's message ids
// are read only once something will be applied, since a microcompact needs none to decide.
import type { ApiMessage } from '../conversation/types';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import type { ConversationIds } from './conversationIds';
import type { CompactionEvent } from './events';
import type { CompactProgress, SummarizerConfig } from './fullCompact';
import type { RecordMeta } from './manualCompaction';
import type { NotesSource } from './notesSource';
import { runCompaction, type ChainStage, type StageFailure } from './pipeline';
import type { CompactionSettings } from './settings';
import type { TranscriptView } from './transcriptView';
import type { CompactionEntry, CompactionResult, TokensOf } from './types';

export interface AutomaticRun {
  stage: ChainStage;
  messages: readonly ApiMessage[];
  /** Context used by `messages` now. */
  used: number;
  signal: AbortSignal;
  settings: CompactionSettings;
  ids: ConversationIds;
  transcript: TranscriptWriter | undefined;
  tokensOf: TokensOf;
  fixedTokens: number;
  notes: NotesSource | undefined;
  summarizer: SummarizerConfig | undefined;
  reattach(): Promise<string>;
  now(): number;
  onProgress(progress: CompactProgress): void;
  onUnavailable(failure: StageFailure): void;
  /** Records an applied stage (transcript, timeline); its event. */
  record(result: CompactionResult, meta: RecordMeta): Promise<CompactionEvent>;
}

export interface AutomaticOutcome {
  /** The stages applied, in order. */
  events: CompactionEvent[];
  /** The conversation after them (`messages` when none applied). */
  current: readonly ApiMessage[];
  failure?: StageFailure;
}

export async function runAutomaticStages(run: AutomaticRun): Promise<AutomaticOutcome> {
  const { stage, messages, settings: s, ids } = run;
  let loaded: { entries: CompactionEntry[]; view: TranscriptView | undefined } | undefined;
  const idsFor = async (): Promise<{ entries: CompactionEntry[]; view: TranscriptView | undefined }> =>
    (loaded ??= await ids.withLines(messages, run.transcript));
  // Micro needs no ids to decide; load them only once something will be applied.
  const input = stage === 'micro' ? ids.known(messages) : (await idsFor()).entries;
  const events: CompactionEvent[] = [];
  let current: readonly ApiMessage[] = messages;
  let currentEntries: CompactionEntry[] = input;
  const out = await runCompaction(stage, input, run.used, {
    settings: s,
    tokensOf: run.tokensOf,
    fixedTokens: run.fixedTokens,
    signal: run.signal,
    automatic: true,
    ...(run.notes ? { notes: run.notes } : {}),
    ...(run.summarizer ? { summarizer: run.summarizer } : {}),
    reattach: run.reattach,
    onProgress: run.onProgress,
    onUnavailable: run.onUnavailable,
    now: run.now,
    onApplied: async (result, startedAt) => {
      // Ids were not loaded for an automatic microcompact; put them on now that it is kept.
      if (result.stage === 'micro' && currentEntries === input && loaded === undefined) {
        const { entries } = await idsFor();
        const at = new Map(input.map((e, i) => [e, i] as const));
        result = { ...result, replaced: result.replaced.map((r) => entries[at.get(r) ?? -1] ?? r) };
      }
      const meta = {
        durationMs: run.now() - startedAt,
        beforeEntries: currentEntries,
        view: loaded?.view,
        maxChars: s.toolResultChars,
      };
      events.push(await run.record(result, meta));
      current = result.entries.map((e) => e.message);
      currentEntries = result.entries;
    },
  });
  return { events, current, ...(out.failure ? { failure: out.failure } : {}) };
}
