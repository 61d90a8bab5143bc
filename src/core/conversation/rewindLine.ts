// Taking the conversation back in the transcript: the chat's Retry and Edit (the newest turn) and a
// rewind to the state right after turn N (issue 33). The dropped lines stay in the file, as Claude Code
// keeps abandoned branches; what makes them a dead branch is a newer line whose parentUuid chain does
// not pass through them. The retried prompt is such a line, but only once it is written: a session
// reopened before that (a model change reopens it from disk) would read the dropped turn back and join
// the retried prompt onto it. So the rewind itself is written down at once: a system line hanging off
// the line the conversation goes back to. The chain reader lets it end the conversation like a message
// does (conversationChain.ts), and the next line hangs off the same place, not off it.
//
// A rewind to a turn before a compaction goes back behind that compaction's boundary, which the reader
// would otherwise stop at: the marker lists such boundaries in `reopens`, and while it is the newest
// marker the reader does not honour them (CurrentLines). A later marker (a Retry after the rewind, the
// undo) carries the list in force on, plus its own, so the conversation it reads stays reachable.
import type { TranscriptLine } from './transcriptReader';
import type { TranscriptWriter } from './transcriptWriter';
import type { SystemLine } from './types';

export const REWIND_SUBTYPE = 'turn_rewound';

/** What a rewind marker records besides where the conversation went back to (its parentUuid). */
export interface RewindFields {
  /** The newest line before the rewind: what an undo goes back to. */
  droppedLeafUuid?: string;
  /** A rewind to the state right after this turn (unset: Retry or Edit of the newest turn). */
  toTurn?: number;
  /** Compact boundaries the reader passes over while this marker is the newest (see the header). */
  reopens?: string[];
  /** The list that was in force before this marker: an undo carries it. */
  droppedReopens?: string[];
  /** Set on the marker of an undo: the marker of the rewind it undoes. */
  undoes?: string;
}

/** A rewind marker: where the conversation went back to (its parentUuid; null for the first turn). */
export function isRewindLine(line: TranscriptLine): boolean {
  return line.type === 'system' && line.subtype === REWIND_SUBTYPE;
}

/** The boundaries a marker reopens (empty for any other line or a marker without the list). */
export function reopenedBy(line: TranscriptLine): string[] {
  const list = (line as { reopens?: unknown }).reopens;
  return Array.isArray(list) ? list.filter((u): u is string => typeof u === 'string') : [];
}

/** The boundaries reopened for the conversation each writer continues: carried into its next marker. */
const inForce = new WeakMap<TranscriptWriter, readonly string[]>();

/** The boundaries the conversation `writer` continues has reopened (read when it was loaded, or since). */
export function setReopened(writer: TranscriptWriter, reopens: readonly string[]): void {
  inForce.set(writer, reopens);
}

export function reopenedIn(writer: TranscriptWriter): readonly string[] {
  return inForce.get(writer) ?? [];
}

/**
 * Records that the conversation continues from `to` (the last line kept) and points the writer there.
 * The marker's line is built now, so the chain is right even before it is on disk.
 */
export function recordRewind(
  writer: TranscriptWriter,
  to: string | null,
  droppedFrom: string | null,
  more: RewindFields & { content?: string; exactReopens?: boolean } = {},
): Promise<SystemLine> {
  const { content, exactReopens, ...extra } = more;
  const before = reopenedIn(writer);
  // An undo names exactly the list its conversation was read with; any other marker carries the one in force on.
  const reopens = [...new Set([...(exactReopens ? [] : before), ...(extra.reopens ?? [])])];
  const fields: RewindFields = {
    ...(droppedFrom ? { droppedLeafUuid: droppedFrom } : {}),
    ...extra,
    ...(reopens.length > 0 ? { reopens } : {}),
    ...(before.length > 0 ? { droppedReopens: [...before] } : {}),
  };
  writer.setParent(to);
  const written = writer.appendSystem({
    subtype: REWIND_SUBTYPE,
    content: content ?? 'The last turn was taken back (retry or edit).',
    level: 'info',
    isMeta: true,
    ...(Object.keys(fields).length > 0 ? { fields: { ...fields } } : {}),
  });
  writer.setParent(to);
  setReopened(writer, reopens);
  return written;
}
