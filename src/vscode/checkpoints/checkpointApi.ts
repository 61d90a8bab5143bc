// The session's checkpoint API as the VS Code side uses it (issue 33): turns with their checkpoints, a
// rewind planned, applied and undone. The types are the session's (src/core/host/checkpoints.ts); this
// module is the one place the VS Code side reaches them, so the chat, the commands and the inspector
// share one view of a session that can rewind.
import type { RewindForce, RewindOutcome, RewindPlan, RewindRequest, SessionTurn } from '../../core/host/checkpoints';
import type { EngramSession } from '../../core/host/sessions';

export type { RewindOutcome, RewindPlan, SessionTurn } from '../../core/host/checkpoints';

/** One turn's checkpoint: what it changed (before -> after) and what it skipped. */
export type TurnCheckpoint = NonNullable<SessionTurn['checkpoint']>;
/** The code part of a rewind plan: each file, its action and its conflict. */
export type CodeRewindPlan = NonNullable<RewindPlan['code']>;
/** What the VS Code side calls of a session's checkpoints. */
export interface RewindableSession {
  readonly checkpoints:
    | { readonly available: true; readFile(commit: string, path: string): Promise<Buffer | undefined> }
    | { readonly available: false; readonly reason: string }
    | undefined;
  turns(): Promise<SessionTurn[]>;
  planRewind(req: RewindRequest): Promise<RewindPlan>;
  applyRewind(plan: RewindPlan, opts?: RewindForce): Promise<RewindOutcome>;
  undoRewind(id: string, opts?: RewindForce): Promise<RewindOutcome>;
}

/** The session's rewind side, as the VS Code side uses it (undefined without a session). */
export function rewindable(session: EngramSession | undefined): RewindableSession | undefined {
  return session;
}

/** Why the files of this session cannot be rewound, or undefined when they can (or there is no session). */
export function checkpointsOff(session: EngramSession | undefined): string | undefined {
  if (!session) return undefined;
  const c = session.checkpoints;
  if (!c) return 'Checkpoints are not kept for this session (the workspace is not trusted).';
  return c.available ? undefined : c.reason;
}
