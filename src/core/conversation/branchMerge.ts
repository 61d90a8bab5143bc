// `engram merge-branches FILE`: joins a transcript that two writers branched (branches.ts). The turns
// of every branch a resume leaves out are appended after the branch it reads, as new lines (new uuids
// and message ids; tool calls with their results), after a `branches_merged` line naming the merged
// branches, so they are no longer reported. Append-only like every transcript write: the old lines stay.
import { BRANCHES_MERGED_SUBTYPE, findBranches } from './branches';
import { CurrentLines } from './conversationChain';
import { appendMessages } from './messageLines';
import { normaliseWithIds, type NormalisedEntry } from './normalise';
import { forEachTranscriptLine, promptText, type TranscriptLine } from './transcriptReader';
import { TranscriptWriter } from './transcriptWriter';
import type { ApiMessage, ContentBlock, UserLine } from './types';

export interface MergeOutcome {
  /** Branches whose turns were appended. */
  branches: number;
  /** Messages appended, and the typed prompts among them. */
  messages: number;
  prompts: string[];
}

export async function mergeBranches(
  file: string,
  opts: { version: string; entrypoint?: string },
): Promise<MergeOutcome> {
  const current = new CurrentLines(false);
  await forEachTranscriptLine(file, (line) => current.add(line));
  const lines = current.lines;
  const lost = findBranches(lines).flatMap((p) => p.branches.filter((b) => !b.current));
  if (lost.length === 0) return { branches: 0, messages: 0, prompts: [] };

  const read = normaliseWithIds(lines);
  const covered = new Set(read.entries.flatMap((e) => e.uuids));
  const copies: NormalisedEntry[] = [];
  for (const branch of lost) {
    const entries = normaliseWithIds(lines, { leafUuid: branch.leafUuid }).entries;
    const start = entries.findIndex((e) => e.uuids.some((u) => !covered.has(u)));
    for (const e of entries) for (const u of e.uuids) covered.add(u);
    if (start !== -1) copies.push(...withOwnCalls(entries.slice(start)));
  }

  const leaf = lines.find((l) => l.uuid === read.report.leafUuid) ?? lines[lines.length - 1];
  const writer = new TranscriptWriter({
    file,
    sessionId: fieldOf(leaf, 'sessionId') ?? '',
    cwd: fieldOf(leaf, 'cwd') ?? '',
    version: opts.version,
    entrypoint: opts.entrypoint ?? 'cli',
    parentUuid: read.report.leafUuid ?? null,
  });
  await writer.appendSystem({
    subtype: BRANCHES_MERGED_SUBTYPE,
    content: `The turns of ${lost.length} branch(es) that two writers left follow, copied after the current turn.`,
    level: 'info',
    isMeta: true,
    fields: { mergedLeafUuids: lost.map((b) => b.leafUuid) },
  });
  await appendMessages(writer, copies);
  await writer.flush();
  const prompts = copies
    .flatMap((e) => (e.message.role === 'user' ? [promptText({ message: e.message } as UserLine)] : []))
    .filter((p): p is string => p !== undefined);
  return { branches: lost.length, messages: copies.length, prompts };
}

/**
 * A branch's turns without the results of calls made before it (a branch that starts by answering a
 * call of the shared part): after the current turn, such a result would answer nothing.
 */
function withOwnCalls(entries: NormalisedEntry[]): NormalisedEntry[] {
  const calls = new Set(
    entries.flatMap((e) =>
      e.message.role === 'assistant' && typeof e.message.content !== 'string'
        ? e.message.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))
        : [],
    ),
  );
  return entries.flatMap((e) => {
    if (e.message.role !== 'user' || typeof e.message.content === 'string') return [e];
    const content = e.message.content.filter((b: ContentBlock) => b.type !== 'tool_result' || calls.has(b.tool_use_id));
    return content.length > 0 ? [{ ...e, message: { role: 'user', content } as ApiMessage }] : [];
  });
}

function fieldOf(line: TranscriptLine | undefined, key: 'sessionId' | 'cwd'): string | undefined {
  const v = (line as Record<string, unknown> | undefined)?.[key];
  return typeof v === 'string' ? v : undefined;
}
