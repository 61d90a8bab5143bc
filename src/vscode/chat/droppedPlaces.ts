// Where the items an edit of the compaction preview dropped used to stand, so that their "Add to the
// summary" lenses sit there (droppedLens.ts) instead of piling up on the first line. Plain text work, no
// vscode: the summary as it was written, the document as it is now, and the items the core says the
// edit no longer carries.

/** Runs of whitespace made one space, ends trimmed: how the core compares a summary with its facts. */
function normal(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * For each item, the line of `current` above which it stood in `original` (the summary as written): the
 * line that now follows the text the edit removed. That is the first line after the item's own lines
 * that the edit kept (found by its text, among lines the original has once, so a repeated "None." does
 * not mislead), else the line after the last kept line before it. An item the original does not hold, or
 * one with nothing kept around it, gets `from` (the summary's first line).
 */
export function linesWhereItemsWere(
  original: readonly string[],
  current: readonly string[],
  from: number,
  items: readonly string[],
): number[] {
  // The original as one normalised text, with where each line starts in it.
  const starts: number[] = [];
  let text = '';
  for (const line of original) {
    const piece = normal(line);
    if (piece && text) text += ' ';
    starts.push(text.length);
    text += piece;
  }
  const seen = new Map<string, number>();
  for (const line of original) {
    const key = normal(line);
    if (key) seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const now = new Map<string, number>();
  for (let i = current.length - 1; i >= Math.max(0, from); i--) {
    const key = normal(current[i]);
    if (key) now.set(key, i);
  }
  /** Where original line `i` is now, if it is kept word for word and is one of a kind. */
  const kept = (i: number): number | undefined => {
    const key = normal(original[i]);
    return key && seen.get(key) === 1 ? now.get(key) : undefined;
  };
  const lineAt = (offset: number): number => {
    let line = 0;
    while (line + 1 < starts.length && starts[line + 1] <= offset) line++;
    return line;
  };
  const last = Math.max(from, current.length - 1);
  return items.map((item) => {
    const wanted = normal(item);
    const at = wanted ? text.indexOf(wanted) : -1;
    if (at < 0) return from;
    for (let i = lineAt(at + wanted.length - 1) + 1; i < original.length; i++) {
      const line = kept(i);
      if (line !== undefined) return line;
    }
    for (let i = lineAt(at) - 1; i >= 0; i--) {
      const line = kept(i);
      if (line !== undefined) return Math.min(line + 1, last);
    }
    return from;
  });
}
