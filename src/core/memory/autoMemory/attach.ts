// Wires auto memory onto a main conversation (never a sub-agent): recall before each turn, and after
// each complete turn the direct-write bookkeeping (provenance and index line for memory the agent saved
// because the user asked) and the background extraction trigger. Everything reports through one event
// stream for the chat view and the inspector's timeline. With team memory on, recall covers the team
// folder too, memory written there is recorded in the team index, and `onTeamWrite` hears of every such
// write (the session schedules a sync).
//
// Hosts do not call this: core/session/sessionParts.ts wires it for every session.
import path from 'node:path';
import type { Agent, BeforeTurnHookContext, TurnHookContext } from '../../agent/agent';
import type { ApiMessage } from '../../conversation/types';
import { silentLogger, type Logger } from '../../ports';
import { EXTRACTION_EVERY_TURNS, EXTRACTION_MAX_TURNS, RECALL_MAX_FILES } from '../../thresholds';
import { MemoryExtractor, memoryWritesIn, type AutoMemoryEvent, type ExtractorDeps } from './extraction';
import type { StampedState } from './indexLines';
import { memoryWriteOf } from './memoryPermissions';
import { loadMemoryIndex, type LoadIndexOptions, type MemoryIndex } from './memoryIndex';
import {
  autoMemoryDir,
  confinedTeamDir,
  isIndexName,
  memoryHome,
  MEMORY_INDEX_FILE,
  TEAM_DIR_NAME,
  type TeamMemoryScope,
} from './memoryPaths';
import { memorySystemSlot, teamSystemSlot } from './memoryPrompts';
import { recordTopicFile, settleIndexEntry, type MemoryProvenance, type Recorded } from './memoryWriter';
import { cursorFileFor, messageKeys, readTranscriptTail } from './messageCursor';
import { modelPick } from './modelRecall';
import { recallForPrompt, recalledEventOf, type RecallOptions } from './recall';
import { recoverUnindexed, type Recovery } from './unindexedRecovery';

export interface AutoMemorySettings {
  /** engram.memory.extraction.enabled */
  extraction?: boolean;
  /** engram.memory.extraction.everyTurns */
  everyTurns?: number;
  /** engram.memory.extraction.maxTurns (model calls per run) */
  maxTurns?: number;
  /** engram.memory.recall.enabled */
  recall?: boolean;
  /** engram.memory.recall.maxFiles */
  recallMaxFiles?: number;
  /** engram.memory.recall.mode: `model` asks the model to pick from the index (one small call a turn). */
  recallMode?: 'local' | 'model';
  /** engram.memory.staleRecall with its check (health/staleRecall.ts): stale memories get a caveat or are skipped. */
  staleRecall?: RecallOptions['stale'];
}

export interface AutoMemoryDeps extends AutoMemorySettings {
  memoryDir: string;
  /** Team memory is on for this session (its folder is `<memoryDir>/team`). */
  team?: TeamMemoryScope;
  /** engram.memory.extraction.review, asked at each extraction run (a toggle applies from the next one). */
  review?: () => boolean;
  health?: ExtractorDeps['health']; // stale and repeated entries, for the extraction prompt
  /** A Write/Edit into the team folder succeeded (main agent or extractor); names relative to the memory folder. */
  onTeamWrite?(files: string[]): void;
  /** The session transcript: real message uuids for provenance, and where the cursor file goes. */
  transcriptPath?: string;
  /** Default: `<session dir>/auto-memory.json` when transcriptPath is given, else kept in memory. */
  cursorFile?: string;
  logger?: Logger;
}

export interface AutoMemoryHandle {
  readonly memoryDir: string;
  on(listener: (event: AutoMemoryEvent) => void): () => void;
  /** Resolves when no extraction runs or waits (tests, shutdown). */
  idle(): Promise<void>;
  dispose(): void;
}

export interface PreparedAutoMemory {
  dir: string;
  index: MemoryIndex;
  /** For SessionSetup.memory. */
  systemSlot: ReturnType<typeof memorySystemSlot>;
  /** With team memory on: the team folder's index, for SessionSetup.teamMemory. */
  team?: TeamMemoryScope & { index: MemoryIndex; systemSlot: ReturnType<typeof teamSystemSlot> };
  /** Why team memory was asked for but is not loaded (its folder links out of the memory folder). */
  teamProblem?: string;
  /** With `recover`: topic files found without their index line, indexed now or reported (both folders). */
  recovery?: Recovery;
}

/** The system prompt's memory slots of a prepared memory (none without one). */
export function memorySlots(memory: PreparedAutoMemory | undefined): {
  memory?: PreparedAutoMemory['systemSlot'];
  teamMemoryIndex?: NonNullable<PreparedAutoMemory['team']>['systemSlot'];
} {
  if (!memory) return {};
  return { memory: memory.systemSlot, ...(memory.team ? { teamMemoryIndex: memory.team.systemSlot } : {}) };
}

/**
 * Finds the project's memory folder and loads its index for the session's system prompt; with
 * `team.repo` (team memory is on) the team index too, under the same caps. With `recover` (a session
 * opening) topic files without an index line are indexed first (unindexedRecovery.ts).
 */
export async function prepareAutoMemory(
  dataDir: string,
  cwd: string,
  opts: PrepareMemoryOptions = {},
): Promise<PreparedAutoMemory> {
  const dir = await autoMemoryDir(dataDir, cwd);
  return prepareAutoMemoryIn({ memoryDir: dir, teamDir: path.join(dir, TEAM_DIR_NAME) }, opts);
}

type PrepareMemoryOptions = LoadIndexOptions & { team?: { repo: string }; recover?: boolean };

/** The same, in folders a session has already worked out (memory/sessionPaths.ts). */
export async function prepareAutoMemoryIn(
  where: { memoryDir: string; teamDir: string },
  opts: PrepareMemoryOptions = {},
): Promise<PreparedAutoMemory> {
  const { team, recover, ...loadOpts } = opts;
  const recovery: Recovery = { notices: [], problems: [] };
  const dir = where.memoryDir;
  const index = await loadRecovered(dir, loadOpts, recover ? recovery : undefined);
  const prepared: PreparedAutoMemory = {
    dir,
    index,
    systemSlot: memorySystemSlot(index),
    ...(recover ? { recovery } : {}),
  };
  if (!team) return prepared;
  let teamDir: string;
  try {
    teamDir = confinedTeamDir(dir, where.teamDir);
  } catch (e) {
    return { ...prepared, teamProblem: e instanceof Error ? e.message : String(e) };
  }
  const teamIndex = await loadRecovered(
    teamDir,
    { ...loadOpts, label: `${TEAM_DIR_NAME}/${MEMORY_INDEX_FILE}` },
    recover ? recovery : undefined,
  );
  return {
    ...prepared,
    team: { dir: teamDir, repo: team.repo, index: teamIndex, systemSlot: teamSystemSlot(teamIndex, team.repo) },
  };
}

/** The folder's index, after indexing what `recovery` finds (then loaded again, to include it). */
async function loadRecovered(
  dir: string,
  opts: LoadIndexOptions,
  recovery: Recovery | undefined,
): Promise<MemoryIndex> {
  const index = await loadMemoryIndex(dir, opts);
  if (!recovery || index.unindexed.length === 0) return index;
  const found = await recoverUnindexed(index, opts.label ?? MEMORY_INDEX_FILE);
  recovery.notices.push(...found.notices);
  recovery.problems.push(...found.problems);
  return found.notices.length > 0 ? loadMemoryIndex(dir, opts) : index;
}

export function attachAutoMemory(agent: Agent, deps: AutoMemoryDeps): AutoMemoryHandle {
  const logger = deps.logger ?? silentLogger;
  const listeners = new Set<(event: AutoMemoryEvent) => void>();
  const emit = (event: AutoMemoryEvent): void => {
    for (const l of listeners) {
      try {
        l(event);
      } catch (e) {
        logger.error('An auto-memory listener threw', e);
      }
    }
  };
  const cwd = agent.forkContext().cwd;
  const cursorFile = deps.cursorFile ?? (deps.transcriptPath ? cursorFileFor(deps.transcriptPath) : undefined);
  const extractor = new MemoryExtractor({
    agent,
    memoryDir: deps.memoryDir,
    cwd,
    ...(cursorFile ? { cursorFile } : {}),
    ...(deps.transcriptPath ? { transcriptPath: deps.transcriptPath } : {}),
    ...(deps.team ? { team: deps.team } : {}),
    ...(deps.onTeamWrite ? { onTeamWrite: deps.onTeamWrite } : {}),
    ...(deps.review ? { review: deps.review } : {}),
    ...(deps.health ? { health: deps.health } : {}),
    maxTurns: deps.maxTurns ?? EXTRACTION_MAX_TURNS,
    emit,
    logger,
  });
  const everyTurns = Math.max(1, deps.everyTurns ?? EXTRACTION_EVERY_TURNS);
  let turnsSinceTrigger = 0;
  // Where the running turn's messages start, for finding what the main agent saved in it.
  let turnStart = 0;
  let turnStartKey: string | undefined;

  // Memory files the main agent wrote this turn, heard as the tool calls happen: a compaction later in
  // the turn may replace the messages that hold the calls, and the write must still be recorded.
  const pendingWrites = new Map<string, string>();
  const writtenThisTurn = new Set<string>();
  // Team files written this turn: told to onTeamWrite once the turn has ended and its writes were
  // stamped and indexed, so a sync never pushes a topic file before its index line.
  const teamWrittenThisTurn = new Set<string>();
  // Index lines added for files written this turn before the agent wrote its own (it may yet).
  const provisional = new Map<string, string>();
  const recording = new Set<Promise<void>>();
  let turnOrigin: Promise<string | undefined> | undefined;
  const removeWriteWatch = agent.on((event) => {
    if (event.type === 'toolCall') {
      const target = memoryWriteOf(deps.memoryDir, cwd, event.name, event.input);
      if (target && 'name' in target) pendingWrites.set(event.id, target.name);
    } else if (event.type === 'toolResult') {
      const name = pendingWrites.get(event.id);
      pendingWrites.delete(event.id);
      if (!name || event.isError) return;
      if (!isIndexName(name)) {
        writtenThisTurn.add(name);
        recordNow(name);
      }
      // The index counts here: an edited team index is worth a sync too.
      if (memoryHome(deps.memoryDir, name).team) teamWrittenThisTurn.add(name);
    }
  });

  const notRecorded = (file: string, e: unknown): void =>
    logger.warn(`Could not record the memory ${file}: ${e instanceof Error ? e.message : String(e)}`);

  /** The prompt's line in the transcript, read once a turn (the prompt is written before any tool runs). */
  const originOf = (messages: readonly ApiMessage[]): Promise<string | undefined> => {
    turnOrigin ??= readTranscriptTail(deps.transcriptPath).then(
      (tail) => tail.promptUuid ?? tail.lastUuid ?? messageKeys(messages)[Math.min(turnStart, messages.length - 1)],
    );
    return turnOrigin;
  };
  const provenanceOf = async (): Promise<MemoryProvenance> => ({
    originSessionId: agent.sessionId,
    originMessageId: (await originOf(agent.messages)) ?? '',
  });

  /**
   * A topic file the agent just wrote gets its provenance and index line at once, not when the turn
   * ends: a crash in between would leave it unindexed. Its own index edit, when queued in the same
   * response, comes a moment later, so then only the provenance is written here.
   */
  const recordNow = (name: string): void => {
    const home = memoryHome(deps.memoryDir, name);
    const indexComing = [...pendingWrites.values()].some(
      (n) => isIndexName(n) && memoryHome(deps.memoryDir, n).dir === home.dir,
    );
    const onRecorded = (r: Recorded): void => {
      if (r.stamped) refreshReadState(agent, path.join(home.dir, home.file), r.stamped);
      if (r.index) refreshReadState(agent, path.join(home.dir, MEMORY_INDEX_FILE), r.index, { keepPartial: true });
      if (r.line) provisional.set(name, r.line);
    };
    const done = recordTopicFile(home.dir, home.file, provenanceOf, { index: !indexComing, onRecorded })
      .then(
        () => undefined,
        (e: unknown) => notRecorded(name, e),
      )
      .finally(() => recording.delete(done));
    recording.add(done);
    agent.holdModelCalls(done);
  };

  const beforeTurn = async (ctx: BeforeTurnHookContext): Promise<void> => {
    pendingWrites.clear();
    writtenThisTurn.clear();
    teamWrittenThisTurn.clear();
    provisional.clear();
    turnOrigin = undefined;
    turnStart = ctx.agent.messages.length;
    turnStartKey = turnStart > 0 ? messageKeys(ctx.agent.messages)[turnStart - 1] : undefined;
    if (deps.recall === false) return;
    const result = await recallForPrompt(deps.memoryDir, ctx.display, ctx.agent.messages, {
      maxFiles: deps.recallMaxFiles ?? RECALL_MAX_FILES,
      team: deps.team !== undefined,
      // A file the agent has read and that has not changed since is already in the conversation.
      alreadyInContext: (abs, mtimeMs) => ctx.agent.readFiles.get(abs)?.mtimeMs === mtimeMs,
      ...(deps.recallMode === 'model' ? { pick: pickWithModel(ctx) } : {}),
      ...(deps.staleRecall ? { stale: deps.staleRecall } : {}),
    });
    if (result.blocks.length === 0 && !result.skipped) return;
    ctx.attachments.push(...result.blocks);
    emit({ type: 'memoryRecalled', ...recalledEventOf(result) });
  };

  const pickWithModel = (ctx: BeforeTurnHookContext): ReturnType<typeof modelPick> => {
    const fork = ctx.agent.forkContext();
    return modelPick({
      client: fork.client,
      model: fork.model,
      // The pick is spent on this turn: its tokens and its call show in the turn's figures.
      onUsage: (usage) => ctx.sideCall(usage),
      onFallback: (why) => logger.warn(`Recall: the model's pick failed (${why}); ranked locally instead`),
    });
  };

  const afterTurn = async (ctx: TurnHookContext): Promise<void> => {
    const complete = isCompleteTurn(ctx);
    try {
      await Promise.all([...recording]);
      if (complete) await recordDirectWrites(ctx);
      else await settleWrites([...writtenThisTurn]);
    } finally {
      // Even a cancelled turn's team writes are on disk and worth a sync.
      if (teamWrittenThisTurn.size > 0) deps.onTeamWrite?.([...teamWrittenThisTurn]);
      teamWrittenThisTurn.clear();
    }
    if (!complete) return;
    if (deps.extraction === false) return;
    if (++turnsSinceTrigger < everyTurns) return;
    turnsSinceTrigger = 0;
    extractor.trigger(ctx.messages.slice());
  };

  /**
   * Memory the main agent saved this turn: provenance and an index line if it still has none (a write
   * the watch missed), one line per file where it loads, an event.
   */
  const recordDirectWrites = async (ctx: TurnHookContext): Promise<void> => {
    const messages = ctx.messages;
    // A compaction during the turn replaced the list; then the whole list is this turn's view.
    const sameStart =
      turnStart <= messages.length && (turnStart === 0 || messageKeys(messages)[turnStart - 1] === turnStartKey);
    const seen = memoryWritesIn(messages.slice(sameStart ? turnStart : 0), deps.memoryDir, cwd).filter(
      (f) => !isIndexName(f),
    );
    const files = [...new Set([...seen, ...writtenThisTurn])];
    if (files.length === 0) return;
    const originMessageId = await originOf(messages);
    for (const file of files) {
      try {
        // A team file gets its line in the team index, not the private one.
        const home = memoryHome(deps.memoryDir, file);
        if (home.team) teamWrittenThisTurn.add(file);
        const entry = await recordTopicFile(home.dir, home.file, {
          originSessionId: agent.sessionId,
          originMessageId: originMessageId ?? '',
        });
        if (entry?.stamped) refreshReadState(ctx.agent, path.join(home.dir, home.file), entry.stamped);
        await settle(file);
        emit({
          type: 'memorySaved',
          file,
          title: entry?.title ?? file,
          by: 'user',
          ...(home.team ? { team: true } : {}),
        });
      } catch (e) {
        notRecorded(file, e);
      }
    }
  };

  /** One index line for `file`, where it loads; the agent's read record of the index follows the change. */
  const settle = async (file: string): Promise<void> => {
    const home = memoryHome(deps.memoryDir, file);
    const index = await settleIndexEntry(home.dir, home.file, provisional.get(file));
    if (index) refreshReadState(agent, path.join(home.dir, MEMORY_INDEX_FILE), index, { keepPartial: true });
  };

  /** A turn that did not complete still leaves one index line per file it saved. */
  const settleWrites = async (files: string[]): Promise<void> => {
    for (const file of files) await settle(file).catch((e: unknown) => notRecorded(file, e));
  };

  const removeBefore = agent.hooks.beforeTurn.add('autoMemory.recall', beforeTurn);
  const removeAfter = agent.hooks.afterTurn.add('autoMemory.afterTurn', afterTurn);
  return {
    memoryDir: deps.memoryDir,
    on: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    idle: () => extractor.idle(),
    dispose: () => {
      removeBefore();
      removeAfter();
      removeWriteWatch();
      extractor.dispose();
      listeners.clear();
    },
  };
}

/** A turn that ended with an answer, not waiting on a tool call (DESIGN 4). */
function isCompleteTurn(ctx: TurnHookContext): boolean {
  if (ctx.result.reason === 'cancelled' || ctx.result.reason === 'error') return false;
  const last: ApiMessage | undefined = ctx.messages[ctx.messages.length - 1];
  if (!last || last.role !== 'assistant') return false;
  return typeof last.content === 'string' || !last.content.some((b) => b.type === 'tool_use');
}

/**
 * After provenance was added to a file the agent just wrote, its read record would look stale and its
 * next Edit of the file would be refused; the change is ours, so the record follows it. The same for
 * an index line added while the agent works: an Edit of MEMORY.md it read before goes through (Edit
 * replaces text, so the added line stays); a part read stays a part read.
 */
function refreshReadState(agent: Agent, abs: string, state: StampedState, opts: { keepPartial?: boolean } = {}): void {
  const rec = agent.readFiles.get(abs);
  if (rec) agent.readFiles.set(abs, { ...rec, ...state, partial: opts.keepPartial ? rec.partial : false });
}
