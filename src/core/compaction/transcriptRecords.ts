// What a compaction leaves in the transcript (DESIGN 3): the old lines stay; a `compact_boundary`
// system line starts the new conversation and the summary line (`isCompactSummary`) opens it. Kept
// messages are not copied when their lines form one parent chain: the boundary's `preservedSegment`
// {headUuid, anchorUuid, tailUuid} says that lines head..tail continue right after the summary (the
// anchor), as Claude Code records session-memory compactions. New lines then hang off the tail, so
// the raw parent chain stays linear and a later compaction can keep a segment that spans this one.
// When the kept lines do not form one chain, they are written again after the summary instead.
import { randomUUID } from 'node:crypto';
import { SYNTHETIC_MODEL, type TranscriptWriter } from '../conversation/transcriptWriter';
import type { AssistantBlock, ToolResultBlock, UserBlock } from '../conversation/types';
import type { TranscriptLine } from '../conversation/transcriptReader';
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

/**
 * An undone compaction: a new boundary, then the restored conversation written again (the lines it was
 * read from sit before earlier boundaries, out of a reader's reach), so a resumed session gets it back.
 */
export async function recordUndo(writer: TranscriptWriter, restored: readonly CompactionEntry[], eventId: string): Promise<void> {
  await writer.appendCompactBoundary({ trigger: 'manual', preTokens: 0, extra: { stage: 'undo', undoneEventId: eventId } });
  await rewriteMessages(writer, restored);
}

/** Microcompact changes no line; this informational line lets the timeline be rebuilt from disk. */
export async function recordMicrocompact(
  writer: TranscriptWriter,
  rec: { trigger: CompactionTrigger; preTokens: number; postTokens: number; trimmedToolUseIds: string[]; eventId: string },
): Promise<void> {
  await writer.appendSystem({
    subtype: 'microcompact_boundary',
    content: 'Old tool results trimmed',
    level: 'info',
    isMeta: false,
    fields: { microcompactMetadata: { trigger: rec.trigger, preTokens: rec.preTokens, postTokens: rec.postTokens, compactedToolIds: rec.trimmedToolUseIds, eventId: rec.eventId } },
  });
}

/**
 * Kept messages written again after the summary: prompts as meta lines, results one line each (hanging
 * off their tool_use, as the writer does), assistant blocks under their original message id with no
 * usage (the model name marks them as not a real response, so the gauge skips them).
 */
async function rewriteMessages(writer: TranscriptWriter, kept: readonly CompactionEntry[]): Promise<void> {
  for (const e of kept) {
    const content = e.message.content;
    if (e.message.role === 'assistant') {
      const info = {
        id: e.messageIds[0] ?? `msg_compacted_${randomUUID().replace(/-/g, '')}`,
        model: SYNTHETIC_MODEL,
        stopReason: null,
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      };
      const blocks: AssistantBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : (content as AssistantBlock[]);
      for (const b of blocks) await writer.appendAssistantBlock(info, b);
      continue;
    }
    if (typeof content === 'string') {
      await writer.appendUserPrompt(content, { isMeta: true });
      continue;
    }
    const blocks = content as UserBlock[];
    const results = blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result');
    const others = blocks.filter((b) => b.type !== 'tool_result');
    if (results.length === 0) {
      await writer.appendUserPrompt(blocks, { isMeta: true });
      continue;
    }
    for (let i = 0; i < results.length; i++) {
      await writer.appendToolResult(results[i], i === results.length - 1 && others.length > 0 ? { extra: others } : {});
    }
  }
}

/**
 * One applied stage, as the transcript records it: a microcompact boundary, or a compact boundary, the
 * summary and the kept messages (referenced, not copied, when their lines run straight to the tail).
 * `linesUpTo` reads the transcript's lines up to a uuid, when the kept part must be checked.
 */
export async function recordStage(
  writer: TranscriptWriter,
  result: CompactionResult,
  beforeEntries: readonly CompactionEntry[],
  meta: { eventId: string; trigger: CompactionTrigger; durationMs: number },
  linesUpTo: (tail: string) => Promise<readonly TranscriptLine[] | undefined>,
): Promise<void> {
  const { eventId, trigger, durationMs } = meta;
  if (result.summaryText === undefined) {
    await recordMicrocompact(writer, { trigger, preTokens: result.tokensBefore, postTokens: result.tokensAfter, trimmedToolUseIds: result.trimmedToolUseIds ?? [], eventId });
    return;
  }
  const kept = beforeEntries.slice(result.keptFrom);
  const head = kept[0]?.uuids[0];
  const tail = writer.lastUuid;
  const lines = head !== undefined && tail !== null ? await linesUpTo(tail) : undefined;
  const linear = lines !== undefined && head !== undefined && tail !== null && isLinearSegment(lines, head, tail);
  await recordCompaction(writer, {
    trigger, stage: result.stage, preTokens: result.tokensBefore, postTokens: result.tokensAfter, modelCalls: result.modelCalls,
    durationMs, eventId, summaryText: result.summaryText, kept, keptLinesLinear: linear,
  });
}
