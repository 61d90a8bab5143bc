// Where a conversation may be cut (DESIGN 5, "API invariants"). Compaction replaces a prefix of the
// message list and keeps a suffix; a cut that the API or the model would choke on must move earlier:
//
//  1. Tool pairing. A kept tool_result needs its tool_use in the assistant turn right before it. A
//     cut between an assistant message with tool calls and the user message answering them leaves
//     orphan results (the API answers "unexpected `tool_use_id` found in `tool_result` blocks").
//  2. One response stays whole. A streamed response is stored as several lines sharing `message.id`
//     (thinking, text, each tool_use); when those lines are separate messages in the list, a cut
//     between them would keep a tool_use without the thinking block that led to it, which the API
//     rejects when thinking is on, and the model would see half a thought.
//
// Both fixes only move the cut earlier (keep more), never later, so a widened cut never drops a
// message the caller meant to keep. Kept tool_use blocks always have their results kept too: the
// results come after the call, and a suffix that holds the call holds what follows it.
import type { ApiMessage, ContentBlock } from '../conversation/types';

/** A message, optionally with the assistant message ids it holds (needed for rule 2). */
export interface CutMessage {
  message: ApiMessage;
  messageIds?: readonly string[];
}

type AnyMessage = CutMessage | ApiMessage;

function asCut(m: AnyMessage): CutMessage {
  return 'message' in m ? m : { message: m };
}

function blocksOf(m: ApiMessage): readonly ContentBlock[] {
  return typeof m.content === 'string' ? [] : m.content;
}

/**
 * The earliest index at or before `startIndex` from which the suffix can be kept without breaking a
 * rule above. O(n): each message of the kept suffix is looked at once, also when the cut moves.
 */
export function widenToKeepInvariants(messages: readonly AnyMessage[], startIndex: number): number {
  const n = messages.length;
  let start = Math.max(0, Math.min(n, Math.floor(startIndex)));
  if (start === 0 || start === n) return start;

  const toolUseAt = new Map<string, number>();
  const firstWithId = new Map<string, number>();
  for (let i = 0; i < start; i++) {
    const m = asCut(messages[i]);
    for (const b of blocksOf(m.message)) if (b.type === 'tool_use') toolUseAt.set(b.id, i);
    for (const id of m.messageIds ?? []) if (!firstWithId.has(id)) firstWithId.set(id, i);
  }
  // Scan the kept suffix from its end; when the cut moves, the loop simply goes on into the newly
  // kept messages, whose own needs may move it further.
  for (let i = n - 1; i >= start; i--) {
    const m = asCut(messages[i]);
    for (const b of blocksOf(m.message)) {
      if (b.type !== 'tool_result') continue;
      const at = toolUseAt.get(b.tool_use_id);
      if (at !== undefined && at < start) start = at;
    }
    for (const id of m.messageIds ?? []) {
      const at = firstWithId.get(id);
      if (at !== undefined && at < start) start = at;
    }
  }
  return start;
}

/** True when cutting at `index` needs no widening. */
export function isSafeCut(messages: readonly AnyMessage[], index: number): boolean {
  return widenToKeepInvariants(messages, index) === index;
}

/**
 * What is wrong with a cut at `startIndex` (the rules above), in words; empty when it is fine. For
 * tests and the inspector, which shows why a compaction kept more than its bounds.
 */
export function checkCut(messages: readonly AnyMessage[], startIndex: number): string[] {
  const problems: string[] = [];
  const cutUses = new Set<string>();
  const cutIds = new Set<string>();
  messages
    .slice(0, startIndex)
    .map(asCut)
    .forEach((m) => {
      for (const b of blocksOf(m.message)) if (b.type === 'tool_use') cutUses.add(b.id);
      for (const id of m.messageIds ?? []) cutIds.add(id);
    });
  messages
    .slice(startIndex)
    .map(asCut)
    .forEach((m, k) => {
      const i = startIndex + k;
      for (const b of blocksOf(m.message)) {
        if (b.type === 'tool_result' && cutUses.has(b.tool_use_id))
          problems.push(`messages.${i}: tool_result ${b.tool_use_id} is kept but its tool_use is cut`);
      }
      for (const id of m.messageIds ?? [])
        if (cutIds.has(id)) problems.push(`messages.${i}: message ${id} is split by the cut`);
    });
  return problems;
}

/**
 * Problems the API (or the model) would have with this list as a request, in words; empty when none.
 * Consecutive messages of one role count as one turn, as the API combines them. A final assistant
 * turn may have unanswered calls (they are answered by the next request). Pure and dependency-free, so
 * the engine can check its own output without the test server's validator.
 */
export function checkInvariants(messages: readonly AnyMessage[]): string[] {
  const problems: string[] = [];
  const list = messages.map(asCut);
  const seenUses = new Set<string>();
  const idPositions = new Map<string, number>();
  let turnStart = 0;
  for (let i = 0; i < list.length; i++) {
    const { message, messageIds } = list[i];
    const blocks = blocksOf(message);
    const empty = typeof message.content === 'string' ? message.content.trim() === '' : blocks.length === 0;
    const finalAssistant = i === list.length - 1 && message.role === 'assistant';
    if (empty && !finalAssistant) problems.push(`messages.${i}: empty content`);
    for (const b of blocks) {
      if (b.type === 'text' && b.text.trim() === '') problems.push(`messages.${i}: blank text block`);
      if (b.type === 'tool_use') {
        if (seenUses.has(b.id)) problems.push(`messages.${i}: repeated tool_use id ${b.id}`);
        seenUses.add(b.id);
      }
    }
    for (const id of messageIds ?? []) {
      const last = idPositions.get(id);
      if (last !== undefined && last !== i - 1) problems.push(`messages.${i}: message ${id} is not contiguous`);
      idPositions.set(id, i);
    }
    if (i > 0 && list[i - 1].message.role !== message.role) turnStart = i;
    const nextTurn = nextTurnStart(list, i);
    if (message.role === 'assistant') {
      const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id);
      if (uses.length > 0 && nextTurn < list.length) {
        const answered = leadingResultIds(list, nextTurn);
        const missing = uses.filter((id) => !answered.has(id));
        if (missing.length > 0)
          problems.push(`messages.${i}: tool_use ${missing.join(', ')} without a tool_result right after`);
      }
    } else {
      const offered = new Set<string>();
      for (let j = previousTurnStart(list, turnStart); j >= 0 && j < turnStart; j++) {
        for (const b of blocksOf(list[j].message)) if (b.type === 'tool_use') offered.add(b.id);
      }
      for (const b of blocks) {
        if (b.type === 'tool_result' && !offered.has(b.tool_use_id))
          problems.push(`messages.${i}: tool_result ${b.tool_use_id} without its tool_use right before`);
      }
    }
  }
  return problems;
}

function nextTurnStart(list: readonly CutMessage[], i: number): number {
  let j = i + 1;
  while (j < list.length && list[j].message.role === list[i].message.role) j++;
  return j;
}

function previousTurnStart(list: readonly CutMessage[], turnStart: number): number {
  if (turnStart === 0) return -1;
  let j = turnStart - 1;
  while (j > 0 && list[j - 1].message.role === list[turnStart - 1].message.role) j--;
  return j;
}

/** Results at the head of a user turn: the only place the API looks for them. */
function leadingResultIds(list: readonly CutMessage[], turnStart: number): Set<string> {
  const ids = new Set<string>();
  for (let j = turnStart; j < list.length && list[j].message.role === 'user'; j++) {
    const m = list[j].message;
    if (typeof m.content === 'string') return ids;
    for (const b of m.content) {
      if (b.type !== 'tool_result') return ids;
      ids.add(b.tool_use_id);
    }
  }
  return ids;
}
