// Characters that change how text reads without showing themselves. A right-to-left override makes
// `file<U+202E>gpj.exe` read "fileexe.jpg" (and reverses what follows it in the paragraph); a zero-width
// space hides inside a name that looks like another. Memories come from the model and from teammates,
// so every surface shows these as a visible `<U+202E>`, as VS Code's editor does for bidi text, and the
// inspector flags the entries that hold them. Shared by the host and both webviews.

/** Bidi controls (U+061C, U+200E/F, U+202A-E, U+2066-9) and zero-width ones (U+200B-D, U+2060, U+FEFF). */
const HIDDEN = /[\u061C\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/;
/**
 * The same, global, for replace and matchAll only: neither leaves lastIndex moved (a test() on a global
 * pattern would, and matchAll starts its copy from there, missing every earlier character).
 */
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'g');

/** A hidden character, or a run of ordinary text. */
export type TextPart = string | { hidden: string };

export function hasHiddenChars(text: string): boolean {
  return HIDDEN.test(text);
}

/** `<U+202E>` for U+202E. */
export function hiddenCharLabel(char: string): string {
  return `<U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** The text with each hidden character written out (`<U+202E>`): for titles, tooltips and plain text. */
export function showHiddenChars(text: string): string {
  return text.replace(HIDDEN_ALL, hiddenCharLabel);
}

/** The text cut at each hidden character, so a view can style the characters apart from the text. */
export function splitHiddenChars(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let from = 0;
  for (const m of text.matchAll(HIDDEN_ALL)) {
    if (m.index > from) parts.push(text.slice(from, m.index));
    parts.push({ hidden: hiddenCharLabel(m[0]) });
    from = m.index + m[0].length;
  }
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}

/** The distinct hidden characters of the given texts, written out (`<U+202E>`, `<U+200B>`). */
export function hiddenCharsIn(...texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(HIDDEN_ALL)) found.add(hiddenCharLabel(m[0]));
  return [...found];
}
