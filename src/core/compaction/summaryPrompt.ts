// The words of a full compaction: the request that asks the model for a hand-over summary, what
// counts as one, and the message that opens the compacted conversation. Kept apart from the mechanics
// (fullCompact.ts) so a change of wording is reviewed on its own, against the snapshot test.

import type { AssistantBlock } from '../conversation/types';

/** Section titles of the summary, in order (DESIGN 5). */
export const SUMMARY_SECTIONS = [
  'Request and intent',
  'Key concepts',
  'Files',
  'Errors and fixes',
  'Problem solving',
  'All user messages',
  'Pending tasks',
  'Current work',
  'Next step',
] as const;

const SECTION_GUIDE: Record<(typeof SUMMARY_SECTIONS)[number], string> = {
  'Request and intent': 'everything the user asked for, in their own terms, and how the request changed along the way.',
  'Key concepts': 'the technologies, conventions and design decisions the work depends on.',
  Files:
    'each file read, created or changed: why it matters, what changed in it, and the code the next step needs ' +
    '(signatures, short snippets), with paths.',
  'Errors and fixes':
    'each error or failed attempt, its cause and its fix; say plainly where the user corrected the approach.',
  'Problem solving': 'what was worked out, and what is still being investigated.',
  'All user messages': 'every message the user wrote (not tool output), in order, quoted or closely paraphrased.',
  'Pending tasks': 'what the user asked for that is not done yet.',
  'Current work': 'exactly what was being done right before this summary, with file names and code.',
  'Next step':
    'the one next step, only if it follows from the latest request; quote that request word for word so its ' +
    'intent cannot drift. If the work is finished, say so instead of inventing a step.',
};

/** Opens the summary request, so logs and test servers can tell it from a turn of the conversation. */
export const SUMMARY_REQUEST_MARKER = '<engram-compact-summary>';

/** The user message that asks for the summary; `focus` is what the person typed after /compact. */
export function summaryRequest(focus?: string): string {
  const sections = SUMMARY_SECTIONS.map((s, i) => `${i + 1}. ${s}: ${SECTION_GUIDE[s]}`).join('\n');
  const parts = [
    SUMMARY_REQUEST_MARKER,
    'Stop the task for a moment: this conversation is about to be replaced by a summary that you write now. ' +
      'Whoever continues the work will see only that summary (and possibly the latest user message), so it has ' +
      'to carry everything needed to go on without asking the user again. Answer with text only; do not call ' +
      'any tools.',
    'First, inside <analysis> tags, go through the conversation from the start and note for each part what was ' +
      'asked, what was done, which files and code were involved, what went wrong and how it was resolved, and what ' +
      'the user said about how they want things done. Then check that nothing the user asked for is missing.',
    `Then write the summary inside <summary> tags, with these numbered sections:\n${sections}`,
  ];
  const f = focus?.trim();
  if (f) parts.push(`The user asked this summary to pay particular attention to:\n${f}`);
  return parts.join('\n\n');
}

/**
 * The summary out of the model's answer: the <summary> part, or the whole answer without its
 * <analysis> part when the tags are missing. Empty when there is nothing usable.
 */
export function extractSummary(answer: string): string {
  const tagged = /<summary>([\s\S]*?)(?:<\/summary>|$)/i.exec(answer);
  const body = tagged ? tagged[1] : answer.replace(/<analysis>[\s\S]*?(?:<\/analysis>|$)/gi, '');
  return body.trim();
}

/**
 * Why an answer cannot replace the conversation, or undefined when it is a summary: it must not call a
 * tool, and must hold a closed <summary> part (the tag the request asks for) or, without the tags,
 * every section title. Anything else (a tool call with a line of text, an answer cut off at the
 * output limit, a chat reply) would leave the next request with nothing to go on.
 */
export function summaryProblem(content: readonly AssistantBlock[]): string | undefined {
  if (content.some((b) => b.type === 'tool_use')) return 'it called a tool';
  const text = content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('\n');
  if (/<\/summary>/i.test(text)) return extractSummary(text) === '' ? 'its summary is empty' : undefined;
  const lower = text.toLowerCase();
  const missing = SUMMARY_SECTIONS.filter((s) => !lower.includes(s.toLowerCase()));
  if (missing.length === 0) return undefined;
  return missing.length === SUMMARY_SECTIONS.length
    ? 'it has no summary sections'
    : `it lacks the closing </summary> tag and the sections ${missing.join(', ')}`;
}

/** What follows the summary verbatim: nothing, the latest prompt, or the recent window. */
export type KeptPart = 'nothing' | 'latest' | 'recent';

/** Asked of the model whatever follows the summary. */
const CARRY_ON = 'Carry on from where the conversation stopped';
const NO_REPEATS = 'without asking the user to repeat anything.';

const AFTER_SUMMARY: Record<KeptPart, string> = {
  nothing: `${CARRY_ON}, with the next step above, ${NO_REPEATS}`,
  latest: `The latest user message follows unchanged. ${CARRY_ON}, ${NO_REPEATS}`,
  recent: `The most recent messages follow unchanged. ${CARRY_ON}, ${NO_REPEATS}`,
};

/**
 * How a compacted conversation's opening message says why it was compacted: it grew too long (automatic
 * and reactive compaction), or the user asked (`/compact`, Compact Now, `engram compact`), maybe at 2% of
 * the window. The automatic wording is the one prompt caches and benchmarks have always seen.
 */
export function compactedBecause(manual: boolean | undefined): string {
  return manual
    ? 'This session continues a conversation that the user chose to compact.'
    : 'This session continues a conversation that grew too long for the context window.';
}

/** The opening message of a conversation compacted with a model-written summary. */
export function fullSummaryText(
  summary: string,
  opts: { kept: KeptPart; reattach?: string; manual?: boolean },
): string {
  const parts = [
    `${compactedBecause(opts.manual)} Everything before this point was replaced by the summary below, ` +
      'written when it was compacted.',
    `<summary>\n${summary.trim()}\n</summary>`,
    AFTER_SUMMARY[opts.kept],
  ];
  if (opts.reattach && opts.reattach.trim() !== '') parts.push(opts.reattach.trim());
  return parts.join('\n\n');
}

/** The opening message when old messages had to be dropped without a summary (reactive recovery). */
export function droppedNoteText(dropped: number): string {
  const removed = `${dropped} earlier message${dropped === 1 ? ' was' : 's were'} removed`;
  return (
    `[${removed} because the conversation no longer fit the context window. ` +
    'Ask the user if something from before this point is needed.]'
  );
}
