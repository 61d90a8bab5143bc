// Resumes a session from its transcript in bounded memory. A long session's file holds every line ever
// written (compaction never rewrites it), but the conversation is only what follows the last compact
// boundary, so lines are dropped as soon as a boundary makes them unreachable. What stays is at most the
// current conversation plus the segment a session-memory compaction preserved, whatever the file size.
import { type ChainOptions, isCompactBoundary } from './conversationChain';
import { type NormaliseResult, normaliseWithIds } from './normalise';
import { type CorruptLine, forEachTranscriptLine, type TranscriptLine } from './transcriptReader';
import type { AssistantLine, SystemLine, UserLine } from './types';

export interface LoadedConversation extends NormaliseResult {
  corrupt: CorruptLine[];
  tornTail: boolean;
  /** Lines in the file and its size, for the inspector and the logs. */
  lineCount: number;
  bytes: number;
}

/** Same result as normaliseWithIds over the whole file, keeping only lines the conversation can reach. */
export async function loadConversation(file: string, opts: ChainOptions = {}): Promise<LoadedConversation> {
  const sidechain = opts.sidechain ?? false;
  let kept: TranscriptLine[] = [];
  const { corrupt, tornTail, lineCount, bytes } = await forEachTranscriptLine(file, (line) => {
    // Lines without a uuid (queue operations, snapshots, last-prompt) never reach the model.
    if (typeof line.uuid !== 'string') return;
    if (isCompactBoundary(line) && Boolean(line.isSidechain) === sidechain) kept = keptAcross(kept, line);
    kept.push(line);
  });
  return { ...normaliseWithIds(kept, opts), corrupt, tornTail, lineCount, bytes };
}

/**
 * What survives a boundary: nothing, or the preserved segment (tail back to head) with the other lines
 * of its messages and the results of its tool calls. If the segment cannot be traced, keep everything:
 * memory is cheaper than a wrong conversation.
 */
function keptAcross(kept: TranscriptLine[], boundary: SystemLine): TranscriptLine[] {
  const seg = (boundary.compactMetadata as { preservedSegment?: { headUuid?: unknown; tailUuid?: unknown } } | undefined)
    ?.preservedSegment;
  if (!seg) return [];
  if (typeof seg.headUuid !== 'string' || typeof seg.tailUuid !== 'string') return kept;

  const latest = new Map<string, TranscriptLine>();
  for (const l of kept) latest.set(l.uuid as string, l);
  const chain = new Set<string>();
  let uuid: string | null = seg.tailUuid;
  while (uuid !== null && !chain.has(uuid)) {
    const line = latest.get(uuid);
    if (!line) return kept;
    chain.add(uuid);
    if (uuid === seg.headUuid) break;
    uuid = typeof line.parentUuid === 'string' ? line.parentUuid : null;
  }
  if (!chain.has(seg.headUuid)) return kept;

  const messageIds = new Set<string>();
  const toolUseIds = new Set<string>();
  for (const id of chain) {
    const line = latest.get(id);
    if (line?.type !== 'assistant') continue;
    const m = (line as AssistantLine).message;
    messageIds.add(m.id);
    for (const b of m.content) if (b.type === 'tool_use') toolUseIds.add(b.id);
  }
  return kept.filter((l) => {
    if (chain.has(l.uuid as string)) return true;
    if (l.type === 'assistant') return messageIds.has((l as AssistantLine).message.id);
    if (l.type !== 'user') return false;
    const content = (l as UserLine).message.content;
    return Array.isArray(content) && content.some((b) => b.type === 'tool_result' && toolUseIds.has(b.tool_use_id));
  });
}
