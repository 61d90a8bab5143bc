// A session's checkpoints (issue 33): the store opens with the session (a trusted workspace only, when
// engram.checkpoints.enabled), and each turn is one checkpoint: begun before the agent's first change
// (the agent's beforeChange hook, awaited before Write, Edit, a Bash command that is not read-only, an
// MCP call), ended as the turn ends. A turn that changed files joins the timeline and is told to the
// host as a `checkpoint` event. A checkpoint that fails never stops the tool: the failure is logged and
// the chat hears that the turn is not covered.
//
// Turn numbers follow the conversation (turnIndex.ts): turn 1 is its first prompt, a turn is the number
// of prompts before it plus one; a Retry takes the number back, a conversation rewind to N sets it to N.
import type { Agent } from '../agent/agent';
import { openCheckpoints } from '../checkpoints/checkpointStore';
import type { Checkpoints, CheckpointsUnavailable, TurnCheckpoint } from '../checkpoints/types';
import { setReopened } from '../conversation/rewindLine';
import { readTurnIndex } from '../conversation/turnIndex';
import type { Logger } from '../ports';
import type { EngramSettings } from '../settings/engramSettings';
import { say } from './sessionEvents';
import type { SessionReporter } from './sessionReporter';

export type SessionCheckpointStore = Checkpoints | CheckpointsUnavailable;

const MB = 1024 * 1024;

/** Opens the store for a session: undefined in an untrusted workspace, unavailable (saying why) when off or failing. */
export async function openSessionCheckpoints(o: {
  trusted: boolean;
  settings: EngramSettings;
  dataDir: string;
  cwd: string;
  sessionId: string;
  logger: Logger;
}): Promise<SessionCheckpointStore | undefined> {
  if (!o.trusted) return undefined;
  if (!o.settings.checkpoints.enabled)
    return { available: false, reason: 'Checkpoints are turned off (setting engram.checkpoints.enabled).' };
  try {
    return await openCheckpoints({
      dataDir: o.dataDir,
      workspace: o.cwd,
      sessionId: o.sessionId,
      maxFileBytes: o.settings.checkpoints.maxFileSizeMB * MB,
      logger: o.logger,
    });
  } catch (e) {
    o.logger.warn(`Could not open the checkpoints: ${String(e)}`);
    return {
      available: false,
      reason: `Checkpoints could not be opened: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}

/** The session's side of the checkpoints: the hooks on the agent and the turn count. */
export class SessionCheckpoints {
  private count: number | undefined;
  private begun = false;
  private changeAsked = false;
  private notCovered: string | undefined;
  private readonly disposers: Array<() => void>;
  private closed: Promise<void> | undefined;

  constructor(
    private readonly agent: Agent,
    readonly store: Checkpoints,
    private readonly transcriptPath: string,
    private readonly reporter: SessionReporter,
    private readonly logger: Logger,
  ) {
    this.disposers = [
      agent.hooks.beforeTurn.add('checkpoints', async () => {
        await this.turnCount();
        this.begun = false;
        this.notCovered = undefined;
      }),
      agent.hooks.beforeChange.add('checkpoints', () => this.beforeChange()),
      agent.hooks.afterTurn.add('checkpoints', () => this.endTurn()),
    ];
    void this.listEarlier();
  }

  /** The checkpoints a resumed session had already, on its timeline (in order) as the session opens. */
  private async listEarlier(): Promise<void> {
    let earlier: TurnCheckpoint[];
    try {
      earlier = await this.store.list();
    } catch (e) {
      this.logger.warn(`Could not list the session's checkpoints: ${String(e)}`);
      return;
    }
    const timeline = this.reporter.timeline;
    for (const c of earlier) {
      if (c.files.length === 0 || timeline.some((t) => t.kind === 'checkpoint' && t.at === c.at)) continue;
      const entry = { kind: 'checkpoint' as const, at: c.at, turn: c.turn, files: c.files, skipped: c.skipped };
      const at = timeline.findIndex((t) => t.at > c.at);
      timeline.splice(at < 0 ? timeline.length : at, 0, c.promptUuid ? { ...entry, promptUuid: c.promptUuid } : entry);
      this.reporter.emit({ type: 'timeline', entry });
    }
  }

  /** Turns in the current conversation so far (read from the transcript once, then counted). */
  async turnCount(): Promise<number> {
    if (this.count === undefined) {
      const index = await readTurnIndex(this.transcriptPath).catch(() => undefined);
      const writer = this.agent.transcript;
      if (index && writer) setReopened(writer, index.reopened);
      this.count = index ? (await numberOffset(index.cut, index.turns, this.store)) + index.turns.length : 0;
    }
    return this.count;
  }

  /** The conversation now ends after turn `n` (a rewind, its undo, a Retry). */
  setTurnCount(n: number): void {
    this.count = Math.max(0, n);
  }

  /** A Retry or an Edit took the newest turn back. */
  turnTakenBack(): void {
    if (this.count !== undefined) this.count = Math.max(0, this.count - 1);
  }

  /** Detaches from the agent and lets go of the store (its background snapshot and locks); once. */
  close(): Promise<void> {
    for (const d of this.disposers.splice(0)) d();
    this.closed ??= this.store
      .dispose()
      .catch((e: unknown) => this.logger.warn(`Could not close the checkpoints: ${String(e)}`));
    return this.closed;
  }

  dispose(): void {
    void this.close();
  }

  private begin(): void {
    if (this.begun) return;
    this.changeAsked = false;
    this.begun = true;
    this.store.beginTurn((this.count ?? 0) + 1, this.agent.promptUuid);
  }

  private async beforeChange(): Promise<void> {
    this.begin();
    this.changeAsked = true;
    try {
      await this.store.beforeChange();
    } catch (e) {
      if (this.notCovered === undefined) this.logger.warn(`The turn's checkpoint failed: ${String(e)}`);
      this.notCovered ??= e instanceof Error ? e.message : String(e);
    }
  }

  private async endTurn(): Promise<void> {
    this.begin();
    const turn = (this.count ?? 0) + 1;
    this.count = turn;
    let checkpoint: TurnCheckpoint | undefined;
    try {
      checkpoint = await this.store.endTurn();
    } catch (e) {
      this.logger.warn(`The turn's checkpoint could not be finished: ${String(e)}`);
      this.notCovered ??= e instanceof Error ? e.message : String(e);
    }
    // The store logs a snapshot that failed and goes on: a turn that asked for one and has none is not covered.
    if (this.changeAsked && checkpoint?.before === undefined)
      this.notCovered ??= 'the snapshot before its first change failed (the log says why)';
    if (this.notCovered !== undefined) {
      this.reporter.notice(
        'warning',
        say('Turn {0} is not covered by a checkpoint: {1}. Its changes cannot be rewound.', turn, this.notCovered),
      );
    }
    if (!checkpoint || checkpoint.files.length === 0) return;
    const { files, skipped, promptUuid } = checkpoint;
    const uuid = promptUuid ? { promptUuid } : {};
    this.reporter.addTimeline({ kind: 'checkpoint', at: checkpoint.at, turn, ...uuid, files, skipped });
    this.reporter.emit({ type: 'checkpoint', turn, ...uuid, files, skipped });
  }
}

/**
 * A transcript that lost its first turns (turnIndex.ts `cut`) numbers its turns from where the
 * checkpoints say the first one it still holds was; 0 otherwise.
 */
export async function numberOffset(
  cut: boolean,
  turns: ReadonlyArray<{ promptUuid: string }>,
  store: Checkpoints | undefined,
): Promise<number> {
  if (!cut || !store || turns.length === 0) return 0;
  const listed = await store.list().catch(() => []);
  for (const [i, t] of turns.entries()) {
    const known = listed.find((c) => c.promptUuid === t.promptUuid);
    if (known) return Math.max(0, known.turn - 1 - i);
  }
  return 0;
}
