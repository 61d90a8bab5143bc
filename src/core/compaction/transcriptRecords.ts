// What a compaction leaves in the transcript (DESIGN 3): the old lines stay; a `compact_boundary`
// system line starts the new conversation and the summary line (`isCompactSummary`) opens it. Kept
// messages are not copied when their lines form one parent chain: the boundary's `preservedSegment`
// {headUuid, anchorUuid, tailUuid} says that lines head..tail continue right after the summary (the
// anchor), as Claude Code records session-memory compactions. New lines then hang off the tail, so
// the raw parent chain stays linear and a later compaction can keep a segment that spans this one.
// When the kept lines do not form one chain, they are written again after the summary instead.
// Engram's own data (what was cut and replaced, by id, so a reader can replay and undo it exactly) is
// under `engram` in the metadata; recordFormat.ts describes it.
import type { PinsCarried } from './pinnedBlock';
import { randomUUID } from 'node:crypto';
import { appendMessages } from '../conversation/messageLines';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import type { TranscriptLine } from '../conversation/transcriptReader';
import { cutsBetween, RECORD_VERSION, type EngramRecordData } from './recordFormat';
import { isLinearSegment } from './transcriptView';
import type { CompactionEntry, CompactionResult, CompactionStage, CompactionTrigger } from './types';

export interface CompactionRecord {
  trigger: CompactionTrigger;
  stage: CompactionStage;
  preTokens: number;
  postTokens: number;
  modelCalls: number;
  durationMs: number;
  eventId: string;
  summaryText: string;
  /** The messages kept after the summary (the first may be merged with it in memory). */
  kept: readonly CompactionEntry[];
  /** True when kept[0]'s first line .. the writer's last line is one parent chain (isLinearSegment). */
  keptLinesLinear: boolean;
  /** Engram's data about it (the summary line's uuid is added here). */
  engram?: Omit<EngramRecordData, 'v' | 'summaryUuid'>;
}

export interface RecordedCompaction {
  boundaryUuid: string;
  summaryUuid: string;
  /** How the kept messages were recorded. */
  kept: 'none' | 'preserved' | 'rewritten';
}

export async function recordCompaction(writer: TranscriptWriter, rec: CompactionRecord): Promise<RecordedCompaction> {
  const tail = writer.lastUuid;
  const head = rec.kept[0]?.uuids[0];
  const preserve = rec.kept.length > 0 && rec.keptLinesLinear && head !== undefined && tail !== null;
  const summaryUuid = randomUUID();
  const boundary = await writer.appendCompactBoundary({
    trigger: rec.trigger === 'manual' ? 'manual' : 'auto',
    preTokens: rec.preTokens,
    ...(preserve ? { preservedSegment: { headUuid: head, anchorUuid: summaryUuid, tailUuid: tail } } : {}),
    extra: {
      stage: rec.stage,
      postTokens: rec.postTokens,
      modelCalls: rec.modelCalls,
      durationMs: Math.round(rec.durationMs),
      eventId: rec.eventId,
      ...(rec.trigger === 'reactive' ? { reactive: true } : {}),
      engram: { v: RECORD_VERSION, ...rec.engram, summaryUuid } satisfies EngramRecordData,
    },
  });
  await writer.appendCompactSummary(rec.summaryText, { uuid: summaryUuid });
  if (preserve) {
    writer.setParent(tail);
    return { boundaryUuid: boundary.uuid, summaryUuid, kept: 'preserved' };
  }
  if (rec.kept.length === 0) return { boundaryUuid: boundary.uuid, summaryUuid, kept: 'none' };
  await rewriteMessages(writer, rec.kept);
  return { boundaryUuid: boundary.uuid, summaryUuid, kept: 'rewritten' };
}

export interface UndoRecord {
  /** The undone event, and whether it replaced messages by a summary (else it only cut results). */
  undone: { id: string; summarised: boolean };
  /** The undo's own event id. */
  eventId: string;
  preTokens: number;
  /** The conversation it restored, with the line uuids behind each message when known. */
  restored: readonly CompactionEntry[];
  /** The newest version of every line of the transcript by uuid (to write the restored ones again). */
  linesByUuid: ReadonlyMap<string, TranscriptLine>;
}

/**
 * An undone compaction. A microcompact only changed bytes in memory: one line naming it is enough.
 * A summary starts a new boundary, and the restored conversation follows it as the lines it was read
 * from, written again with their uuids and message ids (they sit before earlier boundaries, out of a
 * reader's reach); a message whose lines are not known is written again as a copy.
 */
export async function recordUndo(
  writer: TranscriptWriter,
  rec: UndoRecord,
): Promise<{ copied: number; rewritten: number }> {
  const engram: EngramRecordData = { v: RECORD_VERSION, undoneEventId: rec.undone.id };
  if (!rec.undone.summarised) {
    await writer.appendSystem({
      subtype: 'microcompact_boundary',
      content: 'Trimmed tool results restored',
      level: 'info',
      isMeta: false,
      fields: {
        microcompactMetadata: {
          trigger: 'manual',
          preTokens: rec.preTokens,
          compactedToolIds: [],
          eventId: rec.eventId,
          engram,
        },
      },
    });
    return { copied: 0, rewritten: 0 };
  }
  await writer.appendCompactBoundary({
    trigger: 'manual',
    preTokens: rec.preTokens,
    extra: { stage: 'undo', undoneEventId: rec.undone.id, eventId: rec.eventId, engram },
  });
  let copied = 0;
  let rewritten = 0;
  for (const e of rec.restored) {
    const lines = e.uuids.map((u) => rec.linesByUuid.get(u));
    if (lines.length > 0 && lines.every((l) => l !== undefined)) {
      for (const l of lines as TranscriptLine[]) await writer.appendCopy(l as TranscriptLine & { uuid: string });
      copied++;
    } else {
      await rewriteMessages(writer, [e]);
      rewritten++;
    }
  }
  return { copied, rewritten };
}

/** Microcompact changes no line: this one records what it cut, so a reader can cut the same. */
export async function recordMicrocompact(
  writer: TranscriptWriter,
  rec: {
    stage: CompactionStage;
    trigger: CompactionTrigger;
    preTokens: number;
    postTokens: number;
    trimmedToolUseIds: string[];
    eventId: string;
    durationMs: number;
    engram: EngramRecordData;
  },
): Promise<void> {
  await writer.appendSystem({
    subtype: 'microcompact_boundary',
    content: 'Old tool results trimmed',
    level: 'info',
    isMeta: false,
    fields: {
      microcompactMetadata: {
        trigger: rec.trigger,
        preTokens: rec.preTokens,
        postTokens: rec.postTokens,
        compactedToolIds: rec.trimmedToolUseIds,
        stage: rec.stage,
        eventId: rec.eventId,
        durationMs: Math.round(rec.durationMs),
        engram: rec.engram,
      },
    },
  });
}

/** Kept messages written again after the summary, as the same messages (messageLines.ts). */
function rewriteMessages(writer: TranscriptWriter, kept: readonly CompactionEntry[]): Promise<void> {
  return appendMessages(writer, kept, { keepMessageIds: true, promptsAsMeta: true });
}

/**
 * One applied stage, as the transcript records it: a microcompact boundary, or a compact boundary, the
 * summary and the kept messages (referenced, not copied, when their lines run straight to the tail).
 * Both say what was cut (any result that differs between before and after, with the limit it was cut
 * to) and a summary says what it replaced, by id. `linesUpTo` reads the transcript's lines up to a
 * uuid, when the kept part must be checked.
 */
export async function recordStage(
  writer: TranscriptWriter,
  result: CompactionResult,
  beforeEntries: readonly CompactionEntry[],
  meta: {
    eventId: string;
    trigger: CompactionTrigger;
    durationMs: number;
    maxChars: number;
    focus?: string;
    summaryEdited?: boolean;
    pinsCarried?: PinsCarried;
    keptInstructions?: readonly string[];
  },
  linesUpTo: (tail: string) => Promise<readonly TranscriptLine[] | undefined>,
): Promise<void> {
  const { eventId, trigger, durationMs } = meta;
  const cuts = cutsBetween(
    beforeEntries.map((e) => e.message),
    result.entries.map((e) => e.message),
    meta.maxChars,
  );
  const replaced = {
    replacedUuids: result.replaced.flatMap((e) => e.uuids),
    replacedMessageIds: result.replaced.flatMap((e) => e.messageIds),
    keptFrom: result.keptFrom,
    ...(meta.focus ? { focus: meta.focus } : {}),
    ...(meta.summaryEdited ? { summaryEdited: true } : {}),
    ...(result.dropped ? { dropped: result.dropped } : {}),
    ...(meta.pinsCarried ? { pinsCarried: meta.pinsCarried } : {}),
    ...(meta.keptInstructions ? { keptInstructions: meta.keptInstructions.slice() } : {}),
  };
  if (result.summaryText === undefined) {
    await recordMicrocompact(writer, {
      stage: result.stage,
      trigger,
      preTokens: result.tokensBefore,
      postTokens: result.tokensAfter,
      trimmedToolUseIds: result.trimmedToolUseIds ?? [],
      eventId,
      durationMs,
      engram: { v: RECORD_VERSION, ...replaced, ...(cuts ?? { maxChars: meta.maxChars, results: [] }) },
    });
    return;
  }
  const kept = beforeEntries.slice(result.keptFrom);
  const head = kept[0]?.uuids[0];
  const tail = writer.lastUuid;
  const lines = head !== undefined && tail !== null ? await linesUpTo(tail) : undefined;
  const linear = lines !== undefined && head !== undefined && tail !== null && isLinearSegment(lines, head, tail);
  await recordCompaction(writer, {
    trigger,
    stage: result.stage,
    preTokens: result.tokensBefore,
    postTokens: result.tokensAfter,
    modelCalls: result.modelCalls,
    durationMs,
    eventId,
    summaryText: result.summaryText,
    kept,
    keptLinesLinear: linear,
    engram: { ...replaced, ...cuts },
  });
}
