// Each compaction is a piece of data (STYLE 7): the inspector's timeline renders the list, the status
// bar shows the latest, and an event holds enough to undo it from the transcript, which keeps every
// original line (DESIGN 3): the uuids of the replaced lines, the summary that took their place, and the
// ids of tool results that were trimmed.
import { normaliseWithIds } from '../conversation/normalise';
import type { TranscriptLine } from '../conversation/transcriptReader';
import type { ApiMessage, ContentBlock, ToolResultBlock, UserBlock, UserLine } from '../conversation/types';
import { withoutSummary } from './compactedConversation';
import type { CompactionEntry, CompactionResult, CompactionStage, CompactionTrigger, DroppedFacts } from './types';
import type { PinsCarried } from './pinnedBlock';

export interface CompactionEvent {
  id: string;
  stage: CompactionStage;
  trigger: CompactionTrigger;
  tokensBefore: number;
  tokensAfter: number;
  durationMs: number;
  modelCalls: number;
  /** uuids of the transcript lines behind the messages this compaction replaced, in order. */
  replacedIds: string[];
  /** Index (in the conversation before) of the first message kept verbatim. */
  keptFrom: number;
  summaryText?: string;
  /** Results microcompact trimmed (tool_use ids). */
  trimmedToolUseIds?: string[];
  /** The focus text of `/compact focus`. */
  focus?: string;
  /** A person edited the summary (or notes) in the preview before it applied. */
  summaryEdited?: true;
  /** The facts of the replaced messages the new conversation no longer carries (older records: absent). */
  dropped?: DroppedFacts;
  /** When it finished, ms since the epoch. */
  at: number;
  /** Pins carried after the summary: how many, their tokens, and how many the budget cut (pinnedBlock.ts). */
  pinsCarried?: PinsCarried;
  /** The instruction files (CLAUDE.md, AGENTS.md) in the system prompt after it, by path, in prompt order. */
  keptInstructions?: string[];
}

export function compactionEvent(
  result: CompactionResult,
  meta: {
    id: string;
    trigger: CompactionTrigger;
    durationMs: number;
    at: number;
    focus?: string;
    summaryEdited?: boolean;
    pinsCarried?: PinsCarried;
    keptInstructions?: readonly string[];
  },
): CompactionEvent {
  return {
    id: meta.id,
    stage: result.stage,
    trigger: meta.trigger,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    durationMs: Math.round(meta.durationMs),
    modelCalls: result.modelCalls,
    replacedIds: result.replaced.flatMap((e) => e.uuids),
    keptFrom: result.keptFrom,
    ...(result.summaryText !== undefined ? { summaryText: result.summaryText } : {}),
    ...(result.trimmedToolUseIds && result.trimmedToolUseIds.length > 0
      ? { trimmedToolUseIds: result.trimmedToolUseIds.slice() }
      : {}),
    ...(meta.focus ? { focus: meta.focus } : {}),
    ...(meta.summaryEdited ? { summaryEdited: true as const } : {}),
    ...(result.dropped ? { dropped: result.dropped } : {}),
    at: meta.at,
    ...(meta.pinsCarried ? { pinsCarried: { ...meta.pinsCarried } } : {}),
    ...(meta.keptInstructions ? { keptInstructions: meta.keptInstructions.slice() } : {}),
  };
}

/**
 * The conversation as it was before `event`, rebuilt from the transcript: the replaced messages read
 * back from their lines, then the current conversation without the summary that stood in for them
 * (messages added since the compaction stay), and trimmed tool results restored. Undefined when the
 * current conversation no longer starts with that summary or a replaced line is missing.
 */
export function undoCompaction(
  event: CompactionEvent,
  transcriptLines: readonly TranscriptLine[],
  current: readonly (ApiMessage | CompactionEntry)[],
): ApiMessage[] | undefined {
  return undoCompactionEntries(event, transcriptLines, current)?.map((e) => e.message);
}

/** undoCompaction with the line uuids and message ids of each restored message (where known). */
export function undoCompactionEntries(
  event: CompactionEvent,
  transcriptLines: readonly TranscriptLine[],
  current: readonly (ApiMessage | CompactionEntry)[],
): CompactionEntry[] | undefined {
  let entries: CompactionEntry[] = current.map((m) => ('message' in m ? m : { message: m, uuids: [], messageIds: [] }));
  if (event.summaryText !== undefined) {
    const rest = withoutSummary(entries, event.summaryText);
    const restored = replacedMessages(event.replacedIds, transcriptLines);
    if (!rest || !restored) return undefined;
    // The summary's own line was merged into the first kept message: it is not part of what comes back.
    const summaryLines = new Set(
      transcriptLines
        .filter((l) => l.type === 'user' && (l as UserLine).isCompactSummary)
        .map((l) => (l as UserLine).uuid),
    );
    if (rest[0]) rest[0] = { ...rest[0], uuids: rest[0].uuids.filter((u) => !summaryLines.has(u)) };
    entries = [...restored, ...rest];
  }
  if (!event.trimmedToolUseIds?.length) return entries;
  const messages = restoreTrimmed(
    entries.map((e) => e.message),
    new Set(event.trimmedToolUseIds),
    transcriptLines,
  );
  return entries.map((e, i) => (messages[i] === e.message ? e : { ...e, message: messages[i] }));
}

/**
 * The replaced lines in their recorded order, re-linked into one chain (a compaction that kept a
 * segment re-routes parents through its boundary, which is not among them) and normalised as usual.
 */
function replacedMessages(ids: readonly string[], lines: readonly TranscriptLine[]): CompactionEntry[] | undefined {
  if (ids.length === 0) return [];
  const wanted = new Set(ids);
  const latest = new Map<string, TranscriptLine>();
  for (const l of lines) if (typeof l.uuid === 'string' && wanted.has(l.uuid)) latest.set(l.uuid, l);
  if (latest.size < wanted.size) return undefined;
  let parent: string | null = null;
  const chain: TranscriptLine[] = [];
  const linked = new Set<string>();
  for (const id of ids) {
    const line = latest.get(id);
    if (!line || linked.has(id)) continue;
    linked.add(id);
    chain.push({ ...line, parentUuid: parent });
    parent = id;
  }
  return normaliseWithIds(chain).entries;
}

function restoreTrimmed(messages: ApiMessage[], trimmed: Set<string>, lines: readonly TranscriptLine[]): ApiMessage[] {
  const originals = new Map<string, { block: ToolResultBlock; extras: UserBlock[] }>();
  for (const l of lines) {
    if (l.type !== 'user') continue;
    const content = (l as UserLine).message?.content;
    if (!Array.isArray(content)) continue;
    const results = content.filter((b): b is ToolResultBlock => b.type === 'tool_result' && trimmed.has(b.tool_use_id));
    if (results.length === 0) continue;
    const extras = content.filter((b) => b.type !== 'tool_result');
    results.forEach((r, i) => {
      originals.set(r.tool_use_id, { block: r, extras: i === 0 ? extras : [] });
    });
  }
  return messages.map((m) => {
    if (m.role !== 'user' || typeof m.content === 'string') return m;
    const results = m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
    if (!results.some((r) => trimmed.has(r.tool_use_id))) return m;
    const restored = results.map((r) => (trimmed.has(r.tool_use_id) ? (originals.get(r.tool_use_id)?.block ?? r) : r));
    let others: ContentBlock[] = m.content.filter((b) => b.type !== 'tool_result');
    const originalOthers = results.flatMap((r) => originals.get(r.tool_use_id)?.extras ?? []);
    // Images next to a trimmed result became notes; put the originals back when they line up.
    if (originalOthers.length === others.length && originalOthers.some((b) => b.type === 'image'))
      others = originalOthers;
    return { role: 'user', content: [...restored, ...others] };
  });
}
