// Resumes a session from its transcript in bounded memory. A long session's file holds every line ever
// written (compaction never rewrites it), but the conversation is only what follows the last compact
// boundary, so lines are dropped as soon as a boundary makes them unreachable. What stays is at most the
// current conversation plus the segment a session-memory compaction preserved, whatever the file size
// (the rules are CurrentLines', shared with the normaliser so both read the same conversation).
import { type ChainOptions, CurrentLines } from './conversationChain';
import { type NormaliseResult, normaliseWithIds } from './normalise';
import { type CorruptLine, forEachTranscriptLine } from './transcriptReader';

export interface LoadedConversation extends NormaliseResult {
  corrupt: CorruptLine[];
  tornTail: boolean;
  /** Lines in the file and its size, for the inspector and the logs. */
  lineCount: number;
  bytes: number;
}

/** Same result as normaliseWithIds over the whole file, holding only lines the conversation can reach. */
export async function loadConversation(file: string, opts: ChainOptions = {}): Promise<LoadedConversation> {
  // The side is not known before reading; on the wrong side boundaries are ignored, which only keeps more.
  const current = new CurrentLines(opts.sidechain ?? false);
  const { corrupt, tornTail, lineCount, bytes } = await forEachTranscriptLine(file, (line) => current.add(line));
  return { ...normaliseWithIds(current.lines, opts), corrupt, tornTail, lineCount, bytes };
}
