// `engram compact FILE --write` (issue #13, class 7): the compaction computed from a transcript on disk
// is appended to it exactly as the chat records its own (recordStage: microcompact lines, a boundary and
// a summary), hanging off the leaf of the loaded chain, so the next `engram -p --resume` (or the editor)
// sends the compacted conversation. Without it a session too big to send stays stuck.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { TranscriptWriter } from '../conversation/transcriptWriter';
import type { TranscriptLine } from '../conversation/transcriptReader';
import { ENGRAM_VERSION } from '../version';
import { recordStage } from './transcriptRecords';
import { loadTranscriptView, type TranscriptView } from './transcriptView';
import type { CompactionEntry, CompactionResult, CompactionTrigger } from './types';

export interface WriteBackInput {
  file: string;
  view: Pick<TranscriptView, 'lines' | 'entries' | 'report'>;
  /** The stages applied, in order, each on what the previous one left. */
  applied: readonly CompactionResult[];
  trigger: CompactionTrigger;
  maxChars: number;
  durationMs: number;
  focus?: string;
}

/** Appends the records of `applied`; returns the event ids written. */
export async function writeCompactionBack(input: WriteBackInput): Promise<string[]> {
  const leaf = input.view.report.leafUuid;
  const leafLine = input.view.lines.find((l) => l.uuid === leaf) ?? input.view.lines[input.view.lines.length - 1];
  const writer = new TranscriptWriter({
    file: input.file,
    // The session's own fields, so the lines read as the session's (a resume matches on sessionId).
    sessionId: stringField(leafLine, 'sessionId') ?? path.basename(input.file, '.jsonl'),
    cwd: stringField(leafLine, 'cwd') ?? path.dirname(input.file),
    version: ENGRAM_VERSION,
    parentUuid: leaf ?? null,
  });
  const ids: string[] = [];
  let before: readonly CompactionEntry[] = input.view.entries;
  for (const result of input.applied) {
    const eventId = randomUUID();
    const meta = {
      eventId,
      trigger: input.trigger,
      durationMs: input.durationMs,
      maxChars: input.maxChars,
      ...(input.focus ? { focus: input.focus } : {}),
    };
    await recordStage(writer, result, before, meta, (tail) => linesUpTo(writer, input.view.lines, tail));
    ids.push(eventId);
    before = result.entries;
  }
  await writer.flush();
  if (writer.failure) throw writer.failure;
  return ids;
}

/** The loaded lines, or the file read again when lines were written since (a microcompact before a summary). */
async function linesUpTo(
  writer: TranscriptWriter,
  lines: readonly TranscriptLine[],
  tail: string,
): Promise<readonly TranscriptLine[] | undefined> {
  if (lines.some((l) => l.uuid === tail)) return lines;
  await writer.flush();
  return (await loadTranscriptView(writer.file)).lines;
}

function stringField(line: TranscriptLine | undefined, key: string): string | undefined {
  const v = (line as Record<string, unknown> | undefined)?.[key];
  return typeof v === 'string' ? v : undefined;
}
