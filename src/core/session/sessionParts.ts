// The session's wiring: each part the engine puts around the agent, attached one at a time and in this
// order (the order listeners hear the agent in): the agent's own events, auto memory and the memory-use
// warnings, team memory's sync reports, the session notes, the compaction orchestrator (with what a
// resumed transcript recorded), the settings' changes, and the checkpoint of each turn. Every part gets the session's paths as they
// were worked out when it opened (memory/sessionPaths.ts), and reports through the SessionReporter.
import type { Agent } from '../agent/agent';
import { CompactionOrchestrator } from '../compaction/orchestrator';
import { recordedEvents } from '../compaction/recordedCompactions';
import { attachAutoMemory, type AutoMemoryHandle, type PreparedAutoMemory } from '../memory/autoMemory/attach';
import type { SessionPaths } from '../memory/sessionPaths';
import { attachSessionNotes } from '../memory/sessionNotes/attach';
import type { SessionNotes } from '../memory/sessionNotes/updater';
import type { Pin, PinLine } from '../conversation/pinLines';
import type { Logger } from '../ports';
import type { SettingsSource } from '../settings/settingsStore';
import type { OpenedSession } from './agentSession';
import { listPending } from '../memory/autoMemory/pendingQueue';
import { extractionHealth } from '../memory/health/extractionHealth';
import { staleCheckFor } from '../memory/health/staleRecall';
import { linkMemoryOutcome } from './memoryOutcomeLink';
import { linkMemoryUse } from './memoryUseLink';
import { linkPermissionRules } from './permissionRulesLink';
import { SessionCheckpoints, type SessionCheckpointStore } from './sessionCheckpoints';
import type { SessionReporter } from './sessionReporter';
import { compactionSettingsOf, notesThresholdsOf, type EngramSessionSetup } from './sessionSetup';
import type { TeamMemoryLink } from './teamMemoryLink';

/** What opening the session made or decided that the parts are wired from (openEngramSession.ts). */
export interface OpenedParts {
  opened: OpenedSession;
  /** The host's setup, with `now` fixed at opening (the prompt's date stays the session's). */
  setup: EngramSessionSetup;
  paths: SessionPaths;
  store: SettingsSource;
  /** The memory folder's index as the session opened, when auto memory is on. */
  memory: PreparedAutoMemory | undefined;
  team: TeamMemoryLink;
  logger: Logger;
  /** The pin lines a resumed transcript holds (sessionPins.ts). */
  pinLines: readonly PinLine[];
  /** The workspace's checkpoints for this session (sessionCheckpoints.ts); undefined when untrusted. */
  checkpoints: SessionCheckpointStore | undefined;
}

/** The same, with where the parts report and what the session does after a compaction. */
export interface SessionWiring extends OpenedParts {
  reporter: SessionReporter;
  /** The pins in force, carried after every summary. */
  pins: () => readonly Pin[];
  /** After each compaction stage, before it is recorded: the system prompt is built again (engramSession.ts). */
  refreshSystem: () => Promise<readonly string[] | undefined>;
}

/** The wired parts, and what detaches them (newest first when the session is disposed). */
export interface SessionParts {
  memory: AutoMemoryHandle | undefined;
  notes: SessionNotes | undefined;
  compaction: CompactionOrchestrator;
  /** The checkpoint per turn, when the store is open. */
  checkpoints: SessionCheckpoints | undefined;
  disposers: Array<() => void>;
}

export function wireSessionParts(w: SessionWiring): SessionParts {
  const agent = w.opened.agent;
  const disposers: Array<() => void> = [];
  // The agent's listener needs the orchestrator's gauge, made last: it is only called once a turn runs.
  disposers.push(listenToAgent(agent, w.reporter, () => compaction));
  const memory = w.memory ? wireAutoMemory(w, w.memory, disposers) : undefined;
  w.team.listen((report) => w.reporter.teamSync(report));
  const notes = wireSessionNotes(w);
  const compaction = wireCompaction(w, notes, disposers);
  disposers.push(listenToSettings(w, compaction, notes));
  disposers.push(linkPermissionRules({ ...w, agent }));
  const store = w.checkpoints?.available ? w.checkpoints : undefined;
  const checkpoints = store
    ? new SessionCheckpoints(agent, store, w.opened.transcriptPath, w.reporter, w.logger)
    : undefined;
  if (checkpoints) disposers.push(() => checkpoints.dispose());
  return { memory, notes, compaction, checkpoints, disposers };
}

/** Agent events reach the host; a swapped or grown conversation tells the surfaces the context changed. */
function listenToAgent(
  agent: Agent,
  reporter: SessionReporter,
  orchestrator: () => CompactionOrchestrator,
): () => void {
  return agent.on((event) => {
    reporter.emit({ type: 'agent', event });
    // A swapped list (compaction, undo) keeps its last message, which is how the gauge tells a list
    // that only grew: it must start over, and the surfaces hear of the new size now, not next turn.
    if (event.type === 'conversationReplaced') orchestrator().gauge.forget();
    if (event.type === 'usage' || event.type === 'turnEnd' || event.type === 'conversationReplaced')
      reporter.emit({ type: 'context' });
  });
}

/** Recall, direct writes and extraction on the agent, and the warnings about memory in use. */
function wireAutoMemory(
  w: SessionWiring,
  prepared: PreparedAutoMemory,
  disposers: Array<() => void>,
): AutoMemoryHandle {
  const { opened, setup, store, paths, team, reporter, logger } = w;
  const settings = store.settings;
  const memory = attachAutoMemory(opened.agent, {
    memoryDir: paths.memoryDir,
    transcriptPath: paths.transcript,
    cursorFile: paths.memoryCursor,
    extraction: setup.trusted && (setup.extraction ?? settings.memory.extraction.enabled),
    everyTurns: settings.memory.extraction.everyTurns,
    // Read at each run, so the inspector's toggle applies from the next extraction.
    review: () => store.settings.memory.extraction.review,
    recall: settings.memory.recall.enabled,
    recallMaxFiles: settings.memory.recall.maxFiles,
    recallMode: settings.memory.recall.mode,
    // Checking runs git in the workspace: only a trusted one is listed.
    ...(setup.trusted
      ? {
          staleRecall: { mode: settings.memory.staleRecall, check: staleCheckFor(paths.cwd, { logger }) },
          health: () => extractionHealth({ memoryDir: paths.memoryDir, team: prepared.team !== undefined }, paths.cwd),
        }
      : {}),
    ...(prepared.team
      ? { team: { dir: prepared.team.dir, repo: prepared.team.repo }, onTeamWrite: () => team.wrote() }
      : {}),
    logger,
  });
  disposers.push(memory.on((event) => reporter.memoryEvent(event)));
  disposers.push(
    linkMemoryUse({
      memoryDir: paths.memoryDir,
      cwd: paths.cwd,
      logger,
      onAgent: (l) => opened.agent.on(l),
      onMemory: (l) => memory.on(l),
      warn: (said) => reporter.notice('warning', said, undefined, 'openMemory'),
    }),
  );
  // Used / corrected counts; a correction's proposed update shows like any other waiting for review.
  const outcome = linkMemoryOutcome({
    memoryDir: paths.memoryDir,
    sessionId: opened.agent.sessionId,
    logger,
    onAgent: (l) => opened.agent.on(l),
    onMemory: (l) => memory.on(l),
    onProposed: (file) =>
      void listPending(paths.memoryDir).then(
        (l) => reporter.memoryEvent({ type: 'memoryPending', files: [file], waiting: l.items.length }),
        (e: unknown) => logger.warn(`Could not list the memory review queue: ${String(e)}`),
      ),
  });
  disposers.push(outcome.dispose);
  return memory;
}

/** The notes updater writes with Edit: not in an untrusted workspace, where no tool runs. */
function wireSessionNotes(w: SessionWiring): SessionNotes | undefined {
  const { setup, store, paths, reporter, logger } = w;
  if (!setup.trusted || !store.settings.sessionNotes.enabled) return undefined;
  return attachSessionNotes(w.opened.agent, {
    dataDir: paths.dataDir,
    paths: paths.notes,
    thresholds: notesThresholdsOf(store.settings),
    logger,
    onEvent: (event) => reporter.notesEvent(event),
    ...(setup.awaitNotesUpdates ? { awaitUpdates: true } : {}),
  });
}

/** The orchestrator on the agent, starting from what a resumed transcript recorded. */
function wireCompaction(
  w: SessionWiring,
  notes: SessionNotes | undefined,
  disposers: Array<() => void>,
): CompactionOrchestrator {
  const { opened, store, reporter, logger } = w;
  const agent = opened.agent;
  // A resumed session gets the compactions its transcript records: in the timeline, and the newest
  // (if not undone) for the orchestrator to undo.
  const recorded = recordedEvents(opened.resumed?.compactions ?? []);
  for (const event of recorded.all) reporter.timeline.push({ kind: 'compaction', at: event.at, event });
  const compaction = new CompactionOrchestrator({
    settings: compactionSettingsOf(store.settings),
    ...(notes ? { notes } : {}),
    logger,
    events: recorded.active,
    pins: w.pins,
    refreshSystem: w.refreshSystem,
  });
  disposers.push(compaction.attach(agent));
  compaction.gauge.setSystem(agent.systemPrompt, agent.offeredTools, opened.promptParts);
  // A resumed session starts from its transcript's last usage report, as `engram gauge` and the inspector
  // read a transcript (transcriptGauge.ts): one figure on every surface, and the API's count of the
  // history rather than an estimate of all of it (which came out 15% short on a long session).
  const reported = opened.resumed?.lastReport;
  if (reported)
    compaction.gauge.onResponse(
      { input_tokens: reported.total, output_tokens: 0 },
      agent.messages.slice(0, reported.index + 1),
    );
  disposers.push(compaction.on((event) => reporter.compactionEvent(event)));
  return compaction;
}

/** A settings change reaches the orchestrator, the agent and the notes, then the host. */
function listenToSettings(
  w: SessionWiring,
  compaction: CompactionOrchestrator,
  notes: SessionNotes | undefined,
): () => void {
  return w.store.onChange((next) => {
    compaction.updateSettings(compactionSettingsOf(next));
    w.opened.agent.sendRepeatsOnce = next.compaction.sendRepeatsOnce;
    notes?.setThresholds(notesThresholdsOf(next));
    w.reporter.emit({ type: 'settings', settings: next });
    w.reporter.emit({ type: 'context' });
  });
}
