// A manual compaction in two steps, so a person can read (and edit) the summary before it replaces the
// conversation:
//
//   prepare(stage, focus) --> prepared (the cut and the summary or notes; the conversation unchanged)
//   prepared --apply(edited?)--> applied (recorded, undoable, as a compaction applied at once)
//   prepared --cancel() or a newer prepare--> dropped
//
// Apply checks that the conversation is still the one the plan was computed on (same messages, same
// agent); if anything moved it on (a turn, an automatic compaction, an undo) nothing is applied and it
// says so. An edited summary keeps the cut: only the body changes (summaryEdit.ts), and the event and
// the transcript record mark it as edited. `compactNow` is prepare then apply with nothing edited.
import type { Agent } from '../agent/agent';
import type { ApiMessage } from '../conversation/types';
import type { ConversationIds } from './conversationIds';
import type { CompactionEvent } from './events';
import type { PinsCarried } from './pinnedBlock';
import { summarizerOf, type CompactProgress } from './fullCompact';
import type { NotesSource } from './notesSource';
import { runCompaction, type ChainStage, type StageFailure } from './pipeline';
import type { CompactionSettings } from './settings';
import { reviewTextOf, withEditedBody, type ReviewText } from './summaryEdit';
import type { TranscriptView } from './transcriptView';
import type { CompactionEntry, CompactionResult, DroppedFacts, TokensOf, UnavailableCode } from './types';

export interface CompactNowResult {
  ok: boolean;
  events: CompactionEvent[];
  code?: UnavailableCode;
  reason?: string;
}

/** One stage of the plan: its result, the conversation it was computed on, and how long it took. */
interface PlannedStep {
  result: CompactionResult;
  before: CompactionEntry[];
  durationMs: number;
}

/** A computed, not yet applied, manual compaction. Only the orchestrator that prepared it can apply it. */
export interface PreparedCompaction {
  readonly stage: ChainStage;
  readonly focus?: string;
  /** The summary or notes to review; absent when no stage of the plan writes one (microcompact, a failure). */
  readonly review?: ReviewText;
  /** Why the chain stopped short; the stages before it still apply, as they would at once. */
  readonly failure?: { code: UnavailableCode; reason: string };
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** What the reviewed stage drops as written (droppedFacts.ts). */
  readonly dropped?: DroppedFacts;
}

interface Plan extends PreparedCompaction {
  agent: Agent | undefined;
  messages: readonly ApiMessage[];
  steps: PlannedStep[];
  view: TranscriptView | undefined;
  /** The trim limit the plan was computed with (recorded with the cuts, so a reader replays the same). */
  maxChars: number;
}

export interface RecordMeta {
  durationMs: number;
  beforeEntries: readonly CompactionEntry[];
  view: TranscriptView | undefined;
  maxChars: number;
  focus?: string;
  summaryEdited?: boolean;
  /** Pins carried after the summary (set by the orchestrator, which built the block). */
  pinsCarried?: PinsCarried;
  /** The instruction files in the system prompt rebuilt after it (the orchestrator adds them). */
  keptInstructions?: readonly string[];
}

/** What the orchestrator lends a manual compaction. */
export interface ManualHost {
  agent(): Agent | undefined;
  readonly ids: ConversationIds;
  settings(): CompactionSettings;
  readonly tokensOf: TokensOf;
  readonly notes: NotesSource | undefined;
  fixedTokens(): number;
  usedTokens(messages: readonly ApiMessage[]): number;
  reattach(): Promise<string>;
  now(): number;
  progress(progress: CompactProgress): void;
  unavailable(failure: StageFailure): void;
  failed(failure: StageFailure): void;
  record(result: CompactionResult, meta: RecordMeta): Promise<CompactionEvent>;
  /** After the stages were recorded and the agent holds the new conversation. */
  applied(events: CompactionEvent[], before: readonly ApiMessage[], after: readonly ApiMessage[]): void;
}

export class ManualCompactions {
  private running = false;
  /** The one plan that can still be applied. */
  private pending: Plan | undefined;

  constructor(private readonly host: ManualHost) {}

  get busy(): boolean {
    return this.running;
  }

  async prepare(stage: ChainStage, focus?: string, signal?: AbortSignal): Promise<PreparedCompaction> {
    const host = this.host;
    const agent = host.agent();
    if (!agent) return refusedPlan(stage, 'busy', 'No conversation is attached.');
    if (agent.busy || this.running)
      return refusedPlan(stage, 'busy', 'Wait for the current turn or compaction to finish, then compact.');
    this.pending = undefined; // a newer plan replaces one still under review
    const messages = agent.messages.slice();
    const settings = host.settings();
    const steps: PlannedStep[] = [];
    this.running = true;
    try {
      const { entries, view } = await host.ids.withLines(messages, agent.transcript);
      const used = host.usedTokens(messages);
      const summarizer = summarizerOf(agent);
      let before = entries;
      const out = await runCompaction(stage, entries, used, {
        settings,
        tokensOf: host.tokensOf,
        fixedTokens: host.fixedTokens(),
        automatic: false,
        ...(host.notes ? { notes: host.notes } : {}),
        ...(summarizer ? { summarizer } : {}),
        ...(focus ? { focus } : {}),
        ...(signal ? { signal } : {}),
        reattach: () => host.reattach(),
        onProgress: (p) => host.progress(p),
        onUnavailable: (f) => host.unavailable(f),
        now: () => host.now(),
        onApplied: (result, startedAt) => {
          steps.push({ result, before, durationMs: host.now() - startedAt });
          before = result.entries;
        },
      });
      if (out.failure) host.failed(out.failure);
      const last = steps[steps.length - 1]?.result;
      const review = last && !out.failure ? reviewTextOf(last) : undefined;
      const plan: Plan = {
        stage,
        ...(focus ? { focus } : {}),
        ...(review ? { review } : {}),
        ...(review && last?.dropped ? { dropped: last.dropped } : {}),
        ...(out.failure ? { failure: { code: out.failure.code, reason: out.failure.reason } } : {}),
        tokensBefore: used,
        tokensAfter: last?.tokensAfter ?? used,
        agent,
        messages,
        steps,
        view,
        maxChars: settings.toolResultChars,
      };
      this.pending = plan;
      return plan;
    } finally {
      this.running = false;
    }
  }

  /** Applies a prepared compaction, with `edited` in place of its summary (or notes) when given. */
  async apply(prepared: PreparedCompaction, edited?: string): Promise<CompactNowResult> {
    if (!('steps' in prepared))
      return refused(prepared.failure?.code ?? 'busy', prepared.failure?.reason ?? 'Nothing was prepared.');
    const plan = prepared as Plan;
    if (plan !== this.pending) {
      return refused(
        'conversation-changed',
        'This compaction was already applied or cancelled, or a newer one was prepared. Compact again.',
      );
    }
    const agent = this.host.agent();
    if (agent?.busy || this.running)
      return refused('busy', 'Wait for the current turn or compaction to finish, then apply.');
    if (!agent || agent !== plan.agent || !sameMessages(agent.messages, plan.messages)) {
      this.pending = undefined;
      return refused(
        'conversation-changed',
        'The conversation changed after the summary was written (a message, a compaction or an undo); ' +
          'nothing was applied. Compact again.',
      );
    }
    if (plan.steps.length === 0) {
      this.pending = undefined;
      return refused(
        plan.failure?.code ?? 'nothing-to-compact',
        plan.failure?.reason ?? 'There is nothing to compact.',
      );
    }
    let steps = plan.steps;
    let summaryEdited = false;
    if (edited !== undefined) {
      const last = steps[steps.length - 1];
      const out = withEditedBody(last.result, last.before, edited, this.host.tokensOf);
      // Still pending: the person can fix the text and apply again.
      if (!out.ok) return refused('invalid-edit', out.reason);
      summaryEdited = out.edited;
      steps = [...steps.slice(0, -1), { ...last, result: out.result }];
    }
    this.pending = undefined;
    const events: CompactionEvent[] = [];
    for (const [i, step] of steps.entries()) {
      events.push(
        await this.host.record(step.result, {
          durationMs: step.durationMs,
          beforeEntries: step.before,
          view: plan.view,
          maxChars: plan.maxChars,
          ...(plan.focus ? { focus: plan.focus } : {}),
          ...(summaryEdited && i === steps.length - 1 ? { summaryEdited: true } : {}),
        }),
      );
    }
    const after = steps[steps.length - 1].result.entries.map((e) => e.message);
    agent.replaceMessages(after);
    this.host.applied(events, plan.messages, after);
    const failure = plan.failure;
    return { ok: failure === undefined, events, ...(failure ? { code: failure.code, reason: failure.reason } : {}) };
  }

  /** What the reviewed stage drops with `edited` as its body; as written when the edit cannot apply. */
  droppedWith(prepared: PreparedCompaction, edited: string): DroppedFacts | undefined {
    const last = 'steps' in prepared ? (prepared as Plan).steps.at(-1) : undefined;
    if (!last) return undefined;
    const out = withEditedBody(last.result, last.before, edited, this.host.tokensOf);
    return out.ok ? out.result.dropped : last.result.dropped;
  }

  /** Drops a prepared compaction; false when it was not the pending one. */
  cancel(prepared: PreparedCompaction): boolean {
    if (this.pending !== prepared) return false;
    this.pending = undefined;
    return true;
  }
}

function refused(code: UnavailableCode, reason: string): CompactNowResult {
  return { ok: false, events: [], code, reason };
}

function refusedPlan(stage: ChainStage, code: UnavailableCode, reason: string): PreparedCompaction {
  return { stage, failure: { code, reason }, tokensBefore: 0, tokensAfter: 0 };
}

/**
 * The same conversation: the same message objects in the same order (a turn, a compaction or an undo
 * makes new ones).
 */
function sameMessages(a: readonly ApiMessage[], b: readonly ApiMessage[]): boolean {
  return a.length === b.length && a.every((m, i) => m === b[i]);
}
