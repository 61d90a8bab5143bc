// The transcript as compaction needs it: the lines of the current conversation (for undo, for the gauge
// and for checking that a kept segment can be referenced), the API messages with the line uuids and
// message ids behind each, and the way to pair those ids with the messages an agent holds in memory.
// The messages are the ones the last process sent: the cuts recorded in the file are replayed on them,
// so `engram gauge`, `engram compact` and the inspector measure and compact what a resumed session sends.
import { isCompactionRecord } from '../conversation/conversationLoader';
import { CurrentLines, type ChainOptions } from '../conversation/conversationChain';
import { normaliseWithIds, type NormaliseReport } from '../conversation/normalise';
import { forEachTranscriptLine, type CorruptLine, type TranscriptLine } from '../conversation/transcriptReader';
import type { ApiMessage } from '../conversation/types';
import { holdBigTexts, isBigFile, releaseHeldTexts } from './heldText';
import { readRecords, replayCuts } from './recordedCompactions';
import type { CompactionEntry } from './types';

export interface TranscriptView {
  /** Lines the current conversation can reach (CurrentLines' rules), in file order. */
  lines: readonly TranscriptLine[];
  entries: CompactionEntry[];
  report: NormaliseReport;
  corrupt: CorruptLine[];
  tornTail: boolean;
  /** Lines in the file (a torn tail is the last of them), for reporting problems by line. */
  lineCount: number;
  /** Recorded cuts that could not be replayed (the result differs from what was cut). */
  replayWarnings: string[];
}

export interface ViewOptions extends ChainOptions {
  /**
   * Leave long texts on disk, read again whenever they are read (heldText.ts): for a command that reads
   * the whole conversation of a session that may be hundreds of megabytes; 'big-files' does it for files
   * of HOLD_FILE_BYTES or more. The file must not be rewritten while the view is in use (appending is fine).
   */
  holdBigTexts?: boolean | 'big-files';
}

export async function loadTranscriptView(file: string, opts: ViewOptions = {}): Promise<TranscriptView> {
  const sidechain = opts.sidechain ?? false;
  const current = new CurrentLines(sidechain);
  const records: TranscriptLine[] = [];
  const hold = opts.holdBigTexts === 'big-files' ? await isBigFile(file) : opts.holdBigTexts === true;
  // A line kept from an earlier read may be out of date: the file may have been rewritten since.
  if (hold) releaseHeldTexts();
  const { corrupt, tornTail, lineCount } = await forEachTranscriptLine(file, (line, _lineNo, place) => {
    if (isCompactionRecord(line, sidechain)) records.push(line);
    else if (hold) holdBigTexts(file, line, place);
    current.add(line);
  });
  const view = viewOfLines(current.lines, opts);
  const replay = replayCuts(view.entries, readRecords(records));
  return { ...view, entries: replay.entries, corrupt, tornTail, lineCount, replayWarnings: replay.warnings };
}

export function viewOfLines(
  lines: readonly TranscriptLine[],
  opts: ChainOptions = {},
): Omit<TranscriptView, 'corrupt' | 'tornTail' | 'lineCount' | 'replayWarnings'> {
  const { entries, report } = normaliseWithIds(lines, opts);
  return { lines, entries, report };
}

/**
 * The ids of `entries` put on `messages` when both are the same conversation (same length and roles,
 * which is what an agent holds and its transcript reads back; microcompact changes contents only).
 * Undefined when they differ: ids would then point at the wrong lines.
 */
export function alignEntries(
  messages: readonly ApiMessage[],
  entries: readonly CompactionEntry[],
): CompactionEntry[] | undefined {
  if (messages.length !== entries.length) return undefined;
  for (let i = 0; i < messages.length; i++) if (messages[i].role !== entries[i].message.role) return undefined;
  return messages.map((message, i) => ({
    message,
    uuids: entries[i].uuids.slice(),
    messageIds: entries[i].messageIds.slice(),
  }));
}

/**
 * Whether following parentUuid from `tailUuid` reaches `headUuid`: what a compact boundary's
 * preservedSegment needs for readers to splice the kept lines back in (conversationChain.ts).
 */
export function isLinearSegment(lines: readonly TranscriptLine[], headUuid: string, tailUuid: string): boolean {
  const parent = new Map<string, string | null>();
  for (const l of lines) {
    if (typeof l.uuid === 'string') parent.set(l.uuid, typeof l.parentUuid === 'string' ? l.parentUuid : null);
  }
  const seen = new Set<string>();
  let at: string | null | undefined = tailUuid;
  while (typeof at === 'string' && !seen.has(at)) {
    if (at === headUuid) return true;
    seen.add(at);
    at = parent.get(at);
  }
  return false;
}
