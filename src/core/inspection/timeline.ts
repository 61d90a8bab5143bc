// The timeline of one session, as data: what the inspector's Timeline renders, in order. The session
// (core/session) appends to it; nothing else builds it.
import type { ChangedFile, SkippedPath } from '../checkpoints/types';
import type { CompactionEvent } from '../compaction/events';
import type { AutoMemoryEvent } from '../memory/autoMemory/extraction';
import type { SessionNotesEvent } from '../memory/sessionNotes/events';

/** One thing that happened to the memory of the current session. */
export type TimelineEntry =
  | { kind: 'notes'; at: number; event: SessionNotesEvent }
  | { kind: 'memory'; at: number; event: AutoMemoryEvent }
  | { kind: 'compaction'; at: number; event: CompactionEvent }
  /** A turn that changed files: its checkpoint (issue 33). */
  | {
      kind: 'checkpoint';
      at: number;
      turn: number;
      promptUuid?: string;
      files: readonly ChangedFile[];
      skipped: readonly SkippedPath[];
    }
  /**
   * A rewind (code, conversation or both) or its undo (`undo`): `rewindId` names it for undoRewind; `files`
   * written back or deleted, conversation turns dropped, files left as they were (the person changed them).
   */
  | {
      kind: 'rewind';
      at: number;
      toTurn: number;
      rewindId: string;
      summary: string;
      undo: boolean;
      files: number;
      droppedTurns: number;
      conflicts: readonly string[];
    };
