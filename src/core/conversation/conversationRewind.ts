// A conversation rewind to the state right after turn N, and its undo (issue 33), as lines in the
// transcript: a rewind marker (rewindLine.ts) hanging off turn N's last line, so a resume reads turns
// 1..N and the later turns stay in the file as a side branch; the undo is another marker, hanging off
// the line the rewind dropped. Planned from the turn index (turnIndex.ts); the same for a live session
// (its own writer) and for `engram rewind` on a session on disk.
import { recordRewind, REWIND_SUBTYPE, setReopened } from './rewindLine';
import { forEachTranscriptLine, type TranscriptLine } from './transcriptReader';
import type { TranscriptWriter } from './transcriptWriter';
import { boundariesAfter, type IndexedTurn, type TurnIndex } from './turnIndex';

export interface ConversationRewindPlan {
  toTurn: number;
  /** Turns after `toTurn` that the conversation drops (they stay in the file). */
  droppedTurns: number;
  /** Set when the conversation cannot go back there, in a sentence (the code still can). */
  unavailable?: string;
  /** The line the conversation ends with after the rewind (null: before the first prompt). */
  targetUuid?: string | null;
  /** Compact boundaries written after that line: the marker reopens them. */
  reopens?: string[];
}

/** Turn N was compacted away, in the words the chat and the CLI use. */
export function compactedAwayText(turn: number): string {
  return `Turn ${turn} was compacted away: its conversation cannot be restored; the code can still be rewound.`;
}

/**
 * What taking the conversation back to the state right after `toTurn` means. `turns` are the index's
 * turns as numbered for the session (`first` is the number of the file's first turn, above 1 when the
 * file lost its first turns); `promptUuid` names the turn when the number is ambiguous.
 */
export function planConversationRewind(
  index: TurnIndex,
  turns: readonly IndexedTurn[],
  toTurn: number,
  promptUuid?: string,
): ConversationRewindPlan {
  const latest = turns.length > 0 ? turns[turns.length - 1].turn : 0;
  if (!Number.isInteger(toTurn) || toTurn < 0 || toTurn > latest)
    throw new RangeError(
      `There is no turn ${toTurn} in this conversation: it has ${latest} turn${latest === 1 ? '' : 's'} (0 goes back to before the first).`,
    );
  const droppedTurns = latest - toTurn;
  if (toTurn === 0) {
    if (index.cut) return { toTurn, droppedTurns, unavailable: compactedAwayText(1) };
    return { toTurn, droppedTurns, targetUuid: null, reopens: boundariesAfter(index, null) };
  }
  const turn = turns.find((t) => t.turn === toTurn);
  if (!turn) return { toTurn, droppedTurns, unavailable: compactedAwayText(toTurn) };
  if (promptUuid !== undefined && turn.promptUuid !== promptUuid)
    return {
      toTurn,
      droppedTurns,
      unavailable: `Turn ${toTurn} of that checkpoint is on a branch the conversation left: its conversation cannot be restored; the code can still be rewound.`,
    };
  return { toTurn, droppedTurns, targetUuid: turn.lastUuid, reopens: boundariesAfter(index, turn.lastUuid) };
}

/**
 * Writes the rewind marker and points `writer` after it; resolves with the marker's uuid (the rewind's
 * name for its undo). `leafUuid` is the newest line now, which the undo goes back to.
 */
export async function recordConversationRewind(
  writer: TranscriptWriter,
  plan: ConversationRewindPlan,
  leafUuid: string | null,
  index: TurnIndex,
): Promise<string> {
  if (plan.unavailable !== undefined || plan.targetUuid === undefined) throw new Error(plan.unavailable);
  setReopened(writer, index.reopened);
  const line = await recordRewind(writer, plan.targetUuid, leafUuid, {
    toTurn: plan.toTurn,
    reopens: plan.reopens ?? [],
    content: `The conversation was taken back to turn ${plan.toTurn}.`,
  });
  await writer.flush();
  return line.uuid;
}

/**
 * Undoes the conversation rewind whose marker is `markerUuid`: a marker hanging off the line that
 * rewind dropped, so the conversation reads as it did before it. Turns typed since the rewind become a
 * side branch in their turn. Resolves with the new marker's uuid.
 */
export async function recordRewindUndo(
  writer: TranscriptWriter,
  file: string,
  markerUuid: string,
  index: TurnIndex,
): Promise<string> {
  let marker: TranscriptLine | undefined;
  await forEachTranscriptLine(file, (line) => {
    if (line.uuid === markerUuid && line.type === 'system' && line.subtype === REWIND_SUBTYPE) marker = line;
  });
  const dropped = marker?.droppedLeafUuid;
  if (
    !marker ||
    (typeof marker.toTurn !== 'number' && typeof marker.undoes !== 'string') ||
    typeof dropped !== 'string'
  )
    throw new Error(`There is no conversation rewind ${markerUuid} in this session's transcript.`);
  const before = Array.isArray(marker.droppedReopens) ? marker.droppedReopens.filter((u) => typeof u === 'string') : [];
  const line = await recordRewind(writer, dropped, writer.lastUuid ?? index.leafUuid ?? null, {
    undoes: markerUuid,
    reopens: [...new Set([...before, ...boundariesAfter(index, dropped)])],
    exactReopens: true,
    content: 'A rewind was undone: the conversation is again as it was before it.',
  });
  await writer.flush();
  return line.uuid;
}
