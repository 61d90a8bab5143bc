import type { CompactionEvent } from '../core/compaction/events';
import type { AutoMemoryEvent } from '../core/memory/autoMemory/extraction';
import type { SessionNotesEvent } from '../core/memory/sessionNotes/events';
import type { SessionNotes } from '../core/memory/sessionNotes/updater';
import type { GaugeState } from '../protocol/messages';

/** One thing that happened to the memory of the current session, in order: what the timeline renders. */
export type TimelineEntry =
  | { kind: 'notes'; at: number; event: SessionNotesEvent }
  | { kind: 'memory'; at: number; event: AutoMemoryEvent }
  | { kind: 'compaction'; at: number; event: CompactionEvent };

/** What the chat session tells the Memory Inspector about the live session (the "current session" source). */
export interface InspectorContext {
  sessionId: string | undefined;
  /** The project folder (transcripts and memory are keyed by it). */
  cwd: string;
  dataDir: string;
  transcriptPath: string | undefined;
  gauge: GaugeState;
  notes: SessionNotes | undefined;
  memoryDir: string | undefined;
  timeline: readonly TimelineEntry[];
}
