// Turns transcript lines into the `messages` array of an API request that the API accepts (DESIGN 3, 5).
// Real transcripts hold things the API rejects: responses split over several lines, results hanging off
// a tree instead of a chain, calls left unanswered by a crash, synthetic error lines, empty text. The
// rules below repair them without inventing content, except a short error result for a call that never
// got one (the API insists on an answer).
import { readRepeatMark } from './repeatedResults';
import { buildChain, type ChainOptions, type IndexedLine } from './conversationChain';
import type { TranscriptLine } from './transcriptReader';
import type {
  ApiMessage,
  AssistantBlock,
  AssistantLine,
  ContentBlock,
  ToolResultBlock,
  UserBlock,
  UserLine,
} from './types';

/** The answer given to a tool call that has no result in the transcript. */
export const INTERRUPTED_TOOL_RESULT =
  'Tool call was interrupted before it returned a result (the session stopped); it may or may not have taken effect.';

/** One API message and the transcript lines it came from (compaction cuts by these). */
export interface NormalisedEntry {
  message: ApiMessage;
  /** uuids of the lines merged into this message, in order. */
  uuids: string[];
  /** Assistant `message.id`s merged into this message (empty for user messages). */
  messageIds: string[];
}

export interface NormaliseReport {
  /** The line the conversation was read back from, and the compact boundary it starts after. */
  leafUuid: string | undefined;
  boundaryUuid: string | undefined;
  apiErrorLinesDropped: number;
  /** tool_use ids answered with INTERRUPTED_TOOL_RESULT. */
  danglingToolUses: string[];
  /** tool_result ids dropped because their tool_use is not in the conversation. */
  orphanResults: string[];
  /** Empty or whitespace-only text blocks dropped (a message left empty is dropped with them). */
  emptyTextDropped: number;
}

export interface NormaliseResult {
  entries: NormalisedEntry[];
  report: NormaliseReport;
  /**
   * The full output of each result the model got as a note (repeatedResults.ts), by tool_use id: the
   * transcript keeps it, and the chat shows it instead of the note.
   */
  fullOutputs: Map<string, ToolResultBlock['content']>;
}

export function normalise(lines: readonly TranscriptLine[], opts?: ChainOptions): ApiMessage[] {
  return normaliseWithIds(lines, opts).entries.map((e) => e.message);
}

export function normaliseWithIds(lines: readonly TranscriptLine[], opts?: ChainOptions): NormaliseResult {
  const c = buildChain(lines, opts);
  const report: NormaliseReport = {
    leafUuid: c.leaf?.line.uuid,
    boundaryUuid: c.boundary?.uuid,
    apiErrorLinesDropped: 0,
    danglingToolUses: [],
    orphanResults: [],
    emptyTextDropped: 0,
  };
  const onChain = new Set(c.chain.map((e) => e.line.uuid));
  const fullOutputs = new Map<string, ToolResultBlock['content']>();
  const doneMessageIds = new Set<string>();
  const consumed = new Set<string>();
  const seenToolUseIds = new Set<string>();
  const raw: NormalisedEntry[] = [];

  for (const entry of c.chain) {
    const line = entry.line;
    if (line.type === 'assistant') {
      const id = (line as AssistantLine).message.id;
      if (doneMessageIds.has(id)) continue;
      doneMessageIds.add(id);
      const group = c.byMessageId.get(id) ?? [entry];
      if (group.some((g) => (g.line as AssistantLine).isApiErrorMessage)) {
        report.apiErrorLinesDropped += group.length;
        continue;
      }
      const blocks: AssistantBlock[] = [];
      for (const g of group) {
        for (const b of (g.line as AssistantLine).message.content) {
          if (b.type === 'tool_use') {
            if (seenToolUseIds.has(b.id)) continue; // the API rejects a repeated id
            seenToolUseIds.add(b.id);
          }
          blocks.push(b);
        }
      }
      raw.push({
        message: { role: 'assistant', content: blocks },
        uuids: group.map((g) => g.line.uuid),
        messageIds: [id],
      });
      const toolIds = blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      if (toolIds.length > 0)
        raw.push(answerToolUses(toolIds, c.resultsByToolUseId, onChain, consumed, report, fullOutputs));
    } else if (line.type === 'user') {
      if (consumed.has(line.uuid)) continue;
      consumed.add(line.uuid);
      const content = (line as UserLine).message.content;
      let kept: string | UserBlock[] = content;
      if (Array.isArray(content)) {
        // Results still here have no tool_use before them (compacted away, or an error line dropped).
        kept = content.filter((b) => {
          if (b.type !== 'tool_result') return true;
          report.orphanResults.push(b.tool_use_id);
          return false;
        });
      }
      raw.push({ message: { role: 'user', content: kept }, uuids: [line.uuid], messageIds: [] });
    }
    // system lines and lines of other types: bookkeeping, never sent
  }

  const cleaned = raw.map((e) => cleanEntry(e, report)).filter((e): e is NormalisedEntry => e !== undefined);
  const merged = mergeSameRole(cleaned);
  trimFinalAssistant(merged, report);
  return { entries: merged, report, fullOutputs };
}

/** The user message that answers one assistant message: its results in call order, then other blocks. */
function answerToolUses(
  toolIds: string[],
  resultsByToolUseId: Map<string, IndexedLine[]>,
  onChain: Set<string>,
  consumed: Set<string>,
  report: NormaliseReport,
  fullOutputs: Map<string, ToolResultBlock['content']>,
): NormalisedEntry {
  const wanted = new Set(toolIds);
  const results = new Map<string, ToolResultBlock>();
  const sources: IndexedLine[] = [];
  for (const id of toolIds) {
    const candidates = (resultsByToolUseId.get(id) ?? []).filter(
      (e) => !consumed.has(e.line.uuid) || sources.includes(e),
    );
    if (candidates.length === 0) continue;
    // The result on the chain is the one the conversation continued from; else the newest written.
    const pick =
      candidates.find((e) => onChain.has(e.line.uuid)) ??
      candidates.reduce((a, b) => (b.lastIndex > a.lastIndex ? b : a));
    if (!sources.includes(pick)) {
      sources.push(pick);
      consumed.add(pick.line.uuid);
    }
  }
  sources.sort((a, b) => a.firstIndex - b.firstIndex);
  const others: UserBlock[] = [];
  for (const s of sources) {
    // A result the model got as a note (repeatedResults.ts) is read back as that note.
    const repeat = readRepeatMark((s.line as UserLine).engramRepeat);
    let first = true;
    for (const b of (s.line as UserLine).message.content as UserBlock[]) {
      if (b.type !== 'tool_result') others.push(b);
      else if (!wanted.has(b.tool_use_id)) report.orphanResults.push(b.tool_use_id);
      else if (!results.has(b.tool_use_id)) {
        const asNote = repeat !== undefined && first;
        results.set(b.tool_use_id, asNote ? { ...b, content: repeat.note } : b);
        if (asNote) fullOutputs.set(b.tool_use_id, b.content);
      }
      if (b.type === 'tool_result') first = false;
    }
  }
  const content: UserBlock[] = toolIds.map((id) => {
    const found = results.get(id);
    if (found) return found;
    report.danglingToolUses.push(id);
    return { type: 'tool_result', tool_use_id: id, content: INTERRUPTED_TOOL_RESULT, is_error: true };
  });
  return {
    message: { role: 'user', content: [...content, ...others] },
    uuids: sources.map((s) => s.line.uuid),
    messageIds: [],
  };
}

/** Drops empty text (the API rejects it) and cache_control (the request builder places its own). */
function cleanEntry(e: NormalisedEntry, report: NormaliseReport): NormalisedEntry | undefined {
  const content = e.message.content;
  if (typeof content === 'string') {
    if (content.trim() !== '') return e;
    report.emptyTextDropped++;
    return undefined;
  }
  const blocks: ContentBlock[] = [];
  for (const b of content) {
    const clean = cleanBlock(b, report);
    if (clean) blocks.push(clean);
  }
  if (blocks.length === 0) return undefined;
  return { ...e, message: { role: e.message.role, content: blocks } };
}

function cleanBlock(b: ContentBlock, report: NormaliseReport): ContentBlock | undefined {
  if (b.type === 'text' && b.text.trim() === '') {
    report.emptyTextDropped++;
    return undefined;
  }
  let out = b;
  if (b.type === 'tool_result' && Array.isArray(b.content)) {
    const inner = b.content.filter((x) => x.type !== 'text' || x.text.trim() !== '');
    if (inner.length !== b.content.length) {
      report.emptyTextDropped += b.content.length - inner.length;
      out = { ...b, content: inner.length > 0 ? inner : '' };
    }
  }
  if ('cache_control' in out && out.cache_control !== undefined) {
    const { cache_control: _dropped, ...rest } = out;
    out = rest as ContentBlock;
  }
  return out;
}

/**
 * Consecutive messages of one role become one (dropped lines can leave two in a row); in a user
 * message, tool_result blocks go first, which is where the API looks for them. A list rebuilt in
 * memory (an undo) goes through this too, so it is what reading its transcript back gives.
 */
export function mergeSameRole(entries: NormalisedEntry[]): NormalisedEntry[] {
  const out: NormalisedEntry[] = [];
  for (const e of entries) {
    const prev = out[out.length - 1];
    if (!prev || prev.message.role !== e.message.role) {
      out.push(e.message.role === 'user' ? resultsFirst(e) : e);
      continue;
    }
    const content = [...asBlocks(prev.message.content), ...asBlocks(e.message.content)];
    out[out.length - 1] = resultsFirst({
      message: { role: e.message.role, content },
      uuids: [...prev.uuids, ...e.uuids],
      messageIds: [...prev.messageIds, ...e.messageIds],
    });
  }
  return out;
}

function resultsFirst(e: NormalisedEntry): NormalisedEntry {
  const content = e.message.content;
  if (e.message.role !== 'user' || typeof content === 'string') return e;
  const firstOther = content.findIndex((b) => b.type !== 'tool_result');
  const needsMove = firstOther !== -1 && content.slice(firstOther).some((b) => b.type === 'tool_result');
  if (!needsMove) return e;
  const sorted = [
    ...content.filter((b) => b.type === 'tool_result'),
    ...content.filter((b) => b.type !== 'tool_result'),
  ];
  return { ...e, message: { role: 'user', content: sorted } };
}

function asBlocks(content: string | ContentBlock[]): ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/**
 * A conversation that ends on the model's message is sent as a prefill when resumed as is, and the API
 * rejects a prefill ending in whitespace.
 */
function trimFinalAssistant(entries: NormalisedEntry[], report: NormaliseReport): void {
  const last = entries[entries.length - 1];
  if (!last || last.message.role !== 'assistant' || typeof last.message.content === 'string') return;
  const blocks = last.message.content;
  const tail = blocks[blocks.length - 1];
  if (tail.type !== 'text' || !/\s$/.test(tail.text)) return;
  const text = tail.text.trimEnd();
  const content: ContentBlock[] = text === '' ? blocks.slice(0, -1) : [...blocks.slice(0, -1), { ...tail, text }];
  if (text === '') report.emptyTextDropped++;
  if (content.length === 0) entries.pop();
  else entries[entries.length - 1] = { ...last, message: { role: 'assistant', content } };
}
