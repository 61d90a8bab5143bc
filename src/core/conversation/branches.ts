// Finds where a transcript's conversation branches: two lines that continue the same line, so a resume
// (which follows the newest line back, conversationChain.ts) reads one side and leaves the other out.
// Two writers on one session at once did that before sessions had one writer at a time (issue #20).
//
// Not branches, because the reader reads them as intended:
// - the blocks of one response (lines sharing message.id) and the tool results hanging off their own
//   tool_use line: parallel tool calls form a small tree, which the reader gathers;
// - turns taken back by Retry or Edit: a rewind marker (rewindLine.ts) hangs off the same line, written
//   after them, and what came before the newest marker there is a dead branch on purpose;
// - lines re-linked by a compaction (the newest version of a uuid counts) and lines before the last
//   compact boundary (out of reach, as for the reader);
// - branches already merged (branches_merged, merged by `engram merge-branches`).
// System lines other than boundaries never count as a continuation: Claude Code hangs bookkeeping
// lines beside the conversation.
import { buildChain, type IndexedLine, pickSide } from './conversationChain';
import { isRewindLine } from './rewindLine';
import { forEachTranscriptLine, promptText, type TranscriptLine } from './transcriptReader';
import type { AssistantLine, SystemLine, UserLine } from './types';

/** The system line `engram merge-branches` writes before the turns it copied. */
export const BRANCHES_MERGED_SUBTYPE = 'branches_merged';

export interface ConversationBranch {
  /** The branch's first line: a line that continues the fork point. */
  headUuid: string;
  /** Its newest conversation line: where it ends (and where a merge reads it back from). */
  leafUuid: string;
  /** Lines in it, tool results and all. */
  lines: number;
  /** The first prompt typed in it, when it has one. */
  prompt?: string;
  /** The conversation is read back along this branch (a resume continues it). */
  current: boolean;
}

export interface BranchPoint {
  /** The line the branches continue; null: they both start the file. */
  uuid: string | null;
  /** In the order they were written. */
  branches: ConversationBranch[];
}

/** Where the conversation of `lines` (CurrentLines' lines, in file order) branches, in file order. */
export function findBranches(lines: readonly TranscriptLine[]): BranchPoint[] {
  const c = buildChain(lines);
  const sidechain = pickSide(lines);
  const children = new Map<string | null, IndexedLine[]>();
  const merged = new Set<string>();
  for (const entry of c.byUuid.values()) {
    if (Boolean(entry.line.isSidechain) !== sidechain) continue;
    const parent = c.parentOf(entry.line);
    const list = children.get(parent);
    if (list) list.push(entry);
    else children.set(parent, [entry]);
    if (entry.line.type === 'system' && (entry.line as SystemLine).subtype === BRANCHES_MERGED_SUBTYPE) {
      for (const uuid of mergedLeaves(entry.line as SystemLine)) merged.add(uuid);
    }
  }
  const points: Array<BranchPoint & { at: number }> = [];
  for (const [parent, kids] of children) {
    const parentLine = parent === null ? undefined : c.byUuid.get(parent)?.line;
    const rewound = Math.max(-1, ...kids.filter((k) => isRewindLine(k.line)).map((k) => k.lastIndex));
    const heads = kids
      .filter((k) => k.lastIndex > rewound && continues(k.line, parentLine, c.byMessageId))
      .sort((a, b) => a.lastIndex - b.lastIndex);
    if (heads.length < 2) continue;
    const branches = heads
      .map((h) => branchOf(h, children, c.leaf?.line.uuid))
      .filter((b) => b.current || !merged.has(b.leafUuid));
    if (branches.length < 2) continue;
    points.push({ uuid: parent, branches, at: heads[0].lastIndex });
  }
  return points.sort((a, b) => a.at - b.at).map(({ uuid, branches }) => ({ uuid, branches }));
}

/** Whether `line` carries the conversation on from `parent` (rather than being part of the same step). */
function continues(
  line: TranscriptLine & { uuid: string },
  parent: TranscriptLine | undefined,
  byMessageId: Map<string, IndexedLine[]>,
): boolean {
  if (line.type === 'system') return (line as SystemLine).subtype === 'compact_boundary';
  if (line.type !== 'user' && line.type !== 'assistant') return false;
  if (parent?.type !== 'assistant') return true;
  const id = (parent as AssistantLine).message.id;
  if (line.type === 'assistant') return (line as AssistantLine).message.id !== id;
  const content = (line as UserLine).message.content;
  if (typeof content === 'string' || !content.some((b) => b.type === 'tool_result')) return true;
  const calls = new Set(
    (byMessageId.get(id) ?? []).flatMap((g) =>
      (g.line as AssistantLine).message.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])),
    ),
  );
  return !content.every((b) => b.type !== 'tool_result' || calls.has(b.tool_use_id));
}

function branchOf(
  head: IndexedLine,
  children: Map<string | null, IndexedLine[]>,
  leafUuid: string | undefined,
): ConversationBranch {
  const all: IndexedLine[] = [];
  const stack = [head];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const next = stack.pop() as IndexedLine;
    if (seen.has(next.line.uuid)) continue;
    seen.add(next.line.uuid);
    all.push(next);
    stack.push(...(children.get(next.line.uuid) ?? []));
  }
  all.sort((a, b) => a.firstIndex - b.firstIndex);
  const ends = all.filter((e) => e.line.type === 'user' || e.line.type === 'assistant');
  const leaf = ends.reduce((a, b) => (b.lastIndex > a.lastIndex ? b : a), ends[0] ?? head);
  const prompt = all
    .map((e) => (e.line.type === 'user' ? promptText(e.line as UserLine) : undefined))
    .find((p) => p !== undefined);
  return {
    headUuid: head.line.uuid,
    leafUuid: leaf.line.uuid,
    lines: all.length,
    ...(prompt !== undefined ? { prompt } : {}),
    current: leafUuid !== undefined && seen.has(leafUuid),
  };
}

const SKELETON_FIELDS = [
  'type',
  'uuid',
  'parentUuid',
  'isSidechain',
  'subtype',
  'compactMetadata',
  'mergedLeafUuids',
  'isMeta',
  'isCompactSummary',
];
const SKELETON_TEXT = 200;

/**
 * The little of a line findBranches reads (links, ids, the start of a prompt): what a caller streaming
 * a big file keeps of each line, instead of tool output and all.
 */
export function branchSkeleton(line: TranscriptLine): TranscriptLine {
  const o = line as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of SKELETON_FIELDS) if (o[key] !== undefined) out[key] = o[key];
  const m = o.message as { id?: unknown; content?: unknown } | undefined;
  if (m && typeof m === 'object') {
    const content =
      typeof m.content === 'string'
        ? m.content.slice(0, SKELETON_TEXT)
        : Array.isArray(m.content)
          ? m.content.map(blockSkeleton)
          : m.content;
    out.message = { ...(m.id !== undefined ? { id: m.id } : {}), content };
  }
  return out as unknown as TranscriptLine;
}

function blockSkeleton(b: {
  type?: unknown;
  id?: unknown;
  tool_use_id?: unknown;
  text?: unknown;
}): Record<string, unknown> {
  if (b.type === 'tool_use') return { type: b.type, id: b.id };
  if (b.type === 'tool_result') return { type: b.type, tool_use_id: b.tool_use_id };
  if (b.type === 'text' && typeof b.text === 'string') return { type: b.type, text: b.text.slice(0, SKELETON_TEXT) };
  return { type: b.type };
}

function mergedLeaves(line: SystemLine): string[] {
  const list = (line as { mergedLeafUuids?: unknown }).mergedLeafUuids;
  return Array.isArray(list) ? list.filter((u): u is string => typeof u === 'string') : [];
}

/** The 1-based line where each of `uuids` is first written, in one streaming pass (only run when a file branches). */
export async function lineNumbers(file: string, uuids: ReadonlySet<string>): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  await forEachTranscriptLine(file, (line, lineNo) => {
    if (typeof line.uuid === 'string' && uuids.has(line.uuid) && !found.has(line.uuid)) found.set(line.uuid, lineNo);
    return found.size < uuids.size;
  });
  return found;
}

/** Where a transcript branches, by line, as every command reports it. */
export interface BranchReport {
  /** The line the branches continue (null: the start of the file). */
  line: number | null;
  branches: Array<{ line: number | null; lines: number; prompt?: string; current: boolean }>;
}

/** The branch points of `file` with their line numbers. */
export async function reportBranches(file: string, points: readonly BranchPoint[]): Promise<BranchReport[]> {
  if (points.length === 0) return [];
  const uuids = new Set(
    points.flatMap((p) => [...(p.uuid !== null ? [p.uuid] : []), ...p.branches.map((b) => b.headUuid)]),
  );
  const at = await lineNumbers(file, uuids);
  return points.map((p) => ({
    line: p.uuid === null ? null : (at.get(p.uuid) ?? null),
    branches: p.branches.map((b) => ({
      line: at.get(b.headUuid) ?? null,
      lines: b.lines,
      ...(b.prompt !== undefined ? { prompt: b.prompt } : {}),
      current: b.current,
    })),
  }));
}

const PROMPT_CHARS = 40;

/**
 * `FILE:57: the conversation branches here into 2 (...); a resume reads only the one marked "read"`.
 * One line per branch point, with what to do about it.
 */
export function formatBranchReport(file: string, report: BranchReport): string {
  const where =
    report.line === null
      ? `${file}: the conversation branches at its start`
      : `${file}:${report.line}: the conversation branches after this line`;
  const sides = report.branches.map((b) => {
    const prompt =
      b.prompt === undefined
        ? ''
        : ` "${b.prompt.length > PROMPT_CHARS ? `${b.prompt.slice(0, PROMPT_CHARS - 1)}…` : b.prompt}"`;
    const size = `${b.lines} line${b.lines === 1 ? '' : 's'}`;
    return `line ${b.line ?? '?'}${prompt}, ${size}, ${b.current ? 'read back' : 'left out'}`;
  });
  return (
    `${where} into ${report.branches.length} (${sides.join('; ')}): two writers on one session at once? ` +
    `A resume reads only the branch read back; engram merge-branches ${file} appends the left-out turns after it.`
  );
}
