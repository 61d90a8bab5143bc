// The contract of checkpoints (issue 33): what each turn of a session changed in the workspace, kept in a
// shadow git repository per workspace under the data folder, and a code rewind planned, applied and undone
// from it. The store (checkpointStore.ts) implements `Checkpoints`; the session takes one before the
// agent's first change in a turn and one as the turn ends; hosts plan, preview and apply rewinds.
//
// Paths are workspace-relative with forward slashes. Commit and blob ids are the shadow repository's.

/** One file a turn changed, as the snapshot before the turn and the one after it differ. */
export interface ChangedFile {
  readonly path: string;
  readonly change: 'added' | 'modified' | 'deleted';
}

/** Something a checkpoint does not cover, said in the chat, the preview and the CLI. */
export interface SkippedPath {
  readonly path: string;
  /**
   * too-big: over the size limit (setting engram.checkpoints.maxFileSizeMB); excluded: a heavy folder left
   * out by default (node_modules, build output) or ignored by .gitignore; outside-workspace: a tool wrote
   * outside the workspace; not-a-file: a socket, a device, a nested repository.
   */
  readonly reason: 'too-big' | 'excluded' | 'outside-workspace' | 'not-a-file';
  readonly bytes?: number;
}

/** One turn as recorded: every turn gets one, even a turn that changed nothing (before/after unset). */
export interface TurnCheckpoint {
  readonly sessionId: string;
  /** 1-based: turn 1 is the session's first prompt (numbered along the conversation the turn was in). */
  readonly turn: number;
  /** The transcript line of the turn's prompt, when it was written. */
  readonly promptUuid?: string;
  /** When the turn started (ms since the epoch). */
  readonly at: number;
  /** The workspace before the agent's first change in the turn; unset when the agent changed nothing. */
  readonly before?: string;
  /** The workspace as the turn ended. */
  readonly after?: string;
  /** What the turn changed (before -> after), sorted by path. */
  readonly files: readonly ChangedFile[];
  readonly skipped: readonly SkippedPath[];
}

/** One file of a code rewind. */
export interface RewindFile {
  readonly path: string;
  /** restore: write older content back; delete: remove a file the agent created; recreate: one it deleted. */
  readonly action: 'restore' | 'delete' | 'recreate';
  /** The person changed it after the agent did: left as it is unless forced (the reason says what happened). */
  readonly conflict?: string;
  /** Blob of the content now (unset: no file now) and of the content it goes back to (unset: no file). */
  readonly now?: string;
  readonly target?: string;
}

export interface CodeRewindPlan {
  readonly sessionId: string;
  /** The state right after this turn is what the files go back to. */
  readonly toTurn: number;
  /** The turns whose changes are undone, oldest first. */
  readonly turns: readonly number[];
  readonly files: readonly RewindFile[];
  /** What the undone turns' checkpoints did not cover: those files are left as they are. */
  readonly skipped: readonly SkippedPath[];
  /** The workspace as it is now (a snapshot commit): the preview's "before" side and the rewind's undo. */
  readonly now: string;
}

export interface CodeRewindResult {
  /** Names this rewind for undoCodeRewind. */
  readonly id: string;
  readonly written: readonly string[];
  readonly deleted: readonly string[];
  /** Conflicts left as they were. */
  readonly conflicts: readonly string[];
  readonly failed: ReadonlyArray<{ readonly path: string; readonly message: string }>;
}

/** A workspace's checkpoints as one session sees them. */
export interface Checkpoints {
  readonly available: true;
  /**
   * Set when opening the store finished a rewind (or an undo) that a crash had stopped halfway: one
   * sentence saying what it did, to be said once to the person.
   */
  readonly recovered?: string;
  /** A turn starts (the agent calls no tool yet): no snapshot is taken until beforeChange. */
  beginTurn(turn: number, promptUuid?: string): void;
  /** Before a tool that may change files runs: the turn's before-snapshot, taken once per turn. */
  beforeChange(): Promise<void>;
  /** The turn ended: its after-snapshot (when one was taken before) and its line in the log. */
  endTurn(): Promise<TurnCheckpoint | undefined>;
  /** This session's turns, oldest first. */
  list(): Promise<TurnCheckpoint[]>;
  /**
   * What going back to the state right after `toTurn` would do (0: before the first turn). `promptUuid`
   * picks the turn when the conversation was rewound before and two turns share the number.
   */
  planCodeRewind(toTurn: number, promptUuid?: string): Promise<CodeRewindPlan>;
  /** Writes the plan (temp file + rename per file, under a journal). Conflicts only when forced (all, or by path). */
  applyCodeRewind(plan: CodeRewindPlan, opts?: { force?: boolean | readonly string[] }): Promise<CodeRewindResult>;
  /** Puts back what a rewind changed (its own conflict check: files changed since are left unless forced). */
  undoCodeRewind(id: string, opts?: { force?: boolean | readonly string[] }): Promise<CodeRewindResult>;
  /** A file's content at a commit (undefined: no such file there), for diff views. */
  readFile(commit: string, path: string): Promise<Buffer | undefined>;
  /** Lets go of locks and background work. */
  dispose(): Promise<void>;
}

/** Why checkpoints are off for a workspace (no git, turned off, too many files): said once, in plain words. */
export interface CheckpointsUnavailable {
  readonly available: false;
  readonly reason: string;
}
