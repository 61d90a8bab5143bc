// Cutting text without splitting a character: never between the two halves of a surrogate pair (an
// emoji would turn into two invalid code units the API rejects as bad UTF-8 once encoded) and, where it
// is cheap to know, never inside a grapheme cluster (an accent or a skin-tone modifier torn off its
// letter). The common case, two ASCII characters around the cut, needs no segmenter at all.

let segmenter: Intl.Segmenter | undefined;

/** How far around the cut the segmenter looks; a cluster longer than this is cut at a code point. */
const WINDOW = 64;

/** The largest index <= `limit` at which `text` can be cut cleanly (text.length when it fits). */
export function safeCutIndex(text: string, limit: number): number {
  if (text.length <= limit) return text.length;
  if (limit <= 0) return 0;
  const before = text.charCodeAt(limit - 1);
  const after = text.charCodeAt(limit);
  if (before < 0x80 && after < 0x80 && !(before === 0x0d && after === 0x0a)) return limit;
  const clustered = graphemeCut(text, limit);
  if (clustered !== undefined) return clustered;
  return isHighSurrogate(before) && isLowSurrogate(after) ? limit - 1 : limit;
}

/** `text` cut to at most `limit` UTF-16 units at a clean place. */
export function cutText(text: string, limit: number): string {
  const cut = text.slice(0, safeCutIndex(text, limit));
  // A slice keeps the whole text it was cut from alive; a short cut of a long text is copied instead, so
  // the text can go (a trimmed tool output read back from disk, heldText.ts).
  return cut.length < text.length / 2 && text.length > DETACH_CHARS ? detached(cut) : cut;
}

/** Texts longer than this are not kept alive by a short cut of them. */
const DETACH_CHARS = 4096;

/** The same characters in a string of their own (JSON keeps lone surrogates, unlike a UTF-8 round trip). */
function detached(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

function graphemeCut(text: string, limit: number): number | undefined {
  if (typeof Intl === 'undefined' || typeof Intl.Segmenter !== 'function') return undefined;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const start = Math.max(0, limit - WINDOW);
  const window = text.slice(start, Math.min(text.length, limit + WINDOW));
  let best: number | undefined;
  for (const s of segmenter.segment(window)) {
    const at = start + s.index;
    if (at > limit) break;
    // The window's first boundary may sit inside a cluster that began before it; only trust it at 0.
    if (s.index > 0 || start === 0) best = at;
  }
  if (best === undefined) return undefined;
  // A boundary far back means one huge cluster (e.g. stacked combining marks): cut at a code point.
  return best;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** 48213 -> "48,213", independent of the machine's locale (notes are read by the model, not a person). */
export function groupDigits(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
