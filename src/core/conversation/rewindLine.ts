// Taking back the newest turn (the chat's Retry and Edit) in the transcript. The dropped lines stay in the
// file, as Claude Code keeps abandoned branches; what makes them a dead branch is a newer line whose
// parentUuid chain does not pass through them. The retried prompt is such a line, but only once it is
// written: a session reopened before that (a model change reopens it from disk) would read the dropped
// turn back and join the retried prompt onto it. So the rewind itself is written down at once: a system
// line hanging off the line the conversation goes back to. The chain reader lets it end the conversation
// like a message does (conversationChain.ts), and the next line hangs off the same place, not off it.
import type { TranscriptWriter } from './transcriptWriter';
import type { TranscriptLine } from './transcriptReader';
import type { SystemLine } from './types';

export const REWIND_SUBTYPE = 'turn_rewound';

/** A rewind marker: where the conversation went back to (its parentUuid; null for the first turn). */
export function isRewindLine(line: TranscriptLine): boolean {
  return line.type === 'system' && line.subtype === REWIND_SUBTYPE;
}

/**
 * Records that the conversation continues from `to` (the line before the dropped turn's prompt) and
 * points the writer there. The marker's line is built now, so the chain is right even before it is on disk.
 */
export function recordRewind(
  writer: TranscriptWriter,
  to: string | null,
  droppedFrom: string | null,
): Promise<SystemLine> {
  writer.setParent(to);
  const written = writer.appendSystem({
    subtype: REWIND_SUBTYPE,
    content: 'The last turn was taken back (retry or edit).',
    level: 'info',
    isMeta: true,
    ...(droppedFrom ? { fields: { droppedLeafUuid: droppedFrom } } : {}),
  });
  writer.setParent(to);
  return written;
}
