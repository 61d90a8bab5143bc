// The inspector timeline's rows for checkpoints and rewinds (issue 33), as the webview draws them.
import type { ChangedFileView } from './chat';

/** A turn that changed files (checkpoints, issue 33): what it changed, and what its checkpoint skipped. */
export interface CheckpointRowView {
  kind: 'checkpoint';
  id: string;
  at: number;
  turn: number;
  promptUuid?: string;
  files: ChangedFileView[];
  skipped: Array<{ path: string; reason: 'too-big' | 'excluded' | 'outside-workspace' | 'not-a-file' }>;
}

/** A rewind: to right after `toTurn`, with how many files it wrote back and how many turns it dropped. */
export interface RewindRowView {
  kind: 'rewind';
  id: string;
  at: number;
  toTurn: number;
  files: number;
  droppedTurns: number;
  /** Files left as they were because the person changed them (restored only when asked). */
  conflicts?: string[];
  /** A later undo took it back. */
  undone?: boolean;
  /** This row is the undo of an earlier rewind (`files` put back, `toTurn` the turns the conversation has again). */
  undo?: boolean;
}
