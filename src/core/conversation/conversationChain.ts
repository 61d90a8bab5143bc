// Picks the lines that make up the current conversation of a transcript (DESIGN 3): the parentUuid chain
// from the newest line back to the last compact boundary. The normaliser then widens it by message.id
// and tool_use id, because parallel tool calls form a small tree that one chain does not cover.
//
// Rules worth knowing, all seen in real Claude Code transcripts:
// - A line can be written again later with the same uuid and a new parentUuid (session-memory
//   compaction re-links kept messages); the newest version wins, the first position gives the order.
// - A compact boundary has parentUuid null, so the walk stops there. Its `preservedSegment`
//   {headUuid, anchorUuid, tailUuid} says that old lines head..tail were kept and belong right after the
//   anchor (the summary line): the head continues from the anchor, and what was written as a child of
//   the anchor continues from the tail.
// - Lines before the last boundary are out of reach (CurrentLines drops them), except that segment: a
//   message id or tool result is never completed from lines an earlier compaction cut off.
// - A retry or edit writes a rewind marker (rewindLine.ts) off the line it went back to: while it is the
//   newest, the conversation ends there and the taken-back turn is a dead branch. A rewind to a turn
//   before a compaction lists the boundaries it goes behind (`reopens`): while the newest marker lists a
//   boundary, that boundary is left out, as if the compaction had not happened (reopenedBoundaries).
// - Lines of other types may carry a uuid and sit in the chain (e.g. progress lines): the walk passes
//   through them; they are never sent to the model.
import { isRewindLine, reopenedBy } from './rewindLine';
import type { AssistantLine, ConversationLine, SystemLine, UserLine } from './types';
import type { TranscriptLine } from './transcriptReader';

export interface IndexedLine {
  line: TranscriptLine & { uuid: string };
  /** Position (among the reachable lines) where this uuid was first written: the order of blocks and results. */
  firstIndex: number;
  /** Position of the newest version of this uuid. */
  lastIndex: number;
}

export interface ChainOptions {
  /**
   * Read the sidechain (sub-agent) lines instead of the main ones; default: main, or sidechain when the
   * file has nothing else.
   */
  sidechain?: boolean;
  /** Read the conversation that ends at this line instead of at the newest one (another branch, branches.ts). */
  leafUuid?: string;
}

export interface ConversationChain {
  /** Lines from the root (after the boundary) to the newest line, boundary excluded. */
  chain: IndexedLine[];
  byUuid: Map<string, IndexedLine>;
  /** Lines of each assistant message.id, in the order they were first written. */
  byMessageId: Map<string, IndexedLine[]>;
  /** User lines holding a tool_result for each tool_use id. */
  resultsByToolUseId: Map<string, IndexedLine[]>;
  boundary: SystemLine | undefined;
  leaf: IndexedLine | undefined;
  /** The line a line continues (its parentUuid, re-routed through a kept segment); null at the start. */
  parentOf: (line: { uuid: string; parentUuid?: unknown }) => string | null;
}

export function isConversationLine(line: TranscriptLine): line is ConversationLine {
  return (line.type === 'user' || line.type === 'assistant' || line.type === 'system') && typeof line.uuid === 'string';
}

export function isCompactBoundary(line: TranscriptLine): line is SystemLine {
  return line.type === 'system' && line.subtype === 'compact_boundary';
}

/** Main lines, unless the file holds nothing but sidechain lines (a sub-agent transcript). */
export function pickSide(lines: readonly TranscriptLine[], opts: ChainOptions = {}): boolean {
  return opts.sidechain ?? !lines.some((l) => isConversationLine(l) && !l.isSidechain);
}

export function buildChain(lines: readonly TranscriptLine[], opts: ChainOptions = {}): ConversationChain {
  const sidechain = pickSide(lines, opts);
  const onSide = (l: TranscriptLine): boolean => Boolean(l.isSidechain) === sidechain;
  const reachable = new CurrentLines(sidechain, reopenedBoundaries(lines, sidechain));
  for (const line of lines) reachable.add(line);

  const byUuid = new Map<string, IndexedLine>();
  reachable.lines.forEach((line, i) => {
    if (typeof line.uuid !== 'string') return;
    const seen = byUuid.get(line.uuid);
    if (seen) {
      seen.line = line as IndexedLine['line'];
      seen.lastIndex = i;
    } else {
      byUuid.set(line.uuid, { line: line as IndexedLine['line'], firstIndex: i, lastIndex: i });
    }
  });

  const byMessageId = new Map<string, IndexedLine[]>();
  const resultsByToolUseId = new Map<string, IndexedLine[]>();
  let leaf: IndexedLine | undefined;
  let boundary: IndexedLine | undefined;
  for (const entry of byUuid.values()) {
    const line = entry.line;
    if (!isConversationLine(line) || !onSide(line)) continue;
    if (line.type === 'assistant') {
      push(byMessageId, (line as AssistantLine).message.id, entry);
    } else if (line.type === 'user') {
      const content = (line as UserLine).message.content;
      if (Array.isArray(content)) {
        for (const b of content) if (b.type === 'tool_result') push(resultsByToolUseId, b.tool_use_id, entry);
      }
    }
    // The newest message, boundary or rewind marker ends the conversation; other system lines may have no parent.
    if (line.type !== 'system' || isCompactBoundary(line) || isRewindLine(line)) {
      if (!leaf || entry.lastIndex > leaf.lastIndex) leaf = entry;
    }
    if (isCompactBoundary(line) && (!boundary || entry.lastIndex > boundary.lastIndex)) boundary = entry;
  }
  for (const group of byMessageId.values()) group.sort((a, b) => a.firstIndex - b.firstIndex);

  const parentOf = parentFunction(byUuid, boundary?.line as SystemLine | undefined);
  // Nothing written after the compaction yet: the conversation ends with the kept segment, not its anchor.
  const seg = preservedSegment(boundary?.line as SystemLine | undefined);
  if (seg && leaf?.line.uuid === seg.anchorUuid && segmentIntact(byUuid, seg)) leaf = byUuid.get(seg.tailUuid) ?? leaf;
  if (opts.leafUuid !== undefined) leaf = byUuid.get(opts.leafUuid) ?? leaf;
  const chain: IndexedLine[] = [];
  const visited = new Set<string>();
  let current = leaf;
  while (current && !visited.has(current.line.uuid) && !isCompactBoundary(current.line)) {
    visited.add(current.line.uuid);
    chain.push(current);
    const parent = parentOf(current.line);
    current = parent ? byUuid.get(parent) : undefined;
  }
  chain.reverse();
  return {
    chain,
    byUuid,
    byMessageId,
    resultsByToolUseId,
    boundary: boundary?.line as SystemLine | undefined,
    leaf,
    parentOf,
  };
}

interface PreservedSegment {
  headUuid: string;
  anchorUuid: string;
  tailUuid: string;
}

/** parentUuid, re-routed through the boundary's preserved segment when that segment is intact. */
function parentFunction(
  byUuid: Map<string, IndexedLine>,
  boundary: SystemLine | undefined,
): (line: { uuid: string; parentUuid?: unknown }) => string | null {
  const plain = (line: { parentUuid?: unknown }): string | null =>
    typeof line.parentUuid === 'string' ? line.parentUuid : null;
  const seg = preservedSegment(boundary);
  if (!seg || !segmentIntact(byUuid, seg)) return plain;
  return (line) => {
    if (line.uuid === seg.headUuid) return seg.anchorUuid;
    const p = plain(line);
    if (p === seg.anchorUuid && line.uuid !== seg.tailUuid) return seg.tailUuid;
    return p;
  };
}

function preservedSegment(boundary: SystemLine | undefined): PreservedSegment | undefined {
  const s = (boundary?.compactMetadata as { preservedSegment?: Partial<PreservedSegment> } | undefined)
    ?.preservedSegment;
  if (!s || typeof s.headUuid !== 'string' || typeof s.anchorUuid !== 'string' || typeof s.tailUuid !== 'string') {
    return undefined;
  }
  return s as PreservedSegment;
}

/** The tail must lead back to the head, or splicing would graft an unrelated branch. */
function segmentIntact(byUuid: Map<string, IndexedLine>, seg: PreservedSegment): boolean {
  if (!byUuid.has(seg.anchorUuid)) return false;
  const visited = new Set<string>();
  let uuid: string | null = seg.tailUuid;
  while (uuid && !visited.has(uuid)) {
    if (uuid === seg.headUuid) return true;
    visited.add(uuid);
    const entry = byUuid.get(uuid);
    if (!entry || isCompactBoundary(entry.line)) return false;
    uuid = typeof entry.line.parentUuid === 'string' ? entry.line.parentUuid : null;
  }
  return false;
}

/**
 * Collects the lines the current conversation can reach, dropping, at each compact boundary, the lines
 * it cuts off. What survives a boundary is nothing, or its preserved segment (tail back to head) with the
 * other lines of those messages and the results of their tool calls. Message ids and tool results are
 * therefore never gathered from before the boundary, and a loader can stream a file of any length
 * keeping only this much.
 */
export class CurrentLines {
  private kept: TranscriptLine[] = [];

  /** `reopened`: boundaries the newest rewind marker goes behind; they and their cut are left out. */
  constructor(
    private readonly sidechain: boolean,
    private readonly reopened: ReadonlySet<string> = new Set(),
  ) {}

  get lines(): readonly TranscriptLine[] {
    return this.kept;
  }

  add(line: TranscriptLine): void {
    // Lines without a uuid (queue operations, snapshots, last-prompt) are never part of the conversation.
    if (typeof line.uuid !== 'string' || this.reopened.has(line.uuid)) return;
    if (isCompactBoundary(line) && Boolean(line.isSidechain) === this.sidechain)
      this.kept = keptAcross(this.kept, line);
    this.kept.push(line);
  }
}

/** The boundaries the newest rewind marker of the side reopens (rewindLine.ts), in a file's lines. */
export function reopenedBoundaries(lines: Iterable<TranscriptLine>, sidechain: boolean): Set<string> {
  const newest = new NewestRewind(sidechain);
  for (const line of lines) newest.see(line);
  return newest.reopened;
}

/** Follows a file line by line for its newest rewind marker on one side (the loader streams). */
export class NewestRewind {
  reopened = new Set<string>();

  constructor(private readonly sidechain: boolean) {}

  see(line: TranscriptLine): void {
    if (isRewindLine(line) && Boolean(line.isSidechain) === this.sidechain) this.reopened = new Set(reopenedBy(line));
  }
}

/** If the preserved segment cannot be traced, everything is kept: memory is cheaper than a lost message. */
function keptAcross(kept: TranscriptLine[], boundary: SystemLine): TranscriptLine[] {
  const raw = (boundary.compactMetadata as { preservedSegment?: unknown } | undefined)?.preservedSegment;
  if (raw === undefined) return [];
  const seg = preservedSegment(boundary);
  if (!seg) return kept;

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

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
