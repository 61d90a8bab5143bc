// The shape every summarising stage produces: one user message that opens the new conversation (a
// summary, the session notes, or a note that old messages were dropped), then the kept messages as
// they were. When the first kept message is itself a user message the two become one, exactly as the
// transcript reader merges them (normalise.ts), so the conversation held in memory is the one a resumed
// session reads back, byte for byte, and its prompt cache still hits.
import type { ContentBlock } from '../conversation/types';
import type { CompactionEntry } from './types';

export function assembleCompacted(
  summaryText: string,
  entries: readonly CompactionEntry[],
  keptFrom: number,
): CompactionEntry[] {
  const kept = entries.slice(keptFrom);
  const first = kept[0];
  if (!first || first.message.role !== 'user') {
    return [{ message: { role: 'user', content: summaryText }, uuids: [], messageIds: [] }, ...kept];
  }
  const content: ContentBlock[] = [{ type: 'text', text: summaryText }, ...asBlocks(first.message.content)];
  return [{ message: { role: 'user', content }, uuids: first.uuids.slice(), messageIds: [] }, ...kept.slice(1)];
}

/**
 * The conversation without the opening summary: the inverse of assembleCompacted, for undo. Undefined
 * when the first message does not start with that summary (the conversation changed since).
 */
export function withoutSummary(
  entries: readonly CompactionEntry[],
  summaryText: string,
): CompactionEntry[] | undefined {
  const first = entries[0];
  if (!first || first.message.role !== 'user') return undefined;
  const c = first.message.content;
  if (typeof c === 'string') return c === summaryText ? entries.slice(1) : undefined;
  const head = c[0];
  if (head?.type !== 'text' || head.text !== summaryText) return undefined;
  if (c.length === 1) return entries.slice(1);
  const rest = c.slice(1);
  // A single text block was a string before the merge (assembleCompacted turned it into a block).
  const content = rest.length === 1 && rest[0].type === 'text' ? rest[0].text : rest;
  return [{ message: { role: 'user', content }, uuids: first.uuids.slice(), messageIds: [] }, ...entries.slice(1)];
}

function asBlocks(content: string | ContentBlock[]): ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}
