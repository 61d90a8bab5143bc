// The timeline of one session, as data: what the inspector's Timeline renders, in order. The session
// (core/session) appends to it; nothing else builds it.
import type { CompactionEvent } from '../compaction/events';
import type { AutoMemoryEvent } from '../memory/autoMemory/extraction';
import type { SessionNotesEvent } from '../memory/sessionNotes/events';

/** One thing that happened to the memory of the current session. */
export type TimelineEntry =
  | { kind: 'notes'; at: number; event: SessionNotesEvent }
  | { kind: 'memory'; at: number; event: AutoMemoryEvent }
  | { kind: 'compaction'; at: number; event: CompactionEvent };
