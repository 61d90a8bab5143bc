// The words Engram puts into tool results it shortened, shared by the code that writes them
// (compaction/microcompact.ts) and the code that must recognise a result that is no longer whole
// (repeatedResults.ts: a shortened copy is never the base of a note).

/** How microcompact's note on a trimmed result starts. */
export const TRIM_NOTE_PREFIX = '[Output trimmed to save context: showing the first ';

/** Whether a result's text carries microcompact's trim note. */
export function isTrimmedText(text: string): boolean {
  return text.includes(TRIM_NOTE_PREFIX);
}
