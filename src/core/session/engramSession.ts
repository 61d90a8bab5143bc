// One Engram session, the same for every host: the agent on its transcript with the memory engine around
// it (session notes, auto memory, team memory, the compaction orchestrator; wired in sessionParts.ts), the
// system prompt rebuilt after a compaction, the timeline as data and one event stream (sessionReporter.ts).
// The Chat view and `engram -p` open it with `openEngramSession` (openEngramSession.ts) and only translate
// its events for their surface, so both behave alike and the behaviour is tested once. This file holds
// what a host drives: turns, compactions, undo, rewinds to a turn (sessionRewind.ts), team syncs, and the
// end of the session.
//
//   openEngramSession --> open --runTurn/compactNow/undo...--> open --finish()--> finished
//   settings changes (SettingsStore.onChange) reach the orchestrator and the gauge while open.
import type { ProviderId } from '../llm/providerTypes';
import type { Agent, TurnOptions, TurnResult } from '../agent/agent';
import type { CompactionOrchestrator, CompactNowResult } from '../compaction/orchestrator';
import { planForUsage, type AutoPlan, type ChainStage } from '../compaction/pipeline';
import type { TimelineEntry } from '../inspection/timeline';
import { memorySlots, prepareAutoMemoryIn, type AutoMemoryHandle } from '../memory/autoMemory/attach';
import { rememberPrompt } from '../memory/autoMemory/memoryPrompts';
import type { InstructionFile } from '../memory/instructions';
import type { SessionPaths } from '../memory/sessionPaths';
import type { SessionNotes } from '../memory/sessionNotes/updater';
import type { TeamSyncReport } from '../memory/team/teamSyncTypes';
import type { McpHub } from '../mcp/mcpHub';
import type { Logger } from '../ports';
import type { EngramSettings, SettingsSource } from '../settings/engramSettings';
import { sessionSystemPrompt, type OpenedSession } from './agentSession';
import { nextPromptOf, type PromptCacheTracker } from './promptCacheTracker';
import { countPromptTokens } from './promptTokenCount';
import { markNotRelevant } from './recallFeedback';
import { say, type SessionEventListener } from './sessionEvents';
import { wireSessionParts, type OpenedParts } from './sessionParts';
import { SessionPins } from './sessionPins';
import { wireMcp } from './sessionMcp';
import { SessionReporter } from './sessionReporter';
import type { SessionCheckpoints, SessionCheckpointStore } from './sessionCheckpoints';
import type { RewindForce, RewindOutcome, RewindPlan, RewindRequest, SessionTurn } from './rewindTypes';
import {
  applySessionRewind,
  liveRewindTarget,
  planSessionRewind,
  sessionTurns,
  undoSessionRewind,
  type RewindTarget,
} from './sessionRewind';
import type { EngramSessionSetup } from './sessionSetup';
import type { TeamMemoryLink, TeamMemoryState } from './teamMemoryLink';
import type { TranscriptGuard } from './transcriptGuard';

/** What opening made or decided, handed to the session (openEngramSession.ts). */
export interface SessionOpening extends OpenedParts {
  /** Why team memory is off or not loaded, for the session's warnings. */
  teamWarnings: readonly string[];
  /** The prompt cache's state, fed by the session's wrapped model client (promptCacheTracker.ts). */
  promptCache: PromptCacheTracker;
}

export class EngramSession {
  readonly agent: Agent;
  readonly sessionId: string;
  readonly transcriptPath: string;
  /** Where this session's files are, worked out once as it opened (memory/sessionPaths.ts). */
  readonly paths: SessionPaths;
  readonly resumed: OpenedSession['resumed'];
  /** Warnings of opening (unreadable lines, instructions, the memory index's cap), for the host to show. */
  readonly warnings: readonly string[];
  /** What opening did that a person must hear of once (memories recovered), for the host to show always. */
  readonly notices: readonly string[];
  readonly notes: SessionNotes | undefined;
  readonly memory: AutoMemoryHandle | undefined;
  readonly compaction: CompactionOrchestrator;
  /** Whether the prompt cache is warm and what the next message costs (the cost line). */
  readonly promptCache: PromptCacheTracker;
  /** Notes updates, memory writes and compactions of this session, oldest first. */
  readonly timeline: TimelineEntry[];
  /** What the person pinned: recorded in the transcript, carried after every summary. */
  readonly pins: SessionPins;
  /** The workspace's checkpoints for this session (issue 33); undefined when not opened (untrusted). */
  readonly checkpoints: SessionCheckpointStore | undefined;
  private readonly checkpointTurns: SessionCheckpoints | undefined;
  private readonly reporter: SessionReporter;
  private readonly disposers: Array<() => void>;
  private finished = false;
  private readonly guard: TranscriptGuard | undefined;
  private readonly setup: EngramSessionSetup;
  private readonly store: SettingsSource;
  private readonly logger: Logger;
  private readonly team: TeamMemoryLink;
  private instructionFilesNow: readonly InstructionFile[];

  /** Use openEngramSession. */
  constructor(opening: SessionOpening) {
    const { opened, memory } = opening;
    this.agent = opened.agent;
    this.sessionId = opened.sessionId;
    this.transcriptPath = opened.transcriptPath;
    this.paths = opening.paths;
    this.resumed = opened.resumed;
    this.guard = opened.guard;
    this.setup = opening.setup;
    this.store = opening.store;
    this.logger = opening.logger;
    this.team = opening.team;
    this.instructionFilesNow = opened.instructionFiles;
    this.reporter = new SessionReporter(opening.logger);
    this.timeline = this.reporter.timeline;
    this.warnings = [
      ...(memory?.index.warnings ?? []).map((w) => `Memory: ${w}`),
      ...(memory?.team?.index.warnings ?? []).map((w) => `Team memory: ${w}`),
      ...opening.teamWarnings,
      ...opened.warnings,
      ...(memory?.recovery?.problems ?? []).map((w) => `Memory: ${w}`),
    ];
    this.notices = memory?.recovery?.notices ?? [];
    this.pins = new SessionPins(opened.agent.transcript, opened.sessionId, opening.pinLines);
    this.pins.on((pins) => this.reporter.emit({ type: 'pins', pins }));
    // Before the parts' listeners: the surfaces they tell of a swapped conversation read the cost line at once.
    this.promptCache = opening.promptCache;
    const replaced = opened.agent.on((e) => {
      if (e.type === 'conversationReplaced') this.promptCache.onConversationReplaced();
    });
    const parts = wireSessionParts({
      ...opening,
      reporter: this.reporter,
      pins: () => this.pins.list(),
      refreshSystem: () => this.refreshSystemPrompt(),
    });
    this.memory = parts.memory;
    this.notes = parts.notes;
    this.compaction = parts.compaction;
    this.checkpoints = opening.checkpoints;
    this.checkpointTurns = parts.checkpoints;
    this.disposers = [replaced, ...parts.disposers];
    this.promptCache.follow(() => nextPromptOf(this.agent, (m) => this.compaction.cacheHints.peek(m)));
    const hub = opening.setup.mcp;
    if (hub) {
      const toolsChanged = (): void => {
        this.compaction.gauge.setSystem(this.agent.systemPrompt, this.agent.offeredTools);
        this.countPrompt();
        this.reporter.emit({ type: 'context' });
      };
      const emit = (e: Parameters<SessionReporter['emit']>[0]): void => this.reporter.emit(e);
      this.disposers.push(wireMcp({ hub, trusted: opening.setup.trusted, emit, toolsChanged }));
    }
    this.countPrompt();
  }

  /** The session's MCP servers (status, restart, the inspector's switches); undefined when the host gave none. */
  get mcp(): McpHub | undefined {
    return this.setup.mcp;
  }

  /**
   * The cloud whose model has no token count (Bedrock): the gauge's prompt stays the local estimate.
   * Undefined where the provider counts, and for the Anthropic API (or a test client) either way.
   */
  get uncountedBy(): ProviderId | undefined {
    const client = this.setup.client;
    return client.countTokens || !client.provider || client.provider.id === 'anthropic'
      ? undefined
      : client.provider.id;
  }

  /**
   * The newest background count of the system prompt and tools (promptTokenCount.ts): true once the
   * gauge took the API's number. A host or a bench that reads the gauge at once may wait for it.
   */
  promptCounted: Promise<boolean> = Promise.resolve(false);

  private countPrompt(): void {
    this.promptCounted = countPromptTokens({
      client: this.setup.client,
      model: this.store.settings.model,
      system: this.agent.systemPrompt,
      tools: this.agent.offeredTools,
      gauge: this.compaction.gauge,
      logger: this.logger,
    }).then((took) => {
      if (took && !this.finished) this.reporter.emit({ type: 'context' });
      return took;
    });
  }

  get settings(): EngramSettings {
    return this.store.settings;
  }

  /** The instruction files (CLAUDE.md, AGENTS.md, imports) in the system prompt now, in prompt order. */
  get instructionFiles(): readonly InstructionFile[] {
    return this.instructionFilesNow;
  }

  get memoryDir(): string | undefined {
    return this.memory?.memoryDir;
  }

  /** Whether team memory is on, its repository, folder and server, and the last sync's report. */
  get teamMemory(): TeamMemoryState {
    return this.team.state;
  }

  /** The chat's "not relevant" on a memory recalled with `words` (recallFeedback.ts); `undo` takes it back. */
  async markNotRelevant(file: string, words: readonly string[], undo = false): Promise<void> {
    if (this.memory) await markNotRelevant(this.agent, this.memory.memoryDir, file, words, undo, this.logger);
  }

  /** Syncs team memory now ("Engram: Sync Team Memory"); rejects, saying why, when it cannot. */
  syncTeamMemory(): Promise<TeamSyncReport> {
    if (this.finished) return Promise.reject(new Error('This session has finished.'));
    return this.team.sync();
  }

  /** The host's new team token (the user set or cleared it); used from the next sync. */
  setTeamMemoryToken(token: string | undefined): void {
    this.team.setToken(token);
  }

  on(listener: SessionEventListener): () => void {
    return this.reporter.on(listener);
  }

  /** What automatic compaction would do before the next model call, on the context as it is now. */
  nextCompaction(): AutoPlan {
    if (!this.compaction.autoActive) return 'none';
    return planForUsage(this.compaction.usedTokens(this.agent.messages), this.compaction.settings);
  }

  /** One user turn; `options.attachments` ride along after the prompt (files the person attached). */
  runTurn(prompt: string, signal?: AbortSignal, options?: TurnOptions): Promise<TurnResult> {
    if (this.finished) throw new Error('This session has finished.');
    return this.asWriter(() => this.agent.runTurn(prompt, signal, options), signal);
  }

  /** Takes back the newest turn (retry, edit): the prompt it began with, or undefined when it cannot. */
  rewindLastTurn(): { prompt: string } | undefined {
    if (this.finished) return undefined;
    const taken = this.agent.rewindLastTurn();
    if (taken) this.checkpointTurns?.turnTakenBack();
    return taken;
  }

  /** The turns of the current conversation, each with its checkpoint (sessionRewind.ts). */
  async turns(): Promise<SessionTurn[]> {
    return (await sessionTurns(this.rewindTarget())).turns;
  }

  /** What going back to the state right after a turn would do (code, conversation or both); writes nothing. */
  planRewind(req: RewindRequest): Promise<RewindPlan> {
    return planSessionRewind(this.rewindTarget(), req);
  }

  /** Applies a plan (refused while a turn runs); conflicts are restored only when forced. */
  applyRewind(plan: RewindPlan, opts?: RewindForce): Promise<RewindOutcome> {
    return this.asWriter(() => applySessionRewind(this.rewindTarget(), plan, opts));
  }

  /** Undoes the rewind an outcome's id names. */
  undoRewind(id: string, opts?: RewindForce): Promise<RewindOutcome> {
    return this.asWriter(() => undoSessionRewind(this.rewindTarget(), id, opts));
  }

  private rewindTarget(): RewindTarget {
    return liveRewindTarget({
      agent: this.agent,
      transcriptPath: this.transcriptPath,
      checkpoints: this.checkpoints,
      link: this.checkpointTurns,
      reporter: this.reporter,
      finished: () => this.finished,
    });
  }

  /** "Remember ...": the main agent saves the memory file and its index line in a turn of its own. */
  remember(text: string, signal?: AbortSignal): Promise<TurnResult> {
    return this.runTurn(rememberPrompt(text, { team: this.team.state.on }), signal);
  }

  /** Compacts now (commands, `/compact`, `engram compact`): `auto` runs the stages in order. */
  async compactNow(stage: ChainStage, focus?: string, signal?: AbortSignal): Promise<CompactNowResult> {
    const result = await this.asWriter(() => this.compaction.compactNow(stage, focus, signal), signal);
    if (!result.ok)
      this.reporter.notice('warning', say('Could not compact ({0}): {1}.', stage, result.reason ?? 'no reason given'));
    return result;
  }

  async undoLastCompaction(): Promise<boolean> {
    const ok = await this.asWriter(() => this.compaction.undoLast());
    if (!ok) this.reporter.notice('warning', say('There is no compaction to undo, or the conversation changed since.'));
    return ok;
  }

  cancel(): void {
    this.agent.cancel();
  }

  /** Resolves when no background notes or memory work runs. */
  async idle(timeoutMs = 15_000): Promise<void> {
    await this.memory?.idle();
    await this.notes?.waitForUpdate(timeoutMs);
  }

  /**
   * Waits for background work (a notes update, an extraction), saves the notes state and detaches
   * everything. Call it before the process exits or the host drops the session.
   */
  async finish(timeoutMs = 60_000): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    try {
      await this.notes?.waitForUpdate(timeoutMs);
      await this.memory?.idle();
      await this.team.flush();
      await this.notes?.flushState();
      await this.setup.mcp?.close();
      await this.checkpointTurns?.close();
    } finally {
      this.dispose();
      await this.guard?.release();
    }
  }

  /** Detaches at once, without waiting for background work (a new chat, the window closing). */
  dispose(): void {
    this.finished = true;
    for (const d of this.disposers.splice(0).reverse()) d();
    this.notes?.dispose();
    this.memory?.dispose();
    this.team.dispose();
    this.reporter.clear();
    void this.guard?.release();
  }

  /** Work that appends to the transcript, done as the session's only writer. */
  private asWriter<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.guard ? this.guard.asWriter(work, signal) : work();
  }

  /**
   * After a compaction the prompt cache is cold anyway: rebuild the system prompt so CLAUDE.md and AGENTS.md
   * edits and memories saved since the session began are in it from the next call on. Resolves to the
   * instruction files now in it (the compaction records them as kept); undefined when it could not.
   */
  private async refreshSystemPrompt(): Promise<readonly string[] | undefined> {
    try {
      const state = this.team.state;
      const memory = this.memory
        ? await prepareAutoMemoryIn(this.paths, state.on ? { team: { repo: state.repo } } : {})
        : undefined;
      const { system, parts, instructionFiles } = await sessionSystemPrompt({
        ...this.setup,
        paths: this.paths,
        ...memorySlots(memory),
      });
      if (this.finished) return undefined;
      this.agent.setSystem(system);
      this.compaction.gauge.setSystem(system, this.agent.offeredTools, parts);
      this.countPrompt();
      this.instructionFilesNow = instructionFiles;
      this.reporter.emit({ type: 'context' });
      return instructionFiles.map((f) => f.path);
    } catch (error) {
      this.logger.warn(`Could not refresh the system prompt after a compaction: ${String(error)}`);
      return undefined;
    }
  }
}
