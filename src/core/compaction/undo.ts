// Undo of the newest compaction: the conversation it started from comes back, the same messages with
// the same ids, in memory and in the transcript, so a resumed session (or a reload) reads back what
// the live one holds. While nothing changed the conversation since, the lists kept when it was applied
// give it back exactly; otherwise (a resumed session, or the list moved on) it is rebuilt from the
// transcript, which keeps every original line, and the cuts earlier compactions made are made again.
import { isCompactionRecord } from '../conversation/conversationLoader';
import { mergeSameRole } from '../conversation/normalise';
import { readTranscript, type TranscriptLine } from '../conversation/transcriptReader';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import type { ApiMessage } from '../conversation/types';
import type { Logger } from '../ports';
import type { ConversationIds } from './conversationIds';
import { undoCompactionEntries, type CompactionEvent } from './events';
import { readRecords, replayCuts } from './recordedCompactions';
import { recordUndo } from './transcriptRecords';
import { entriesOf, type CompactionEntry } from './types';

/** What the newest compaction started from and left, kept for an exact undo. */
export interface UndoStash {
  event: CompactionEvent;
  /** The conversation before it, with the line ids behind each message. */
  before: readonly CompactionEntry[];
  after: readonly ApiMessage[];
}

export interface UndoInput {
  event: CompactionEvent;
  current: readonly ApiMessage[];
  stash?: UndoStash;
  writer?: TranscriptWriter;
  ids: ConversationIds;
  /** The undo's own event id, and the context it starts from, for its record. */
  eventId: string;
  preTokens: number;
  logger: Logger;
}

/** The restored conversation, recorded in the transcript; undefined when it cannot be rebuilt. */
export async function undoNewest(input: UndoInput): Promise<ApiMessage[] | undefined> {
  const { event, current, writer, stash } = input;
  const summarised = event.summaryText !== undefined;
  let lines: readonly TranscriptLine[] | undefined;
  const allLines = async (w: TranscriptWriter): Promise<readonly TranscriptLine[]> => {
    if (!lines) {
      await w.flush();
      lines = (await readTranscript(w.file)).lines;
    }
    return lines;
  };
  // Line ids matter only when lines are written again, which only a summary's undo does.
  const currentEntries = async (): Promise<CompactionEntry[]> =>
    summarised && writer ? (await input.ids.withLines(current, writer)).entries : entriesOf(current);

  let restored: CompactionEntry[] | undefined;
  if (stash?.event === event && stash.after.length <= current.length && stash.after.every((m, i) => current[i] === m)) {
    restored = [...stash.before, ...(await currentEntries()).slice(stash.after.length)];
  } else if (writer) {
    const all = await allLines(writer);
    const back = undoCompactionEntries(event, all, await currentEntries());
    // Messages read back from their lines are whole again: the cuts of other compactions still hold.
    restored =
      back &&
      replayCuts(back, readRecords(all.filter((l) => isCompactionRecord(l, false))), new Set([event.id])).entries;
  }
  if (!restored) return undefined;
  // The prompt sent after a summary was merged into the summary's message; with the summary gone it
  // follows what comes back, and a user message after a user message is one message, as the transcript reads.
  restored = mergeSameRole(restored);
  if (writer) {
    try {
      const linesByUuid = summarised
        ? latestByUuid(await allLines(writer), restored)
        : new Map<string, TranscriptLine>();
      await recordUndo(writer, {
        undone: { id: event.id, summarised },
        eventId: input.eventId,
        preTokens: input.preTokens,
        restored,
        linesByUuid,
      });
    } catch (e) {
      input.logger.error('Could not record the undo in the transcript', e);
    }
  }
  return restored.map((e) => e.message);
}

function latestByUuid(
  lines: readonly TranscriptLine[],
  entries: readonly CompactionEntry[],
): Map<string, TranscriptLine> {
  const wanted = new Set(entries.flatMap((e) => e.uuids));
  const out = new Map<string, TranscriptLine>();
  for (const l of lines) if (typeof l.uuid === 'string' && wanted.has(l.uuid)) out.set(l.uuid, l);
  return out;
}
