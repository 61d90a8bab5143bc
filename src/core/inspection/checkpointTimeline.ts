// The timeline's checkpoint and rewind rows (issue 33), from the session's entries: a turn that changed
// files, a rewind, and the undo of one (which marks the rewind before it undone). Plain Node: unit-tested.
import type { TimelineView } from '../../protocol/messages';
import type { TimelineEntry } from './timeline';

/** A checkpoint entry as the session records it (timeline.ts). */
type CheckpointEntry = Extract<TimelineEntry, { kind: 'checkpoint' }>;
/** A rewind entry (or, with `undo`, the undo of one) as the session records it. */
export type RewindEntry = Extract<TimelineEntry, { kind: 'rewind' }>;

type View = Extract<TimelineView, { kind: 'checkpoint' | 'rewind' }>;

export function checkpointTimelineView(entry: CheckpointEntry | RewindEntry, i: number): View {
  if (entry.kind === 'checkpoint')
    return {
      kind: 'checkpoint',
      id: `checkpoint-${i}`,
      at: entry.at,
      turn: entry.turn,
      ...(entry.promptUuid ? { promptUuid: entry.promptUuid } : {}),
      files: entry.files.map((f) => ({ path: f.path, change: f.change })),
      skipped: entry.skipped.map((s) => ({ path: s.path, reason: s.reason })),
    };
  return {
    kind: 'rewind',
    id: `rewind-${i}`,
    at: entry.at,
    toTurn: entry.toTurn,
    files: entry.files,
    droppedTurns: entry.droppedTurns,
    ...(entry.conflicts.length > 0 ? { conflicts: [...entry.conflicts] } : {}),
    ...(entry.undo ? { undo: true } : {}),
  };
}

/** Marks each rewind an undo took back: the newest one before the undo that is not undone yet. */
export function markUndoneRewinds(views: TimelineView[]): void {
  const open: Array<Extract<TimelineView, { kind: 'rewind' }>> = [];
  for (const v of views) {
    if (v.kind !== 'rewind') continue;
    if (!v.undo) open.push(v);
    else {
      const undone = open.pop();
      if (undone) undone.undone = true;
    }
  }
}
