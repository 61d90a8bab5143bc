// The session's rewind API as hosts see it (issue 33): the turns with their checkpoints, a rewind's plan,
// and what applying or undoing one did. The logic is sessionRewind.ts; EngramSession offers it.
import type { CodeRewindPlan, CodeRewindResult, TurnCheckpoint } from '../checkpoints/types';

/** One turn of the session's current conversation, with its checkpoint when it has one. */
export interface SessionTurn {
  turn: number;
  promptUuid?: string;
  prompt: string;
  /** The transcript no longer holds its lines: its conversation cannot be gone back to (its code can). */
  compactedAway: boolean;
  checkpoint?: TurnCheckpoint;
}

export interface RewindRequest {
  toTurn: number;
  promptUuid?: string;
  code: boolean;
  conversation: boolean;
}

export interface RewindPlan {
  toTurn: number;
  /** The turn's prompt line, when the request named it (a turn number two branches share). */
  promptUuid?: string;
  code?: CodeRewindPlan;
  /** Why the code cannot be rewound (checkpoints off, untrusted, no checkpoint of those turns). */
  codeUnavailable?: string;
  conversation?: { droppedTurns: number; compactedAway?: string };
}

export type RewindForce = { force?: boolean | readonly string[] };

export interface RewindOutcome {
  /** What undoRewind takes (empty when nothing was changed). */
  id: string;
  toTurn: number;
  code?: CodeRewindResult;
  conversation?: { droppedTurns: number };
  /** One plain sentence of what was done. */
  summary: string;
}
