// Opening a session, new or resumed, in the order the parts need each other: the session's paths first
// (the one place they are derived, memory/sessionPaths.ts), then whether team memory is on and its first
// pull (so the prompt has what the team knows), the memory folder's index (recovering files without an
// index line), the agent on its transcript with the memory write gate, a sweep of temp files a killed
// writer left, the workspace's checkpoints (a trusted workspace), and last the EngramSession that wires
// the rest (engramSession.ts).
import type { Agent } from '../agent/agent';
import { readCacheFacts, type TranscriptCacheFacts } from '../conversation/cacheFacts';
import type { ToolGate } from '../agent/permissions';
import { removeStaleTempFiles } from '../fs/atomicWrite';
import { memorySlots, prepareAutoMemoryIn, type PreparedAutoMemory } from '../memory/autoMemory/attach';
import { memoryWriteGate } from '../memory/autoMemory/memoryPermissions';
import { sessionPathsFor, type GitRootFinder, type SessionPaths } from '../memory/sessionPaths';
import { silentLogger, systemClock, type Logger } from '../ports';
import { SettingsStore, type EngramSettings, type SettingsSource } from '../settings/engramSettings';
import { checkedSessionId, openSession, type OpenedSession } from './agentSession';
import { EngramSession } from './engramSession';
import { openSessionCheckpoints } from './sessionCheckpoints';
import { readPinLines } from './sessionPins';
import { mcpToolsOf } from './sessionMcp';
import { PromptCacheTracker } from './promptCacheTracker';
import type { EngramSessionSetup } from './sessionSetup';
import { decideTeamMemory, TeamMemoryLink } from './teamMemoryLink';

/**
 * Opens a new or resumed session with the memory engine around it. `settings` may be a live store (its
 * changes reach the open session) or a fixed value. `findGitRoot` is for tests, which count its calls.
 */
export async function openEngramSession(
  setup: EngramSessionSetup,
  settings: SettingsSource | EngramSettings,
  findGitRoot?: GitRootFinder,
): Promise<EngramSession> {
  const store = isSource(settings) ? settings : SettingsStore.of(settings);
  const logger = setup.logger ?? silentLogger;
  const sessionId = checkedSessionId(setup.resumeSessionId);
  const paths = await sessionPathsFor({ dataDir: setup.dataDir, cwd: setup.cwd, sessionId }, findGitRoot);
  const decided = await decideTeamMemory({
    settings: store.settings,
    trusted: setup.trusted,
    paths,
    ...(setup.teamMemory ? { host: setup.teamMemory } : {}),
  });
  const team = new TeamMemoryLink(decided.state, setup.teamMemory);
  // Pulled before the prompt is composed, so this session starts with what the team knows (not for long).
  await team.startSync();
  const state = team.state;
  const memory = store.settings.memory.enabled
    ? await prepareAutoMemoryIn(paths, { recover: true, ...(state.on ? { team: { repo: state.repo } } : {}) })
    : undefined;
  const teamWarnings = [
    ...(decided.warning ? [decided.warning] : []),
    ...(memory?.teamProblem ? [`Team memory: ${memory.teamProblem}`] : []),
  ];
  const promptCache = new PromptCacheTracker(() => store.settings.promptCache.ttl, setup.clock ?? systemClock);
  if (setup.resumeSessionId !== undefined) promptCache.seed(await readCacheFacts(paths.transcript).catch(noFacts));
  let opened: OpenedSession;
  try {
    opened = await openAgent({ ...setup, client: promptCache.wrap(setup.client) }, store, paths, memory, logger);
  } catch (e) {
    team.dispose(); // a session that did not open must not go on syncing
    throw e;
  }
  await removeLeftoverTemps(paths, memory !== undefined, logger);
  const checkpoints = await openSessionCheckpoints({
    trusted: setup.trusted,
    settings: store.settings,
    dataDir: setup.dataDir,
    cwd: setup.cwd,
    sessionId: opened.sessionId,
    logger,
  });
  // Pins of a resumed session: the lines the reader could not read are among its warnings already.
  const pinLines = setup.resumeSessionId !== undefined ? await readPinLines(paths.transcript) : [];
  return new EngramSession({
    opened,
    pinLines,
    setup: { ...setup, now: setup.now ?? new Date() },
    paths,
    store,
    memory,
    team,
    teamWarnings,
    logger,
    promptCache,
    checkpoints,
  });
}

/** A transcript whose end cannot be read (the resume reports why) starts with a cold cache. */
function noFacts(): TranscriptCacheFacts {
  return { promptTimes: [], compactedAfter: false };
}

/** The agent on its transcript, with the memory indexes in its prompt and the memory write gate. */
async function openAgent(
  setup: EngramSessionSetup,
  store: SettingsSource,
  paths: SessionPaths,
  memory: PreparedAutoMemory | undefined,
  logger: Logger,
): Promise<OpenedSession> {
  // Writing into the project's memory folder is what "remember" means: no prompt for that. Other calls
  // go to the host's rule, or the session's own once the agent exists.
  let agent: Agent | undefined;
  const fallback: ToolGate = (tool, input, call) => {
    const rule = setup.gate ?? agent?.permissions.gate;
    if (!rule) return Promise.resolve({ allow: false, reason: 'The session is not open yet.' });
    return rule(tool, input, call);
  };
  const opened = await openSession({
    dataDir: setup.dataDir,
    cwd: setup.cwd,
    paths,
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
          gate: memoryWriteGate(paths.memoryDir, setup.cwd, fallback, {
            team: memory.team !== undefined,
            needsTool: setup.memoryWritesNeedTool === true,
          }),
        }
      : setup.gate
        ? { gate: setup.gate }
        : {}),
    ...(setup.tools ? { tools: setup.tools } : {}),
    ...(setup.search ? { search: setup.search } : {}),
    ...(setup.mcp ? { moreTools: mcpToolsOf(setup.mcp) } : {}),
    version: setup.version,
    entrypoint: setup.entrypoint,
    ...(setup.systemNotes ? { systemNotes: setup.systemNotes } : {}),
    logger,
    ...(setup.retry ? { retry: setup.retry } : {}),
    ...(setup.now ? { now: setup.now } : {}),
  });
  agent = opened.agent;
  return opened;
}

/**
 * A writer killed between its temp file and the rename leaves `.NAME.PID.HEX.tmp` behind: the folders
 * this session writes to (memory and team memory when memory is on, its own folder and its notes) are
 * swept of old ones as it opens.
 */
async function removeLeftoverTemps(paths: SessionPaths, memoryOn: boolean, logger: Logger): Promise<void> {
  const memoryDirs = memoryOn ? [paths.memoryDir, paths.teamDir] : [];
  const dirs = [...memoryDirs, paths.sessionDir, paths.notes.dir];
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
