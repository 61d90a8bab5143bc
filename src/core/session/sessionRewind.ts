// Rewinding a session to the state right after turn N (issue 33): its code (the checkpoint store) and its
// conversation (a rewind marker in the transcript, conversationRewind.ts), planned first so a person sees
// what will change, then applied, and undone by the id the outcome names. The same for a live session
// (EngramSession: the agent's list is replaced by the conversation read back from disk, as a resume reads
// it) and for `engram rewind` on a session on disk (host/checkpoints.ts).
//
// An outcome's id names its parts: `code:<store id>` and `conversation:<marker uuid>`, joined by `+`.
import type { Agent } from '../agent/agent';
import type { CodeRewindResult, TurnCheckpoint } from '../checkpoints/types';
import type { RewindForce, RewindOutcome, RewindPlan, RewindRequest, SessionTurn } from './rewindTypes';
import { planConversationRewind, recordConversationRewind, recordRewindUndo } from '../conversation/conversationRewind';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import { type IndexedTurn, readTurnIndex, type TurnIndex } from '../conversation/turnIndex';
import { isErrno } from '../fs/errno';
import { loadReplayedConversation } from '../compaction/recordedCompactions';
import { numberOffset, type SessionCheckpoints, type SessionCheckpointStore } from './sessionCheckpoints';
import type { SessionReporter } from './sessionReporter';

/** What a rewind works on: the transcript and its writer, the checkpoints, and the live session if any. */
export interface RewindTarget {
  transcriptPath: string;
  writer(): TranscriptWriter;
  checkpoints: SessionCheckpointStore | undefined;
  /** A reason the rewind must wait (a turn runs), or undefined. */
  busy(): string | undefined;
  /** Conversation lines are about to be written: throws when another process holds the session. */
  beforeConversationWrite?(): Promise<void>;
  /** The conversation on disk changed (it now has `turns` turns): a live session reads it back. */
  conversationChanged?(turns: number): Promise<void>;
  /** A rewind or an undo was applied (the timeline, the host's event). */
  applied?(outcome: RewindOutcome, undo: boolean): void;
}

/** The turns of the current conversation, numbered for the session, and the index they come from. */
export async function sessionTurns(
  target: RewindTarget,
): Promise<{ turns: SessionTurn[]; index: TurnIndex; numbered: IndexedTurn[] }> {
  const index = await readTurnIndex(target.transcriptPath).catch((e: unknown) => {
    if (isErrno(e, 'ENOENT')) return emptyIndex();
    throw e;
  });
  const store = target.checkpoints?.available ? target.checkpoints : undefined;
  const offset = await numberOffset(index.cut, index.turns, store);
  const listed = store ? await store.list() : [];
  const numbered = index.turns.map((t) => ({ ...t, turn: t.turn + offset }));
  const checkpointOf = (turn: number, promptUuid?: string): TurnCheckpoint | undefined =>
    listed.find((c) => promptUuid !== undefined && c.promptUuid === promptUuid) ??
    listed.find((c) => c.turn === turn && c.promptUuid === undefined);
  const turns: SessionTurn[] = [];
  for (let n = 1; n <= offset; n++) {
    const checkpoint = listed.filter((c) => c.turn === n).pop();
    turns.push({ turn: n, prompt: '', compactedAway: true, ...(checkpoint ? { checkpoint } : {}) });
  }
  for (const t of numbered) {
    const checkpoint = checkpointOf(t.turn, t.promptUuid);
    turns.push({
      turn: t.turn,
      promptUuid: t.promptUuid,
      prompt: t.prompt,
      compactedAway: false,
      ...(checkpoint ? { checkpoint } : {}),
    });
  }
  return { turns, index, numbered };
}

function emptyIndex(): TurnIndex {
  return { turns: [], leafUuid: undefined, cut: false, boundaries: [], indexOf: new Map(), reopened: [] };
}

/** What going back to the state right after `req.toTurn` would do; writes nothing. */
export async function planSessionRewind(target: RewindTarget, req: RewindRequest): Promise<RewindPlan> {
  refuseWhileBusy(target);
  const { turns, index, numbered } = await sessionTurns(target);
  const latest = turns.length > 0 ? turns[turns.length - 1].turn : 0;
  if (!Number.isInteger(req.toTurn) || req.toTurn < 0 || req.toTurn > latest)
    throw new RangeError(
      `There is no turn ${req.toTurn} in this session: it has ${latest} turn${latest === 1 ? '' : 's'} ` +
        `(1 is the first prompt; 0 goes back to before it).`,
    );
  // A turn number two branches share (a rewind, then new turns) means the one in the conversation now.
  const promptUuid = req.promptUuid ?? turns.find((t) => t.turn === req.toTurn)?.promptUuid;
  const plan: RewindPlan = { toTurn: req.toTurn, ...(promptUuid ? { promptUuid } : {}) };
  if (req.code) {
    const store = target.checkpoints;
    if (!store) plan.codeUnavailable = 'Checkpoints are not kept for this session (the workspace is not trusted).';
    else if (!store.available) plan.codeUnavailable = store.reason;
    else {
      try {
        plan.code = await store.planCodeRewind(req.toTurn, promptUuid);
      } catch (e) {
        plan.codeUnavailable = e instanceof Error ? e.message : String(e);
      }
    }
  }
  if (req.conversation) {
    const c = planConversationRewind(index, numbered, req.toTurn, promptUuid);
    plan.conversation = { droppedTurns: c.droppedTurns, ...(c.unavailable ? { compactedAway: c.unavailable } : {}) };
  }
  return plan;
}

/** Applies a plan: the code first (conflicts only when forced), then the conversation. */
export async function applySessionRewind(
  target: RewindTarget,
  plan: RewindPlan,
  opts: RewindForce = {},
): Promise<RewindOutcome> {
  refuseWhileBusy(target);
  const wantsConversation =
    plan.conversation !== undefined && !plan.conversation.compactedAway && plan.conversation.droppedTurns > 0;
  if (wantsConversation) await target.beforeConversationWrite?.();
  // Planned again from the file as it is now (as its writer), before anything is written: a plan can be old.
  const fresh = wantsConversation ? await sessionTurns(target) : undefined;
  const conversation = fresh
    ? planConversationRewind(fresh.index, fresh.numbered, plan.toTurn, plan.promptUuid)
    : undefined;
  if (conversation?.unavailable) throw new Error(conversation.unavailable);
  const ids: string[] = [];
  let code: CodeRewindResult | undefined;
  if (plan.code) {
    const store = target.checkpoints;
    if (!store?.available) throw new Error(store?.reason ?? 'Checkpoints are not kept for this session.');
    code = await store.applyCodeRewind(plan.code, opts);
    ids.push(`code:${code.id}`);
  }
  if (fresh && conversation) {
    const writer = target.writer();
    const marker = await recordConversationRewind(writer, conversation, writer.lastUuid, fresh.index);
    ids.push(`conversation:${marker}`);
    await target.conversationChanged?.(plan.toTurn);
  }
  const dropped = conversation ? { droppedTurns: conversation.droppedTurns } : undefined;
  const outcome: RewindOutcome = {
    id: ids.join('+'),
    toTurn: plan.toTurn,
    ...(code ? { code } : {}),
    ...(dropped ? { conversation: dropped } : {}),
    summary: rewindSummary(plan.toTurn, code, dropped?.droppedTurns),
  };
  if (outcome.id !== '') target.applied?.(outcome, false);
  return outcome;
}

/** Undoes the rewind `id` names: the files it changed (its own conflict check) and the conversation. */
export async function undoSessionRewind(
  target: RewindTarget,
  id: string,
  opts: RewindForce = {},
): Promise<RewindOutcome> {
  refuseWhileBusy(target);
  const parts = parseRewindId(id);
  const ids: string[] = [];
  let code: CodeRewindResult | undefined;
  if (parts.conversation) await target.beforeConversationWrite?.();
  if (parts.code) {
    const store = target.checkpoints;
    if (!store?.available) throw new Error(store?.reason ?? 'Checkpoints are not kept for this session.');
    code = await store.undoCodeRewind(parts.code, opts);
    ids.push(`code:${code.id}`);
  }
  let turns: number | undefined;
  if (parts.conversation) {
    const { index } = await sessionTurns(target);
    const marker = await recordRewindUndo(target.writer(), target.transcriptPath, parts.conversation, index);
    ids.push(`conversation:${marker}`);
    turns = (await sessionTurns(target)).turns.length;
    await target.conversationChanged?.(turns);
  }
  const toTurn = turns ?? (await sessionTurns(target)).turns.length;
  const outcome: RewindOutcome = {
    id: ids.join('+'),
    toTurn,
    ...(code ? { code } : {}),
    ...(turns !== undefined ? { conversation: { droppedTurns: 0 } } : {}),
    summary: undoSummary(code, turns),
  };
  target.applied?.(outcome, true);
  return outcome;
}

/** The parts of an outcome's id; a clear error for anything else. */
export function parseRewindId(id: string): { code?: string; conversation?: string } {
  const out: { code?: string; conversation?: string } = {};
  for (const part of id.split('+')) {
    const at = part.indexOf(':');
    const kind = part.slice(0, at);
    const value = part.slice(at + 1);
    if (at > 0 && value !== '' && (kind === 'code' || kind === 'conversation') && out[kind] === undefined)
      out[kind] = value;
    else
      throw new Error(
        `"${id}" is not a rewind id: it looks like code:ID, conversation:ID or both joined by "+", as a rewind printed it.`,
      );
  }
  return out;
}

function refuseWhileBusy(target: RewindTarget): void {
  const why = target.busy();
  if (why) throw new Error(why);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** What the code part did, in a clause ("2 files written back, 1 deleted; ..."). */
function codeClause(code: CodeRewindResult): string {
  const done = [`${plural(code.written.length, 'file')} written back`, `${code.deleted.length} deleted`];
  const more: string[] = [];
  if (code.conflicts.length > 0)
    more.push(
      `${plural(code.conflicts.length, 'file')} you changed left as ${code.conflicts.length === 1 ? 'it is' : 'they are'} (${code.conflicts.join(', ')})`,
    );
  if (code.failed.length > 0)
    more.push(`${code.failed.length} not written (${code.failed.map((f) => `${f.path}: ${f.message}`).join('; ')})`);
  return [done.join(', '), ...more].join('; ');
}

function rewindSummary(toTurn: number, code: CodeRewindResult | undefined, droppedTurns: number | undefined): string {
  const parts: string[] = [];
  if (code) parts.push(`the code (${codeClause(code)})`);
  if (droppedTurns !== undefined) parts.push(`the conversation (${plural(droppedTurns, 'later turn')} dropped)`);
  const at = toTurn === 0 ? 'before the first prompt' : `right after turn ${toTurn}`;
  if (parts.length === 0) return `Nothing to rewind: the session is already as it was ${at}.`;
  return `Rewound ${parts.join(' and ')} to ${at}.`;
}

function undoSummary(code: CodeRewindResult | undefined, turns: number | undefined): string {
  const parts: string[] = [];
  if (code) parts.push(`the code (${codeClause(code)})`);
  if (turns !== undefined) parts.push(`the conversation (back to ${plural(turns, 'turn')})`);
  return `Undid the rewind: ${parts.join(' and ')}.`;
}

/** The rewind target of a live session: refuses while a turn runs, reads the conversation back after. */
export function liveRewindTarget(o: {
  agent: Agent;
  transcriptPath: string;
  checkpoints: SessionCheckpointStore | undefined;
  link: SessionCheckpoints | undefined;
  reporter: SessionReporter;
  finished: () => boolean;
}): RewindTarget {
  const { agent, reporter } = o;
  return {
    transcriptPath: o.transcriptPath,
    checkpoints: o.checkpoints,
    writer: () => {
      if (!agent.transcript) throw new Error('This session has no transcript to rewind.');
      return agent.transcript;
    },
    // Lines still on their way (a pin, a compaction's records) are in the file before it is read.
    beforeConversationWrite: async () => {
      await agent.transcript?.flush();
    },
    busy: () =>
      o.finished()
        ? 'This session has finished.'
        : agent.busy
          ? 'A turn is running: wait for it to end (or stop it) before rewinding.'
          : undefined,
    conversationChanged: async (turns) => {
      // Read back the way a resume reads it: the marker ends the conversation where the rewind put it.
      await agent.transcript?.flush();
      const read = await loadReplayedConversation(o.transcriptPath);
      agent.replaceMessages(read.entries.map((e) => e.message));
      o.link?.setTurnCount(turns);
    },
    applied: (outcome, undo) => {
      reporter.addTimeline({
        kind: 'rewind',
        at: Date.now(),
        toTurn: outcome.toTurn,
        rewindId: outcome.id,
        summary: outcome.summary,
        undo,
        files: (outcome.code?.written.length ?? 0) + (outcome.code?.deleted.length ?? 0),
        droppedTurns: outcome.conversation?.droppedTurns ?? 0,
        conflicts: outcome.code?.conflicts ?? [],
      });
      reporter.emit({ type: 'rewind', outcome, undo });
    },
  };
}
