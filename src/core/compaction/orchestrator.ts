// Runs compaction for one live conversation (DESIGN 5): before every model call it measures the context
// (the last response's usage plus an estimate of what came after) and applies the stage its mark calls
// for; it recovers from "prompt is too long"; it offers the manual commands; it records every
// compaction in the transcript and as an event; it undoes the last one.
//
//   state        auto on --(3 failures in a row)--> stopped, "auto compaction stopped" event
//                stopped --(a manual compaction succeeds, or setAuto(true))--> auto on
//
// One orchestrator per agent. `mainThread: false` (a sub-agent) leaves shared per-conversation state (the
// agent's file-read records) alone, so a sub-agent's compaction cannot disturb the main one. What it
// delegates: running the automatic stages (automaticCompaction.ts) and the reactive one (reactiveRecovery.ts),
// counting failures (autoCompactionBreaker.ts), the records, timeline and undo (compactionLedger.ts), what
// goes after a summary (postCompact.ts, pins first); what stays here is when each runs and what follows it.
import type { Agent, ModelCallContext } from '../agent/agent';
import type { Pin } from '../conversation/pinLines';
import type { ApiMessage } from '../conversation/types';
import type { PromptTooLongError } from '../llm/errors';
import type { ModelResponse } from '../llm/modelClient';
import { silentLogger, systemClock, type Clock, type Logger } from '../ports';
import { defaultTokenCounter, type TokenEstimator } from '../tokens/accounting';
import { ContextGauge } from '../tokens/contextGauge';
import { AutoCompactionBreaker } from './autoCompactionBreaker';
import { runAutomaticStages } from './automaticCompaction';
import { CacheHints } from './cacheHints';
import { CompactionLedger } from './compactionLedger';
import { ConversationIds } from './conversationIds';
import type { CompactionEvent } from './events';
import { summarizerOf } from './fullCompact';
import { ManualCompactions, type CompactNowResult, type PreparedCompaction, type RecordMeta } from './manualCompaction';
import type { NotesSource } from './notesSource';
import { planForUsage, type ChainStage, type StageFailure } from './pipeline';
import { forgetReads, pinsText, reattachRecent, type ReattachResult } from './postCompact';
import { shrinkTooLongConversation } from './reactiveRecovery';
import type { ReattachInputs } from './reattach';
import { resolveCompactionSettings, type CompactionSettings } from './settings';
import type { CompactionResult, CompactionTrigger, TokensOf } from './types';
import type { OrchestratorEvent } from './orchestratorEvents';

export type { OrchestratorEvent } from './orchestratorEvents';

export interface OrchestratorOptions {
  settings?: Partial<CompactionSettings>;
  /** Default true. False for a sub-agent: shared per-conversation state is not reset. */
  mainThread?: boolean;
  notes?: NotesSource;
  /** Rebuilds the system prompt after a stage, before it is recorded; resolves to the instruction files in it. */
  refreshSystem?(): Promise<readonly string[] | undefined>;
  /** Instructions and memory index to re-attach (when they are not in the system prompt already). */
  reattachContext?(): Promise<Pick<ReattachInputs, 'instructions' | 'memoryIndex'>>;
  /** Reads a file to re-attach; undefined when it is gone. Default: from disk as UTF-8. */
  readFile?(path: string): Promise<string | undefined>;
  /**
   * The context gauge to decide on: the one the host shows, so the number on screen is the number
   * compaction acts on. Default: a gauge of its own (built from `estimator` and `countTokens`).
   */
  gauge?: ContextGauge;
  estimator?: TokenEstimator;
  countTokens?(text: string): number;
  clock?: Clock;
  newId?(): string;
  logger?: Logger;
  /** Compactions recorded before (a resumed session, recordedEvents): the newest can be undone. */
  events?: readonly CompactionEvent[];
  /** The pins in force, carried after every summary within the pin budget (pinnedBlock.ts). */
  pins?(): readonly Pin[];
}

export type { CompactNowResult, PreparedCompaction };

export class CompactionOrchestrator {
  private settingsValue: CompactionSettings;
  private agent: Agent | undefined;
  private readonly listeners = new Set<(e: OrchestratorEvent) => void>();
  private readonly tokensOf: TokensOf;
  private readonly countTokens: (text: string) => number;
  /** The gauge it decides on (the host's, when one was given). */
  readonly gauge: ContextGauge;
  private readonly ids: ConversationIds;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly breaker: AutoCompactionBreaker;
  /** The transcript records, the timeline and what an exact undo needs. */
  private readonly ledger: CompactionLedger;
  private reactiveAttempts = 0;
  /** Files the last summarising stage re-attached whole, and what it carried of the pins (for its event). */
  private reattachedWhole: string[] = [];
  private pinsCarried: ReattachResult['pins'];
  /** "Compact Now" and `/compact`: prepared, then applied (at once, or after the person reviewed the summary). */
  private readonly manual: ManualCompactions;
  /** Where the next calls can read the cache after a trim (breakpoint hints for the agent). */
  readonly cacheHints = new CacheHints();

  constructor(private readonly opts: OrchestratorOptions = {}) {
    this.settingsValue = resolveCompactionSettings(opts.settings);
    this.countTokens = opts.countTokens ?? defaultTokenCounter;
    const gauge =
      opts.gauge ??
      new ContextGauge({ ...(opts.estimator ? { estimator: opts.estimator } : {}), count: this.countTokens });
    this.gauge = gauge;
    this.tokensOf = (m) => gauge.tokensOf(m);
    this.clock = opts.clock ?? systemClock;
    this.logger = opts.logger ?? silentLogger;
    this.ids = new ConversationIds(this.logger);
    this.breaker = new AutoCompactionBreaker(() => this.settingsValue.maxConsecutiveFailures);
    this.ledger = new CompactionLedger({
      ...(opts.events ? { events: opts.events } : {}),
      ids: this.ids,
      clock: this.clock,
      logger: this.logger,
      ...(opts.newId ? { newId: opts.newId } : {}),
      transcript: () => this.agent?.transcript,
    });
    this.manual = new ManualCompactions({
      agent: () => this.agent,
      ids: this.ids,
      settings: () => this.settingsValue,
      tokensOf: this.tokensOf,
      notes: opts.notes,
      fixedTokens: () => this.fixedTokens(),
      usedTokens: (m) => this.usedTokens(m),
      reattach: () => this.reattachText(),
      now: () => this.clock.now(),
      progress: (progress) => this.emit({ type: 'progress', stage: 'full', trigger: 'manual', progress }),
      unavailable: (f) =>
        this.emit({ type: 'unavailable', stage: f.stage, trigger: 'manual', code: f.code, reason: f.reason }),
      failed: (f) => this.fail(f, 'manual'),
      record: (result, meta) => this.applyRecorded(result, 'manual', meta),
      applied: (events, before, after) => {
        this.afterApplied(events, before, after);
        if (this.breaker.stopped) this.setAuto(true);
      },
    });
  }

  get settings(): CompactionSettings {
    return this.settingsValue;
  }

  updateSettings(given: Partial<CompactionSettings>): void {
    this.settingsValue = resolveCompactionSettings({ ...this.settingsValue, ...given });
  }

  /** False after too many failures in a row (until a manual compaction succeeds or setAuto(true)). */
  get autoActive(): boolean {
    return this.settingsValue.auto && !this.breaker.stopped;
  }

  setAuto(on: boolean): void {
    this.updateSettings({ auto: on });
    if (on) this.breaker.reset();
  }

  /** Every compaction of this conversation so far, oldest first. */
  get events(): readonly CompactionEvent[] {
    return this.ledger.events;
  }

  on(listener: (e: OrchestratorEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hooks into the agent: before each model call, on "prompt is too long", and after each response. */
  attach(agent: Agent): () => void {
    this.agent = agent;
    agent.setCompactionHandlers({
      beforeModelCall: (ctx) => this.beforeModelCall(ctx),
      recoverPromptTooLong: (ctx) => this.recoverPromptTooLong(ctx.error, ctx.messages),
      cacheHints: (messages) => this.cacheHints.next(messages),
    });
    const off = agent.hooks.afterModelResponse.add('compaction', ({ response, messages }) =>
      this.onResponse(response, messages),
    );
    return () => {
      off();
      agent.setCompactionHandlers({});
      if (this.agent === agent) this.agent = undefined;
    };
  }

  /** Context used by `messages` now: the last usage report plus estimates of what came after it. */
  usedTokens(messages: readonly ApiMessage[]): number {
    this.sizeSystem();
    return this.gauge.used(messages);
  }

  async beforeModelCall(ctx: ModelCallContext): Promise<ApiMessage[] | undefined> {
    if (!this.autoActive) return undefined;
    const used = this.usedTokens(ctx.messages);
    const plan = planForUsage(used, this.settingsValue);
    if (plan === 'none') return undefined;
    return this.run(plan, ctx.messages, used, ctx.signal);
  }

  /** The reactive stage: called by the loop with the conversation the API found too long. */
  async recoverPromptTooLong(
    error: PromptTooLongError,
    messages: readonly ApiMessage[],
  ): Promise<ApiMessage[] | undefined> {
    const s = this.settingsValue;
    if (!s.reactive) return undefined;
    const attempt = ++this.reactiveAttempts;
    if (attempt > s.maxReactiveRetries) return undefined;
    const started = this.clock.now();
    // Recovery re-attaches no files, only the pins: it must make room, not take it.
    const pinned = pinsText(this.opts.pins?.() ?? [], s, this.countTokens);
    [this.reattachedWhole, this.pinsCarried] = [[], pinned.carried];
    const { entries, view } = await this.ids.withLines(messages, this.agent?.transcript);
    const out = await shrinkTooLongConversation({
      entries,
      error,
      attempt,
      settings: s,
      tokensOf: this.tokensOf,
      fixedTokens: this.fixedTokens(),
      tokensBefore: error.promptTokens ?? this.usedTokens(messages),
      notes: this.opts.notes,
      summarizer: summarizerOf(this.agent),
      reattach: pinned.text,
      onProgress: (progress) => this.emit({ type: 'progress', stage: 'full', trigger: 'reactive', progress }),
    });
    if (!out.ok) {
      this.fail(out, 'reactive');
      return undefined;
    }
    const event = await this.applyRecorded(out.result, 'reactive', {
      durationMs: this.clock.now() - started,
      beforeEntries: entries,
      view,
      maxChars: s.toolResultChars,
    });
    this.afterCompaction([event]);
    return out.result.entries.map((e) => e.message);
  }

  /** The commands: Compact Now (auto), Microcompact, Compact with Session Notes, Full Compact, `/compact`. */
  async compactNow(stage: ChainStage, focus?: string, signal?: AbortSignal): Promise<CompactNowResult> {
    return this.manual.apply(await this.manual.prepare(stage, focus, signal));
  }

  /** A manual compaction computed (the summary written) but not applied: for the person to review first. */
  prepareCompaction(stage: ChainStage, focus?: string, signal?: AbortSignal): Promise<PreparedCompaction> {
    return this.manual.prepare(stage, focus, signal);
  }

  /** Applies what prepareCompaction computed, with `editedText` as its summary (or notes) when given. */
  applyCompaction(prepared: PreparedCompaction, editedText?: string): Promise<CompactNowResult> {
    return this.manual.apply(prepared, editedText);
  }

  /** What a prepared compaction would drop with `editedText` as its summary (the preview's live list). */
  droppedWith(prepared: PreparedCompaction, editedText: string): PreparedCompaction['dropped'] {
    return this.manual.droppedWith(prepared, editedText);
  }

  /** Drops a prepared compaction: the conversation stays as it is. */
  cancelCompaction(prepared: PreparedCompaction): boolean {
    return this.manual.cancel(prepared);
  }

  /** Puts back what the last compaction replaced (messages added since stay). False when it cannot. */
  async undoLast(): Promise<boolean> {
    const agent = this.agent;
    if (!agent || agent.busy || this.manual.busy || !this.ledger.newest) return false;
    const current = agent.messages.slice();
    const out = await this.ledger.undoNewest(current, this.usedTokens(current));
    if (!out) return false;
    agent.replaceMessages(out.restored);
    this.gauge.forget();
    this.emit({ type: 'undone', event: out.undone });
    return true;
  }

  // ---- internals ----

  /** Automatic compaction before a model call (manual ones go through ManualCompactions). */
  private async run(
    stage: ChainStage | 'none',
    messages: readonly ApiMessage[],
    used: number,
    signal: AbortSignal,
  ): Promise<ApiMessage[] | undefined> {
    if (stage === 'none') return undefined;
    const trigger = 'auto';
    const { events, current, failure } = await runAutomaticStages({
      stage,
      messages,
      used,
      signal,
      settings: this.settingsValue,
      ids: this.ids,
      transcript: this.agent?.transcript,
      tokensOf: this.tokensOf,
      fixedTokens: this.fixedTokens(),
      notes: this.opts.notes,
      summarizer: summarizerOf(this.agent),
      reattach: () => this.reattachText(),
      now: () => this.clock.now(),
      onProgress: (progress) => this.emit({ type: 'progress', stage: 'full', trigger, progress }),
      onUnavailable: (f) => this.emit({ type: 'unavailable', stage: f.stage, trigger, code: f.code, reason: f.reason }),
      record: (result, meta) => this.applyRecorded(result, trigger, meta),
    });
    if (failure && failure.code !== 'nothing-to-compact') this.fail(failure, trigger);
    this.afterApplied(events, messages, current);
    return events.length > 0 ? current.slice() : undefined;
  }

  /** After stages were applied: state reset, and the cache hints told what changed. */
  private afterApplied(events: CompactionEvent[], before: readonly ApiMessage[], after: readonly ApiMessage[]): void {
    this.afterCompaction(events);
    if (events.length > 0 && events.every((e) => e.stage === 'micro')) this.cacheHints.noteTrim(before, after);
    else if (events.length > 0) this.cacheHints.forget();
  }

  /** Records a stage in the transcript and the timeline, and keeps what an exact undo needs. */
  private async applyRecorded(
    result: CompactionResult,
    trigger: CompactionTrigger,
    m: RecordMeta,
  ): Promise<CompactionEvent> {
    const pins = result.summaryText !== undefined && this.pinsCarried ? { pinsCarried: this.pinsCarried } : {};
    const kept = await this.opts.refreshSystem?.();
    const event = await this.ledger.record(result, trigger, {
      ...m,
      ...pins,
      ...(kept ? { keptInstructions: kept } : {}),
    });
    this.emit({ type: 'compacted', event });
    return event;
  }

  private afterCompaction(events: CompactionEvent[]): void {
    if (events.length === 0) return;
    this.breaker.succeeded();
    this.gauge.forget(); // the last usage described the old list
    if (!(this.opts.mainThread ?? true) || !this.agent) return;
    if (events.some((e) => e.stage !== 'micro')) forgetReads(this.agent.readFiles, this.reattachedWhole);
  }

  /** Tells the user of a failed stage; an automatic or reactive one counts toward the breaker. */
  private fail(failure: StageFailure, trigger: CompactionTrigger): void {
    const stopReason = trigger === 'manual' ? undefined : this.breaker.countFailure(trigger === 'auto', failure.reason);
    this.emit({
      type: 'failed',
      stage: failure.stage,
      trigger,
      code: failure.code,
      reason: failure.reason,
      consecutiveFailures: this.breaker.failures,
    });
    if (stopReason !== undefined) {
      this.emit({ type: 'autoCompactionStopped', failures: this.breaker.failures, reason: stopReason });
    }
  }

  private onResponse(response: ModelResponse, messages: readonly ApiMessage[]): void {
    this.sizeSystem();
    this.gauge.onResponse(response.usage, messages);
    const last = messages[messages.length - 1];
    if (last) this.ids.noteResponse(last, response.id);
    this.reactiveAttempts = 0;
  }

  private fixedTokens(): number {
    return this.sizeSystem() ? this.gauge.fixedTokens : 0;
  }

  /** The agent's prompt and tools, sized by the gauge (a no-op while they are the ones it has). */
  private sizeSystem(): boolean {
    if (this.agent) this.gauge.setSystem(this.agent.systemPrompt, this.agent.offeredTools);
    return this.agent !== undefined;
  }

  private async reattachText(): Promise<string> {
    const agent = this.agent;
    const context = agent ? ((await this.opts.reattachContext?.()) ?? {}) : {};
    const r = agent
      ? await reattachRecent(agent.readFiles, this.settingsValue, {
          ...(this.opts.readFile ? { readFile: this.opts.readFile } : {}),
          context,
          countTokens: this.countTokens,
          pins: this.opts.pins?.() ?? [],
        })
      : undefined;
    [this.reattachedWhole, this.pinsCarried] = [r?.whole ?? [], r?.pins];
    return r?.text ?? '';
  }

  private emit(e: OrchestratorEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        this.logger.error('A compaction event listener threw', err);
      }
    }
  }
}
