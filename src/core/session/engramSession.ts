// One Engram session, the same for every host: the agent on its transcript, session notes, auto memory
// (recall, direct writes, background extraction), team memory and its syncs (teamMemoryLink.ts), the
// compaction orchestrator, the system prompt rebuilt after a compaction, the timeline as data and one
// event stream. The Chat view and `engram -p` open it with `openEngramSession` and only translate its
// events for their surface, so both behave alike and the behaviour is tested once, here.
//
//   openEngramSession --> open --runTurn/compactNow/undo...--> open --finish()--> finished
//   settings changes (SettingsStore.onChange) reach the orchestrator and the gauge while open.
import path from 'node:path';
import type { Agent, TurnOptions, TurnResult } from '../agent/agent';
import type { ToolGate } from '../agent/permissions';
import { CompactionOrchestrator, type CompactNowResult } from '../compaction/orchestrator';
import { planForUsage, type AutoPlan, type ChainStage } from '../compaction/pipeline';
import { recordedEvents } from '../compaction/recordedCompactions';
import type { CompactionSettings } from '../compaction/settings';
import type { ModelClient } from '../llm/modelClient';
import type { RetryOptions } from '../llm/retry';
import {
  attachAutoMemory,
  memorySlots,
  prepareAutoMemory,
  type AutoMemoryHandle,
  type PreparedAutoMemory,
} from '../memory/autoMemory/attach';
import type { AutoMemoryEvent } from '../memory/autoMemory/extraction';
import { memoryWriteGate } from '../memory/autoMemory/memoryPermissions';
import { rememberPrompt } from '../memory/autoMemory/memoryPrompts';
import { attachSessionNotes } from '../memory/sessionNotes/attach';
import type { SessionNotesEvent } from '../memory/sessionNotes/events';
import type { SessionNotes } from '../memory/sessionNotes/updater';
import type { TriggerThresholds } from '../memory/sessionNotes/trigger';
import type { TimelineEntry } from '../inspection/timeline';
import { silentLogger, type Logger, type PermissionPrompt } from '../ports';
import { SettingsStore, type EngramSettings, type SettingsSource } from '../settings/engramSettings';
import type { Tool } from '../tools/tool';
import type { TeamSyncReport } from '../memory/team/teamSyncTypes';
import { openSession, sessionSystemPrompt, type OpenedSession } from './agentSession';
import type { SessionWriterOptions, TranscriptGuard } from './transcriptGuard';
import { removeStaleTempFiles } from '../fs/atomicWrite';
import { TEAM_DIR_NAME } from '../memory/autoMemory/memoryPaths';
import { linkMemoryUse } from './memoryUseLink';
import { markNotRelevant } from './recallFeedback';
import { compactionNotice, memoryNotice, notesNotice } from './sessionNotices';
import {
  EventStream,
  say,
  type NoticeAction,
  type NoticeLevel,
  type NoticeWords,
  type SessionEvent,
  type SessionEventListener,
} from './sessionEvents';
import {
  decideTeamMemory,
  TeamMemoryLink,
  teamSyncNotice,
  type TeamMemoryHostOptions,
  type TeamMemoryState,
} from './teamMemoryLink';

/** What a host brings; everything the settings decide comes from the SettingsStore instead. */
export interface EngramSessionSetup {
  dataDir: string;
  /** The project folder: tools work here; transcripts and memory are keyed by it. */
  cwd: string;
  resumeSessionId?: string;
  client: ModelClient;
  /** Untrusted: no tools, no project instructions, no notes updater or extraction (they write files). */
  trusted: boolean;
  permissionPrompt: PermissionPrompt;
  /** The host's rule for tool calls (the CLI's --allowed-tools); default: the session's own (ask for writes). */
  gate?: ToolGate;
  /**
   * Writes into the memory folder go through `gate` like any other call, instead of running without a
   * prompt: the CLI sets it so that exactly the --allowed-tools run (its gate knows the memory folder).
   */
  memoryWritesNeedTool?: boolean;
  tools?: Tool[];
  version: string;
  /** Recorded on transcript lines: `vscode`, `cli`. */
  entrypoint: string;
  /** Lines added to the system prompt for this host. */
  systemNotes?: string[];
  /**
   * Background extraction on or off regardless of `memory.extraction.enabled` (the CLI runs it only with
   * --extract-memories: it costs a model call per turn).
   */
  extraction?: boolean;
  /**
   * Team memory's credentials from the host (the token from Secret Storage or ENGRAM_TEAM_TOKEN, a server
   * URL from ENGRAM_TEAM_SERVER); whether team memory is on at all is the settings' and trust's call.
   */
  teamMemory?: TeamMemoryHostOptions;
  logger?: Logger;
  retry?: Omit<RetryOptions, 'onRetry'>;
  now?: Date;
  /** Tests: make a turn wait for the notes update it triggered, for a deterministic request order. */
  awaitNotesUpdates?: boolean;
  /** One writer at a time: engram -p holds the session for its run, the chat for each turn (transcriptGuard.ts). */
  writer?: SessionWriterOptions;
}

/** When the notes are updated: the growth is the larger of the token count and the share of the window. */
export function notesThresholdsOf(s: EngramSettings): TriggerThresholds {
  const n = s.sessionNotes;
  const growthTokens = Math.max(n.updateGrowthTokens, Math.floor((s.contextWindow * n.updateGrowthPercent) / 100));
  const quiet =
    n.catchUpBeforeCompaction && s.compaction.auto
      ? { quietAboveTokens: Math.floor((s.contextWindow * s.compaction.microcompactPercent) / 100) }
      : {};
  return { initTokens: n.initTokens, growthTokens, toolCalls: n.updateToolCalls, ...quiet };
}

/** The orchestrator's share of the settings. */
export function compactionSettingsOf(s: EngramSettings): Partial<CompactionSettings> {
  return { ...s.compaction, contextWindow: s.contextWindow, notesCatchUp: s.sessionNotes.catchUpBeforeCompaction };
}

export class EngramSession {
  readonly agent: Agent;
  readonly sessionId: string;
  readonly transcriptPath: string;
  readonly resumed: OpenedSession['resumed'];
  /** Warnings of opening (unreadable lines, instructions, the memory index's cap), for the host to show. */
  readonly warnings: readonly string[];
  /** What opening did that a person must hear of once (memories recovered), for the host to show always. */
  readonly notices: readonly string[];
  readonly notes: SessionNotes | undefined;
  readonly memory: AutoMemoryHandle | undefined;
  readonly compaction: CompactionOrchestrator;
  /** Notes updates, memory writes and compactions of this session, oldest first. */
  readonly timeline: TimelineEntry[] = [];
  private readonly events: EventStream<SessionEvent>;
  private readonly disposers: Array<() => void> = [];
  private finished = false;
  private readonly guard: TranscriptGuard | undefined;

  /** Use openEngramSession. */
  constructor(
    opened: OpenedSession,
    private readonly setup: EngramSessionSetup,
    private readonly store: SettingsSource,
    memory: PreparedAutoMemory | undefined,
    private readonly logger: Logger,
    private readonly team: TeamMemoryLink,
    teamWarnings: readonly string[] = [],
  ) {
    this.agent = opened.agent;
    this.sessionId = opened.sessionId;
    this.transcriptPath = opened.transcriptPath;
    this.resumed = opened.resumed;
    this.guard = opened.guard;
    this.events = new EventStream<SessionEvent>((e) => logger.error('A session listener threw', e));
    const settings = store.settings;
    this.warnings = [
      ...(memory?.index.warnings ?? []).map((w) => `Memory: ${w}`),
      ...(memory?.team?.index.warnings ?? []).map((w) => `Team memory: ${w}`),
      ...teamWarnings,
      ...opened.warnings,
      ...(memory?.recovery?.problems ?? []).map((w) => `Memory: ${w}`),
    ];
    this.notices = memory?.recovery?.notices ?? [];
    this.disposers.push(
      this.agent.on((event) => {
        this.emit({ type: 'agent', event });
        // A swapped list (compaction, undo) keeps its last message, which is how the gauge tells a list
        // that only grew: it must start over, and the surfaces hear of the new size now, not next turn.
        if (event.type === 'conversationReplaced') this.compaction.gauge.forget();
        if (event.type === 'usage' || event.type === 'turnEnd' || event.type === 'conversationReplaced')
          this.emit({ type: 'context' });
      }),
    );

    if (memory) {
      this.memory = attachAutoMemory(this.agent, {
        memoryDir: memory.dir,
        transcriptPath: this.transcriptPath,
        extraction: setup.trusted && (setup.extraction ?? settings.memory.extraction.enabled),
        everyTurns: settings.memory.extraction.everyTurns,
        // Read at each run, so the inspector's toggle applies from the next extraction.
        review: () => this.store.settings.memory.extraction.review,
        recall: settings.memory.recall.enabled,
        recallMaxFiles: settings.memory.recall.maxFiles,
        recallMode: settings.memory.recall.mode,
        ...(memory.team
          ? { team: { dir: memory.team.dir, repo: memory.team.repo }, onTeamWrite: () => team.wrote() }
          : {}),
        logger,
      });
      this.disposers.push(this.memory.on((event) => this.onMemoryEvent(event)));
      const memoryEvents = this.memory;
      this.disposers.push(
        linkMemoryUse({
          memoryDir: memory.dir,
          cwd: this.agent.forkContext().cwd,
          logger,
          onAgent: (l) => this.agent.on(l),
          onMemory: (l) => memoryEvents.on(l),
          warn: (said) => this.notice('warning', said, undefined, 'openMemory'),
        }),
      );
    }
    team.listen((report) => this.onTeamSync(report));
    // The notes updater writes with Edit: not in an untrusted workspace, where no tool runs.
    if (setup.trusted && settings.sessionNotes.enabled) {
      this.notes = attachSessionNotes(this.agent, {
        dataDir: setup.dataDir,
        thresholds: notesThresholdsOf(settings),
        logger,
        onEvent: (event) => this.onNotesEvent(event),
        ...(setup.awaitNotesUpdates ? { awaitUpdates: true } : {}),
      });
    }
    // A resumed session gets the compactions its transcript records: in the timeline, and the newest
    // (if not undone) for the orchestrator to undo.
    const recorded = recordedEvents(opened.resumed?.compactions ?? []);
    for (const event of recorded.all) this.timeline.push({ kind: 'compaction', at: event.at, event });
    this.compaction = new CompactionOrchestrator({
      settings: compactionSettingsOf(settings),
      ...(this.notes ? { notes: this.notes } : {}),
      logger,
      events: recorded.active,
    });
    this.disposers.push(this.compaction.attach(this.agent));
    this.compaction.gauge.setSystem(this.agent.systemPrompt, this.agent.offeredTools, opened.promptParts);
    // A resumed session starts from its transcript's last usage report, as `engram gauge` and the inspector
    // read a transcript (transcriptGauge.ts): one figure on every surface, and the API's count of the
    // history rather than an estimate of all of it (which came out 15% short on a long session).
    const reported = opened.resumed?.lastReport;
    if (reported)
      this.compaction.gauge.onResponse(
        { input_tokens: reported.total, output_tokens: 0 },
        this.agent.messages.slice(0, reported.index + 1),
      );
    this.disposers.push(
      this.compaction.on((event) => {
        this.emit({ type: 'compaction', event });
        const words = compactionNotice(event);
        if (words) this.notice(words.level, words);
        if (event.type === 'compacted') {
          this.addTimeline({ kind: 'compaction', at: event.event.at, event: event.event });
          void this.refreshSystemPrompt();
        }
        if (event.type === 'compacted' || event.type === 'undone') this.emit({ type: 'context' });
      }),
    );
    this.disposers.push(
      store.onChange((next) => {
        this.compaction.updateSettings(compactionSettingsOf(next));
        this.agent.sendRepeatsOnce = next.compaction.sendRepeatsOnce;
        this.notes?.setThresholds(notesThresholdsOf(next));
        this.emit({ type: 'settings', settings: next });
        this.emit({ type: 'context' });
      }),
    );
  }

  get settings(): EngramSettings {
    return this.store.settings;
  }

  get memoryDir(): string | undefined {
    return this.memory?.memoryDir;
  }

  /** Whether team memory is on, its repository, folder and server, and the last sync's report. */
  get teamMemory(): TeamMemoryState {
    return this.team.state;
  }

  /** Syncs team memory now ("Engram: Sync Team Memory"); rejects, saying why, when it cannot. */
  /** The chat's "not relevant" on a memory recalled with `words` (recallFeedback.ts); `undo` takes it back. */
  async markNotRelevant(file: string, words: readonly string[], undo = false): Promise<void> {
    if (this.memory) await markNotRelevant(this.agent, this.memory.memoryDir, file, words, undo, this.logger);
  }

  syncTeamMemory(): Promise<TeamSyncReport> {
    if (this.finished) return Promise.reject(new Error('This session has finished.'));
    return this.team.sync();
  }

  /** The host's new team token (the user set or cleared it); used from the next sync. */
  setTeamMemoryToken(token: string | undefined): void {
    this.team.setToken(token);
  }

  on(listener: SessionEventListener): () => void {
    return this.events.on(listener);
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
    return this.agent.rewindLastTurn();
  }

  /** "Remember ...": the main agent saves the memory file and its index line in a turn of its own. */
  remember(text: string, signal?: AbortSignal): Promise<TurnResult> {
    return this.runTurn(rememberPrompt(text, { team: this.team.state.on }), signal);
  }

  /** Compacts now (commands, `/compact`, `engram compact`): `auto` runs the stages in order. */
  async compactNow(stage: ChainStage, focus?: string, signal?: AbortSignal): Promise<CompactNowResult> {
    const result = await this.asWriter(() => this.compaction.compactNow(stage, focus, signal), signal);
    if (!result.ok)
      this.notice('warning', say('Could not compact ({0}): {1}.', stage, result.reason ?? 'no reason given'));
    return result;
  }

  async undoLastCompaction(): Promise<boolean> {
    const ok = await this.asWriter(() => this.compaction.undoLast());
    if (!ok) this.notice('warning', say('There is no compaction to undo, or the conversation changed since.'));
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
    this.events.clear();
    void this.guard?.release();
  }

  /** Work that appends to the transcript, done as the session's only writer. */
  private asWriter<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.guard ? this.guard.asWriter(work, signal) : work();
  }

  /**
   * After a compaction the prompt cache is cold anyway: rebuild the system prompt so CLAUDE.md edits and
   * memories saved since the session began are in it from the next call on.
   */
  private async refreshSystemPrompt(): Promise<void> {
    try {
      const state = this.team.state;
      const memory = this.memory
        ? await prepareAutoMemory(this.setup.dataDir, this.setup.cwd, state.on ? { team: { repo: state.repo } } : {})
        : undefined;
      const { system, parts } = await sessionSystemPrompt({ ...this.setup, ...memorySlots(memory) });
      if (this.finished) return;
      this.agent.setSystem(system);
      this.compaction.gauge.setSystem(system, this.agent.offeredTools, parts);
      this.emit({ type: 'context' });
    } catch (error) {
      this.logger.warn(`Could not refresh the system prompt after a compaction: ${String(error)}`);
    }
  }

  private onMemoryEvent(event: AutoMemoryEvent): void {
    this.emit({ type: 'memory', event });
    // A memory pass that saved nothing changed nothing: it is no event of the session's memory.
    const saved = event.type !== 'extractionDone' || event.saved.length > 0;
    if (
      (event.type === 'memorySaved' || event.type === 'extractionDone' || event.type === 'extractionFailed') &&
      saved
    ) {
      this.addTimeline({ kind: 'memory', at: Date.now(), event });
    }
    const told = memoryNotice(event);
    if (told) this.notice(told.level, told, told.file);
    if (event.type === 'extractionFailed') this.logger.warn(`Memory extraction failed: ${event.error}`);
  }

  private onTeamSync(report: TeamSyncReport): void {
    this.emit({ type: 'teamSync', report });
    const words = teamSyncNotice(report);
    if (words) this.notice(words.level, words);
    if (!report.ok) this.logger.warn(`Team memory sync failed: ${report.error ?? 'no reason given'}`);
  }

  private onNotesEvent(event: SessionNotesEvent): void {
    this.emit({ type: 'notes', event });
    if (event.type === 'notesUpdated' || event.type === 'notesUpdateFailed' || event.type === 'notesCreated') {
      this.addTimeline({ kind: 'notes', at: Date.now(), event });
    }
    const told = notesNotice(event);
    if (told) this.notice(told.level, told, told.file);
  }

  private addTimeline(entry: TimelineEntry): void {
    this.timeline.push(entry);
    this.emit({ type: 'timeline', entry });
  }

  private notice(
    level: NoticeLevel,
    said: { text: string; words: NoticeWords },
    file?: { label: string; path: string },
    action?: NoticeAction,
  ): void {
    this.emit({
      type: 'notice',
      level,
      text: said.text,
      words: said.words,
      ...(file ? { file } : {}),
      ...(action ? { action } : {}),
    });
  }

  private emit(event: SessionEvent): void {
    this.events.emit(event);
  }
}

/**
 * Opens a new or resumed session with the memory engine around it. `settings` may be a live store (its
 * changes reach the open session) or a fixed value.
 */
export async function openEngramSession(
  setup: EngramSessionSetup,
  settings: SettingsSource | EngramSettings,
): Promise<EngramSession> {
  const store = isSource(settings) ? settings : SettingsStore.of(settings);
  const logger = setup.logger ?? silentLogger;
  const decided = await decideTeamMemory({
    settings: store.settings,
    trusted: setup.trusted,
    dataDir: setup.dataDir,
    cwd: setup.cwd,
    ...(setup.teamMemory ? { host: setup.teamMemory } : {}),
  });
  const team = new TeamMemoryLink(decided.state, setup.teamMemory);
  // Pulled before the prompt is composed, so this session starts with what the team knows (not for long).
  await team.startSync();
  const state = team.state;
  const memory = store.settings.memory.enabled
    ? await prepareAutoMemory(setup.dataDir, setup.cwd, {
        recover: true,
        ...(state.on ? { team: { repo: state.repo } } : {}),
      })
    : undefined;
  const teamWarnings = [
    ...(decided.warning ? [decided.warning] : []),
    ...(memory?.teamProblem ? [`Team memory: ${memory.teamProblem}`] : []),
  ];
  // Writing into the project's memory folder is what "remember" means: no prompt for that. Other calls
  // go to the host's rule, or the session's own once the agent exists.
  let agent: Agent | undefined;
  const fallback: ToolGate = (tool, input, call) => {
    const rule = setup.gate ?? agent?.permissions.gate;
    if (!rule) return Promise.resolve({ allow: false, reason: 'The session is not open yet.' });
    return rule(tool, input, call);
  };
  let opened: OpenedSession;
  try {
    opened = await openSession({
      dataDir: setup.dataDir,
      cwd: setup.cwd,
      ...(setup.resumeSessionId !== undefined ? { resumeSessionId: setup.resumeSessionId } : {}),
      ...(setup.writer ? { writer: setup.writer } : {}),
      client: setup.client,
      model: store.settings.model,
      maxTokens: store.settings.maxOutputTokens,
      sendRepeatsOnce: store.settings.compaction.sendRepeatsOnce,
      trusted: setup.trusted,
      permissionPrompt: setup.permissionPrompt,
      ...memorySlots(memory),
      // Memory writes need no prompt (unless the host says so); team-folder writes are checked either way.
      ...(memory
        ? {
            gate: memoryWriteGate(memory.dir, setup.cwd, fallback, {
              team: memory.team !== undefined,
              needsTool: setup.memoryWritesNeedTool === true,
            }),
          }
        : setup.gate
          ? { gate: setup.gate }
          : {}),
      ...(setup.tools ? { tools: setup.tools } : {}),
      version: setup.version,
      entrypoint: setup.entrypoint,
      ...(setup.systemNotes ? { systemNotes: setup.systemNotes } : {}),
      logger,
      ...(setup.retry ? { retry: setup.retry } : {}),
      ...(setup.now ? { now: setup.now } : {}),
    });
  } catch (e) {
    team.dispose(); // a session that did not open must not go on syncing
    throw e;
  }
  agent = opened.agent;
  await removeLeftoverTemps(memory ? [memory.dir, path.join(memory.dir, TEAM_DIR_NAME)] : [], opened, logger);
  return new EngramSession(
    opened,
    { ...setup, now: setup.now ?? new Date() },
    store,
    memory,
    logger,
    team,
    teamWarnings,
  );
}

/**
 * A writer killed between its temp file and the rename leaves `.NAME.PID.HEX.tmp` behind: the folders
 * this session writes to (memory, team memory, its notes and cursors) are swept of old ones as it opens.
 */
async function removeLeftoverTemps(
  memoryDirs: readonly string[],
  opened: OpenedSession,
  logger: Logger,
): Promise<void> {
  const sessionDir = opened.transcriptPath.replace(/\.jsonl$/, '');
  const dirs = [...memoryDirs, sessionDir, path.join(sessionDir, 'session-memory')];
  try {
    const removed = await removeStaleTempFiles(dirs);
    if (removed.length > 0)
      logger.info(
        `Removed ${removed.length} temp file(s) left by a writer that was stopped mid-write: ${removed.join(', ')}`,
      );
  } catch (e) {
    logger.warn(`Could not remove old temp files: ${String(e)}`);
  }
}

function isSource(settings: SettingsSource | EngramSettings): settings is SettingsSource {
  return typeof (settings as Partial<SettingsSource>).onChange === 'function';
}
