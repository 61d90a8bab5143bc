// Shapes shared by the compaction stages. A stage reads a conversation as entries (an API message and
// the transcript lines it came from) and returns a new conversation; it never changes its input, so the
// caller can keep the old list for undo and the transcript keeps every original line.
import type { NormalisedEntry } from '../conversation/normalise';
import type { ApiMessage } from '../conversation/types';
import { TokenEstimator } from '../tokens/accounting';

/** One API message with its transcript line uuids and assistant message ids (empty when not known). */
export type CompactionEntry = NormalisedEntry;

export type CompactionStage = 'micro' | 'session-memory' | 'full' | 'reactive';
export type CompactionTrigger = 'auto' | 'manual' | 'reactive';

/** Token count of one message (cached by the caller's estimator, so repeated calls are cheap). */
export type TokensOf = (message: ApiMessage) => number;

export interface CompactionResult {
  stage: CompactionStage;
  /** The new conversation, as it will be sent. */
  entries: CompactionEntry[];
  /**
   * Index (in the input) of the first message kept verbatim from there to the end; input.length when
   * none is. Microcompact: the first message after the last one it changed.
   */
  keptFrom: number;
  /** Input entries this stage replaced (summarised, dropped or trimmed), in order. */
  replaced: CompactionEntry[];
  /** Text of the user message that opens the new conversation (not for microcompact). */
  summaryText?: string;
  /**
   * The part of summaryText a person may edit before a manual compaction applies: the model's summary
   * (inside <summary>) or the session notes (inside <session-notes>). Absent for the other stages.
   */
  summaryBody?: string;
  /** The facts of `replaced` that the new conversation no longer carries (droppedFacts.ts). */
  dropped?: DroppedFacts;
  /** Tool results that microcompact trimmed (their ids), so an undo can restore them. */
  trimmedToolUseIds?: string[];
  tokensBefore: number;
  tokensAfter: number;
  modelCalls: number;
}

/** Facts of replaced messages: file paths read or edited, commands run, error lines, the person's messages. */
export interface DroppedFacts {
  paths: string[];
  commands: string[];
  errors: string[];
  userMessages: string[];
}

export type UnavailableCode =
  | 'no-notes'
  | 'empty-notes'
  | 'cursor-lost'
  | 'nothing-to-compact'
  | 'still-over'
  | 'no-model'
  | 'model-error'
  | 'empty-summary'
  /** The model answered with something else than a summary (a tool call, no sections), twice. */
  | 'invalid-summary'
  | 'cancelled'
  | 'busy'
  /** A prepared manual compaction was applied after the conversation had moved on (or was already used). */
  | 'conversation-changed'
  /** The summary a person edited before applying cannot replace the conversation (empty, a section lost). */
  | 'invalid-edit';

export type StageOutcome =
  | { ok: true; result: CompactionResult }
  | { ok: false; stage: CompactionStage; code: UnavailableCode; reason: string };

export function unavailable(stage: CompactionStage, code: UnavailableCode, reason: string): StageOutcome {
  return { ok: false, stage, code, reason };
}

/** Entries for messages whose transcript lines are not known (tests, an agent without transcript). */
export function entriesOf(messages: readonly ApiMessage[]): CompactionEntry[] {
  return messages.map((message) => ({ message, uuids: [], messageIds: [] }));
}

/** A per-message counter over a TokenEstimator (its per-block cache makes re-counting history free). */
export function tokensOfEstimator(estimator: TokenEstimator = new TokenEstimator()): TokensOf {
  return (m) => {
    const t = estimator.message(m);
    return t.messages + t.toolResults;
  };
}

export function sumTokens(
  entries: readonly CompactionEntry[],
  tokensOf: TokensOf,
  from = 0,
  to = entries.length,
): number {
  let total = 0;
  for (let i = from; i < to; i++) total += tokensOf(entries[i].message);
  return total;
}
