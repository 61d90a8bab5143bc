// Wires session notes onto the MAIN conversation's agent. Only the main agent gets this: forks run the
// query loop without the agent's hooks, and sub-agents are separate Agents nobody attaches notes to, so
// neither ever triggers an update (DESIGN 4: never in sub-agents).
import type { Agent } from '../../agent/agent';
import type { Clock, Logger } from '../../ports';
import type { TokenCounter } from '../../tokens/accounting';
import { sessionNotesPaths, type SessionNotesPaths } from './paths';
import type { NotesCaps } from './template';
import type { TriggerThresholds } from './trigger';
import type { SessionNotesListener } from './events';
import { SessionNotes } from './updater';

export interface AttachSessionNotesDeps {
  /** Engram's data dir: the notes go to `<dataDir>/projects/<key>/<sessionId>/session-memory/`. */
  dataDir: string;
  /** Where the user's template is looked for; default the data dir. */
  configDir?: string;
  /** The project folder that picks `projects/<key>/`; default the agent's working directory. */
  projectPath?: string;
  /** Where the notes go when the session has worked it out already (memory/sessionPaths.ts). */
  paths?: SessionNotesPaths;
  /** From settings; missing values take DESIGN's defaults (thresholds.ts). */
  thresholds?: Partial<TriggerThresholds>;
  caps?: Partial<NotesCaps>;
  maxTurns?: number;
  logger?: Logger;
  clock?: Clock;
  countTokens?: TokenCounter;
  onEvent?: SessionNotesListener;
  /**
   * Make the turn wait for each update inside the hook. Off by default (the update runs in the
   * background and the turn goes on); tests turn it on to get a deterministic order of requests.
   */
  awaitUpdates?: boolean;
}

export function attachSessionNotes(agent: Agent, deps: AttachSessionNotesDeps): SessionNotes {
  const projectPath = deps.projectPath ?? agent.forkContext().cwd;
  const notes = new SessionNotes({
    paths: deps.paths ?? sessionNotesPaths(deps.dataDir, projectPath, agent.sessionId),
    configDir: deps.configDir ?? deps.dataDir,
    ...(deps.thresholds ? { thresholds: deps.thresholds } : {}),
    ...(deps.caps ? { caps: deps.caps } : {}),
    ...(deps.maxTurns !== undefined ? { maxTurns: deps.maxTurns } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.countTokens ? { countTokens: deps.countTokens } : {}),
  });
  if (deps.onEvent) notes.on(deps.onEvent);
  notes.bindSource(agent);
  // Start reading the sidecar now so the first response does not wait for it.
  void notes.load().catch((e: unknown) => deps.logger?.error('Could not read the session notes state', e));

  const removeResponseHook = agent.hooks.afterModelResponse.add('sessionNotes', async ({ agent: a, response }) => {
    const observed = await notes.onModelResponse(a, response);
    if (observed.update && deps.awaitUpdates) await observed.update;
  });
  // The trigger counts change with every response; writing them once a turn is enough for a reload.
  const removeTurnHook = agent.hooks.afterTurn.add('sessionNotes', () => {
    void notes.flushState();
  });
  const removeStartHook = agent.hooks.beforeTurn.add('sessionNotes', () => notes.onTurnStart());
  notes.addDisposer(removeStartHook);
  notes.addDisposer(removeResponseHook);
  notes.addDisposer(removeTurnHook);
  return notes;
}
