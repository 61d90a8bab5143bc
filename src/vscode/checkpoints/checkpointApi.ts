// The session's checkpoint API as the VS Code side uses it (issue 33): turns with their checkpoints, a
// rewind planned, applied and undone. The types mirror the session's (src/core/host/checkpoints.ts); this
// module is the one place the VS Code side reaches them, so the chat, the commands and the inspector
// share one view of a session that can rewind.
import type { EngramSession } from '../../core/host/sessions';

export interface ChangedFile {
  readonly path: string;
  readonly change: 'added' | 'modified' | 'deleted';
}

export interface SkippedPath {
  readonly path: string;
  readonly reason: 'too-big' | 'excluded' | 'outside-workspace' | 'not-a-file';
  readonly bytes?: number;
}

export interface TurnCheckpoint {
  readonly turn: number;
  readonly promptUuid?: string;
  readonly at: number;
  readonly before?: string;
  readonly after?: string;
  readonly files: readonly ChangedFile[];
  readonly skipped: readonly SkippedPath[];
}

export interface SessionTurn {
  turn: number;
  promptUuid?: string;
  prompt: string;
  compactedAway: boolean;
  checkpoint?: TurnCheckpoint;
}

export interface RewindFile {
  readonly path: string;
  readonly action: 'restore' | 'delete' | 'recreate';
  readonly conflict?: string;
  readonly now?: string;
  readonly target?: string;
}

export interface CodeRewindPlan {
  readonly toTurn: number;
  readonly turns: readonly number[];
  readonly files: readonly RewindFile[];
  readonly skipped: readonly SkippedPath[];
  readonly now: string;
}

export interface CodeRewindResult {
  readonly id: string;
  readonly written: readonly string[];
  readonly deleted: readonly string[];
  readonly conflicts: readonly string[];
  readonly failed: ReadonlyArray<{ readonly path: string; readonly message: string }>;
}

export interface RewindPlan {
  toTurn: number;
  code?: CodeRewindPlan;
  codeUnavailable?: string;
  conversation?: { droppedTurns: number; compactedAway?: string };
}

export interface RewindOutcome {
  id: string;
  toTurn: number;
  code?: CodeRewindResult;
  conversation?: { droppedTurns: number };
  summary: string;
}

export type Force = { force?: boolean | readonly string[] };

/** What the VS Code side calls of a session's checkpoints. */
export interface RewindableSession {
  readonly checkpoints:
    | { readonly available: true; readFile(commit: string, path: string): Promise<Buffer | undefined> }
    | { readonly available: false; readonly reason: string }
    | undefined;
  turns(): Promise<SessionTurn[]>;
  planRewind(req: { toTurn: number; promptUuid?: string; code: boolean; conversation: boolean }): Promise<RewindPlan>;
  applyRewind(plan: RewindPlan, opts?: Force): Promise<RewindOutcome>;
  undoRewind(id: string, opts?: Force): Promise<RewindOutcome>;
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
