// Compaction of a transcript on disk (`engram compact`): the current conversation (the chain after the
// last compact boundary) is loaded, measured by the same gauge a resumed session would keep, the stage
// picked (or planned from how full the window is), and the pipeline the live agent uses run over it in
// memory. Nothing is written unless asked (`write`): the caller gets the messages that would be sent next.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { transcriptProblems, type TranscriptProblem } from '../conversation/transcriptReader';
import type { ApiMessage } from '../conversation/types';
import { createAnthropicClient } from '../llm/anthropicClient';
import { modelReady, resolveModelConfig, type Env } from '../llm/modelConfig';
import type { EngramSettings } from '../settings/engramSettings';
import { transcriptEstimator } from '../tokens/historyEstimator';
import { countTokens, ensureTokenizer } from '../tokens/tokenizer';
import { gaugeOf } from '../tokens/transcriptGauge';
import { droppedFacts, emptyDropped } from './droppedFacts';
import type { SummarizerConfig } from './fullCompact';
import { fileNotesSource, sessionMemoryDir } from './notesSource';
import { planForUsage, runCompaction, type ChainStage, type StageFailure } from './pipeline';
import { resolveCompactionSettings, type CompactionSettings } from './settings';
import { loadTranscriptView } from './transcriptView';
import { writeCompactionBack } from './transcriptWriteBack';
import { tokensOfEstimator, type DroppedFacts } from './types';

export type { ChainStage };

/** The stages a transcript can be compacted with; `auto` picks by how full the window is. */
export const TRANSCRIPT_STAGES: readonly ChainStage[] = ['micro', 'session-memory', 'full', 'auto'];

/** The system prompt of a summary asked outside a session (there is no session prompt to share). */
const STANDALONE_SUMMARIZER_SYSTEM =
  'You write hand-over summaries of coding sessions for the assistant that continues them.';

export interface TranscriptCompactionInput {
  file: string;
  stage: ChainStage;
  /** The window, marks and keep bounds, as a live session of these settings would use them. */
  settings: EngramSettings;
  /** Keep bounds of session-memory compaction that may go below the settings' minimums (small transcripts). */
  keep?: Partial<Pick<CompactionSettings, 'keepMinTokens' | 'keepMaxTokens' | 'keepMinTextMessages'>>;
  /**
   * Session notes, which must be readable (else UnreadableNotesError); default:
   * `<dir>/<sessionId>/session-memory/summary.md`, used when present.
   */
  notesFile?: string;
  /** What a full summary should pay attention to (as `/compact TEXT`). */
  focus?: string;
  /** A full summary calls this model (default: the configured one), when `env` holds an API key. */
  model?: string;
  /** Where a full summary reaches Claude (`--provider`); default: Claude Code's environment, else the API. */
  provider?: string;
  env: Env;
  signal?: AbortSignal;
  /** Append the compaction to the transcript as the chat records it (`--write`). */
  write?: boolean;
  /** Long texts read back from disk (heldText.ts): for big files by default; true or false for any size. */
  holdBigTexts?: boolean;
}

export interface TranscriptCompaction {
  /** The last stage applied ('none' when nothing needed compacting). */
  stage: string;
  stages: string[];
  tokensBefore: number;
  tokensAfter: number;
  modelCalls: number;
  /** Index of the first message kept as it was. */
  keptFrom: number;
  /** What the conversation that would be sent next no longer carries of the one before (droppedFacts.ts). */
  dropped: DroppedFacts;
  /** The conversation that would be sent next (its long texts may be read back from the file, heldText.ts). */
  messages: ApiMessage[];
  /** Event ids of the compactions appended to the transcript (with `write`). */
  written?: string[];
  /** Lines skipped or repaired while reading, and a torn tail. */
  problems: TranscriptProblem[];
}

export type TranscriptCompactionOutcome =
  | { ok: true; result: TranscriptCompaction }
  /** `failure` is absent when the transcript holds no conversation at all. */
  | { ok: false; reason: string; failure?: Pick<StageFailure, 'code' | 'stage'>; problems: TranscriptProblem[] };

/** The notes file named for the compaction cannot be read. */
export class UnreadableNotesError extends Error {
  constructor(readonly file: string) {
    super(`Not a readable file: ${file}`);
    this.name = 'UnreadableNotesError';
  }
}

export async function compactTranscript(input: TranscriptCompactionInput): Promise<TranscriptCompactionOutcome> {
  // These counts are reported: the exact tokenizer, not the estimate it stands in for until loaded.
  await ensureTokenizer();
  const startedAt = Date.now();
  // The orchestrator's share of the settings, as the live session takes it.
  const keep = Object.fromEntries(Object.entries(input.keep ?? {}).filter(([, v]) => v !== undefined));
  const settings = resolveCompactionSettings({
    ...input.settings.compaction,
    contextWindow: input.settings.contextWindow,
    ...keep,
  });
  // A session never compacted is the whole file: its long texts stay on disk until read (heldText.ts).
  const { entries, problems, estimator, gauge, view } = await measured(input, settings.contextWindow);
  if (entries.length === 0) return { ok: false, reason: 'The transcript holds no conversation to compact.', problems };
  const notesFile = input.notesFile ?? path.join(sessionMemoryDir(input.file), 'summary.md');
  if (input.notesFile !== undefined) {
    try {
      await fsp.access(notesFile);
    } catch {
      throw new UnreadableNotesError(notesFile);
    }
  }
  const summarizer = standaloneSummarizer(input.env, input.model, input.provider);
  const chain = input.stage === 'auto' ? planForUsage(gauge.usedTokens, settings) : input.stage;
  const out =
    chain === 'none'
      ? { applied: [], entries }
      : await runCompaction(chain, entries, gauge.usedTokens, {
          settings,
          tokensOf: tokensOfEstimator(estimator),
          // What the usage reports beyond the messages (system prompt, tools) stays in every request.
          fixedTokens: gauge.breakdown.system,
          automatic: input.stage === 'auto',
          notes: fileNotesSource({ summaryFile: notesFile }),
          ...(summarizer ? { summarizer } : {}),
          ...(input.focus ? { focus: input.focus } : {}),
          ...(input.signal ? { signal: input.signal } : {}),
        });
  const failure = 'failure' in out ? out.failure : undefined;
  if (failure)
    return { ok: false, reason: failure.reason, failure: { code: failure.code, stage: failure.stage }, problems };

  const last = out.applied[out.applied.length - 1];
  const written =
    view && out.applied.length > 0
      ? await writeCompactionBack({
          file: input.file,
          view,
          applied: out.applied,
          trigger: input.stage === 'auto' ? 'auto' : 'manual',
          maxChars: settings.toolResultChars,
          durationMs: Date.now() - startedAt,
          ...(input.focus ? { focus: input.focus } : {}),
        })
      : undefined;
  return {
    ok: true,
    result: {
      stage: last?.stage ?? 'none',
      stages: out.applied.map((r) => r.stage),
      tokensBefore: gauge.usedTokens,
      tokensAfter: last?.tokensAfter ?? gauge.usedTokens,
      modelCalls: out.applied.reduce((n, r) => n + r.modelCalls, 0),
      keptFrom: last?.keptFrom ?? entries.length,
      // Over every applied stage at once: a trim and the notes after it may drop different facts.
      dropped:
        out.applied.length > 0
          ? droppedFacts(
              entries.map((e) => e.message),
              out.entries.map((e) => e.message),
            )
          : emptyDropped(),
      messages: out.entries.map((e) => e.message),
      ...(written ? { written } : {}),
      problems,
    },
  };
}

/**
 * The conversation's messages and its gauge as a resumed session would keep it. Exact counts for the
 * recent part only: old history is estimated from its length (historyEstimator.ts). The lines (each
 * with its session fields; a never-compacted session has every line of its file among them) are kept
 * only when the compaction is to be appended.
 */
async function measured(input: TranscriptCompactionInput, contextWindow: number) {
  const loaded = await loadTranscriptView(input.file, { holdBigTexts: input.holdBigTexts ?? 'big-files' });
  const estimator = transcriptEstimator(loaded, countTokens, contextWindow);
  return {
    entries: loaded.entries,
    problems: transcriptProblems(input.file, loaded),
    estimator,
    gauge: gaugeOf(loaded.lines, loaded.entries, estimator),
    view: input.write ? loaded : undefined,
  };
}

function standaloneSummarizer(
  env: Env,
  model: string | undefined,
  provider: string | undefined,
): SummarizerConfig | undefined {
  const chosen = provider !== undefined ? { provider, providerFromFlag: true } : {};
  const config = resolveModelConfig({ model, ...chosen }, env, undefined);
  if (!modelReady(config)) return undefined;
  return {
    client: createAnthropicClient(config),
    model: config.model,
    maxTokens: config.maxOutputTokens,
    system: [{ type: 'text', text: STANDALONE_SUMMARIZER_SYSTEM }],
    tools: [],
  };
}
