// The turns of a transcript's current conversation, in order, for checkpoints and rewinds (issue 33):
// turn 1 is the first prompt, each typed prompt starts the next turn, and a turn ends with the last line
// before the next prompt. The walk follows parentUuid back from the newest line (as conversationChain.ts
// does) but does not stop at a compact boundary: it goes on from the boundary's logicalParentUuid, so the
// turns before a compaction keep their numbers and can still be gone back to. Each line's first-written
// parentUuid is followed, which is the order the turns happened in even where a compaction re-linked
// kept lines later. Rewind markers (rewindLine.ts) are walked through like any line: after a rewind to
// turn 3, the conversation is turns 1-3 and what followed the marker.
//
// "Compacted away": Engram's compactions only append (a boundary, a summary, the trims' records); no line
// is ever removed from the file, so every turn an Engram session had is still there. A turn is compacted
// away when the file no longer holds its lines: a boundary whose logicalParentUuid (or a line whose
// parentUuid) names a line the file lacks, as in a transcript another tool trimmed or copied from its
// newest compaction on. The index then says the walk was cut (`cut`); how many turns went is known only
// to the checkpoints, which number every turn as it ran.
import { promises as fsp } from 'node:fs';
import { isCompactBoundary } from './conversationChain';
import { isRewindLine, reopenedBy } from './rewindLine';
import { forEachTranscriptLine, promptText, type TranscriptLine } from './transcriptReader';
import type { UserLine } from './types';

export interface IndexedTurn {
  /** 1-based, along the current conversation (see `cut` for a file that lost its first turns). */
  turn: number;
  promptUuid: string;
  prompt: string;
  /** The turn's last user or assistant line: a rewind to this turn hangs its marker off it. */
  lastUuid: string;
}

export interface TurnIndex {
  turns: IndexedTurn[];
  /** The newest line of the conversation (its leaf): what a rewind drops and its undo goes back to. */
  leafUuid: string | undefined;
  /** The walk met a line the file lacks: turns before the first one listed are compacted away. */
  cut: boolean;
  /** The compact boundaries of the main side, in file order, with their place in the file. */
  boundaries: Array<{ uuid: string; index: number }>;
  /** Where each line was last written (for "boundaries after this line"). */
  indexOf: ReadonlyMap<string, number>;
  /** The boundaries the newest rewind marker reopens (rewindLine.ts). */
  reopened: string[];
}

interface Skeleton {
  uuid: string;
  parentUuid: string | null;
  logicalParentUuid?: string | null;
  boundary: boolean;
  prompt?: string;
  /** A user or assistant line other than a compaction summary: a turn can end on it. */
  message: boolean;
  leafCandidate: boolean;
}

/** The newest index read of a few files, by size and time: the chat asks for the turns often. */
const recent = new Map<string, { size: number; mtimeMs: number; index: TurnIndex }>();
const RECENT_FILES = 8;

/**
 * Reads the turn index of a transcript file (streamed: a skeleton per line is kept). The result is
 * shared with later calls while the file is unchanged: read it, do not change it.
 */
export async function readTurnIndex(file: string): Promise<TurnIndex> {
  const stat = await fsp.stat(file);
  const known = recent.get(file);
  if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.index;
  const index = await scanTurnIndex(file);
  recent.delete(file);
  recent.set(file, { size: stat.size, mtimeMs: stat.mtimeMs, index });
  if (recent.size > RECENT_FILES) recent.delete(recent.keys().next().value as string);
  return index;
}

async function scanTurnIndex(file: string): Promise<TurnIndex> {
  const lines: TranscriptLine[] = [];
  const skeletons: Skeleton[] = [];
  await forEachTranscriptLine(file, (line) => {
    const s = skeletonOf(line);
    if (s) {
      skeletons.push(s);
      if (isRewindLine(line)) lines.push(line);
    }
  });
  const newestMarker = lines[lines.length - 1];
  return indexOf(skeletons, newestMarker ? reopenedBy(newestMarker) : []);
}

function skeletonOf(line: TranscriptLine): Skeleton | undefined {
  if (typeof line.uuid !== 'string' || line.isSidechain) return undefined;
  if (line.type !== 'user' && line.type !== 'assistant' && line.type !== 'system') return undefined;
  const boundary = isCompactBoundary(line);
  const summary = line.type === 'user' && (line as UserLine).isCompactSummary === true;
  const prompt = line.type === 'user' ? promptOf(line as UserLine) : undefined;
  return {
    uuid: line.uuid,
    parentUuid: typeof line.parentUuid === 'string' ? line.parentUuid : null,
    ...(boundary
      ? { logicalParentUuid: typeof line.logicalParentUuid === 'string' ? line.logicalParentUuid : null }
      : {}),
    boundary,
    ...(prompt !== undefined ? { prompt } : {}),
    message: (line.type === 'user' && !summary && line.isMeta !== true) || line.type === 'assistant',
    leafCandidate: line.type !== 'system' || boundary || isRewindLine(line),
  };
}

/**
 * The text of a line that starts a turn: every prompt the agent writes (one per turn, so the numbers match
 * the session's count), its text as promptText reads it, or '' for a prompt of attachments only.
 */
function promptOf(line: UserLine): string | undefined {
  const text = promptText(line);
  if (text !== undefined || line.isMeta || line.isCompactSummary) return text;
  const c = line.message.content;
  if (typeof c === 'string') return /^\s*<(local-command-|command-name>)/.test(c) ? undefined : '';
  return c.some((b) => b.type === 'tool_result') ? undefined : '';
}

function indexOf(skeletons: readonly Skeleton[], reopened: string[]): TurnIndex {
  // The first version of a line gives where it hangs; its newest place in the file orders the leaves.
  const first = new Map<string, Skeleton>();
  const last = new Map<string, number>();
  const boundaries: TurnIndex['boundaries'] = [];
  let leaf: string | undefined;
  skeletons.forEach((s, i) => {
    if (!first.has(s.uuid)) first.set(s.uuid, s);
    last.set(s.uuid, i);
    if (s.boundary) boundaries.push({ uuid: s.uuid, index: i });
    if (s.leafCandidate) leaf = s.uuid;
  });
  const chain: Skeleton[] = [];
  const seen = new Set<string>();
  let cut = false;
  let uuid: string | null | undefined = leaf;
  while (uuid) {
    const s = first.get(uuid);
    if (!s) {
      cut = true;
      break;
    }
    if (seen.has(uuid)) break;
    seen.add(uuid);
    chain.push(s);
    uuid = s.boundary ? s.logicalParentUuid : s.parentUuid;
  }
  chain.reverse();
  const turns: IndexedTurn[] = [];
  for (const s of chain) {
    if (s.prompt !== undefined) {
      turns.push({ turn: turns.length + 1, promptUuid: s.uuid, prompt: s.prompt, lastUuid: s.uuid });
    } else if (s.message && turns.length > 0) {
      turns[turns.length - 1].lastUuid = s.uuid;
    }
  }
  return { turns, leafUuid: leaf, cut, boundaries, indexOf: last, reopened };
}

/** The compact boundaries written after `uuid` (all of them for null: before the first line). */
export function boundariesAfter(index: TurnIndex, uuid: string | null): string[] {
  const at = uuid === null ? -1 : (index.indexOf.get(uuid) ?? -1);
  return index.boundaries.filter((b) => b.index > at).map((b) => b.uuid);
}
