// Loads the current conversation of a transcript while streaming it: memory holds the lines the
// conversation can reach (compact boundaries drop what they cut off, see CurrentLines), not the file,
// so a session of any length resumes. The result is the same as normalising the whole file
// (the rules are CurrentLines', shared with the normaliser so both read the same conversation).
import { type BranchPoint, findBranches } from './branches';
import { type ChainOptions, CurrentLines, isCompactBoundary, NewestRewind } from './conversationChain';
import { type NormaliseResult, normaliseWithIds } from './normalise';
import { type CorruptLine, forEachTranscriptLine, type TranscriptLine } from './transcriptReader';
import type { UserLine } from './types';
import { type UsageReport, usageReports } from './usageReports';

export interface LoadedConversation extends NormaliseResult {
  corrupt: CorruptLine[];
  tornTail: boolean;
  /** Lines in the file and its size, for the inspector and the logs. */
  lineCount: number;
  bytes: number;
  /**
   * Every compaction record of the conversation's side, in file order, boundaries or not: a kept
   * segment's results may have been trimmed before a boundary, and an undo names an event written
   * long before it. The compaction layer replays them (recordedCompactions.ts).
   */
  compactionRecords: TranscriptLine[];
  /** Where the conversation branches (two writers at once): the reader follows one side only. */
  branches: BranchPoint[];
  /** The usage its responses reported, by message id: a resumed session's gauge starts from the last. */
  usageReports: Map<string, UsageReport>;
}

/**
 * What a compaction leaves besides the conversation: microcompact and compact boundaries and the
 * summary lines after them. A few lines per compaction, so keeping all of them stays small.
 */
export function isCompactionRecord(line: TranscriptLine, sidechain: boolean): boolean {
  if (Boolean(line.isSidechain) !== sidechain) return false;
  if (line.type === 'user') return (line as UserLine).isCompactSummary === true;
  return isCompactBoundary(line) || (line.type === 'system' && line.subtype === 'microcompact_boundary');
}

/** Same result as normaliseWithIds over the whole file, holding only lines the conversation can reach. */
export async function loadConversation(file: string, opts: ChainOptions = {}): Promise<LoadedConversation> {
  // The side is not known before reading; on the wrong side boundaries are ignored, which only keeps more.
  const sidechain = opts.sidechain ?? false;
  const newest = new NewestRewind(sidechain);
  let current = new CurrentLines(sidechain);
  let compactionRecords: TranscriptLine[] = [];
  const { corrupt, tornTail, lineCount, bytes } = await forEachTranscriptLine(file, (line) => {
    if (isCompactionRecord(line, sidechain)) compactionRecords.push(line);
    current.add(line);
    newest.see(line);
  });
  // A rewind behind a compaction (rewindLine.ts): read again without the boundaries it reopens, which
  // cut lines the first pass already let go of. Rare, and only then is the file read twice.
  const reopened = newest.reopened;
  if (reopened.size > 0) {
    current = new CurrentLines(sidechain, reopened);
    await forEachTranscriptLine(file, (line) => current.add(line));
    compactionRecords = compactionRecords.filter((l) => typeof l.uuid !== 'string' || !reopened.has(l.uuid));
  }
  return {
    ...normaliseWithIds(current.lines, opts),
    corrupt,
    tornTail,
    lineCount,
    bytes,
    compactionRecords,
    branches: findBranches(current.lines),
    usageReports: usageReports(current.lines),
  };
}
