// Microcompact (DESIGN 5, first stage): old tool results are the bulk of a long session and are rarely
// needed word for word once the model has acted on them. All but the newest few are cut to their first
// characters plus a note of the original size; images in them become a short note. No model call, no
// new message: the list keeps its shape, so every cut stays where it was and the API invariants hold.
//
// The input is never changed: untouched messages are returned as the same objects (their token counts
// stay cached and their bytes stay identical for the prompt cache), changed ones are copies, and the
// transcript keeps the originals. A result already trimmed carries the note and is left alone, so
// running microcompact again changes only results that became old since.
import type { ApiMessage, ContentBlock, ImageBlock, TextBlock, ToolResultBlock } from '../conversation/types';
import { TRIM_NOTE_PREFIX } from '../conversation/resultNotes';
import { cutText, groupDigits } from './textCut';

export interface MicrocompactOptions {
  /** Newest tool results left whole. */
  keepRecent: number;
  /** Characters an older result keeps (its text blocks together). */
  maxChars: number;
  /** Results (tool_use ids) left whole however old (supersededResults.ts: newest copies, repeated ones). */
  keepWhole?: ReadonlySet<string>;
  /** Results trimmed even among the newest (supersededResults.ts: copies a later one superseded). */
  trimFirst?: ReadonlySet<string>;
}

export interface MicrocompactResult {
  messages: ApiMessage[];
  /** Indices of the messages that changed. */
  changed: number[];
  /** tool_use ids of the results that were trimmed. */
  trimmedToolUseIds: string[];
  imagesRemoved: number;
  /** Characters of the trimmed results (text and image data) before and after. */
  charsBefore: number;
  charsAfter: number;
}

const NOTE_PREFIX = TRIM_NOTE_PREFIX;
const IMAGE_NOTE_PATTERN = /^\[Image removed to save context \([^)]*\)\. Run the tool again to see it\.\]$/;
const NOTE_PATTERN = /\[Output trimmed to save context: showing the first [\d,]+ of [\d,]+ characters\.[^\]]*\]$/;

export function trimNote(shown: number, total: number): string {
  const showing = `${NOTE_PREFIX}${groupDigits(shown)} of ${groupDigits(total)} characters.`;
  return `${showing} Run the tool again if you need the rest.]`;
}

export function imageNote(image: ImageBlock): string {
  const kb = Math.max(1, Math.round((image.source.data.length * 3) / 4 / 1024));
  const what = `${image.source.media_type}, about ${groupDigits(kb)} KB`;
  return `[Image removed to save context (${what}). Run the tool again to see it.]`;
}

/** Whether a result was already trimmed by microcompact (its last text is the note). */
export function isTrimmed(block: ToolResultBlock): boolean {
  if (typeof block.content === 'string') return NOTE_PATTERN.test(block.content);
  const last = block.content[block.content.length - 1];
  return last?.type === 'text' && NOTE_PATTERN.test(last.text);
}

export function microcompact(messages: readonly ApiMessage[], opts: MicrocompactOptions): MicrocompactResult {
  const out: MicrocompactResult = {
    messages: messages.slice(),
    changed: [],
    trimmedToolUseIds: [],
    imagesRemoved: 0,
    charsBefore: 0,
    charsAfter: 0,
  };
  // Results are numbered from the newest; the first `keepRecent` of them stay whole.
  let seen = 0;
  const trimmed: string[][] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    const results = m.content.reduce((n, b) => n + (b.type === 'tool_result' ? 1 : 0), 0);
    if (results === 0) continue;
    const recentHere = Math.max(0, Math.min(results, opts.keepRecent - seen));
    seen += results;
    if (recentHere === results && !hasAny(m.content, opts.trimFirst)) continue;
    const ids: string[] = [];
    const replaced = compactMessage(m.content, results - recentHere, opts, out, ids);
    if (replaced) {
      out.messages[i] = { role: 'user', content: replaced };
      out.changed.push(i);
      trimmed.push(ids);
    }
  }
  // Walked from the newest; report in conversation order.
  out.changed.reverse();
  out.trimmedToolUseIds = trimmed.reverse().flat();
  return out;
}

/**
 * The message's content with its first `oldCount` results trimmed (results are numbered in message
 * order; the later ones are newer). Images next to trimmed results in the same message (a tool's
 * extra output) go too. Undefined when nothing changes.
 */
function compactMessage(
  content: readonly ContentBlock[],
  oldCount: number,
  opts: MicrocompactOptions,
  out: MicrocompactResult,
  ids: string[],
): ContentBlock[] | undefined {
  let ordinal = 0;
  let changed = false;
  const next = content.map((b): ContentBlock => {
    if (b.type === 'image') {
      if (oldCount === 0) return b;
      changed = true;
      out.imagesRemoved++;
      out.charsBefore += b.source.data.length;
      const text = imageNote(b);
      out.charsAfter += text.length;
      return { type: 'text', text };
    }
    if (b.type !== 'tool_result') return b;
    const old = ordinal++ < oldCount;
    const due = opts.trimFirst?.has(b.tool_use_id) === true || (old && opts.keepWhole?.has(b.tool_use_id) !== true);
    if (!due || isTrimmed(b)) return b;
    const trimmed = trimResult(b, opts.maxChars, out);
    if (trimmed === b) return b;
    changed = true;
    ids.push(b.tool_use_id);
    return trimmed;
  });
  return changed ? next : undefined;
}

function hasAny(content: readonly ContentBlock[], ids: ReadonlySet<string> | undefined): boolean {
  return ids !== undefined && ids.size > 0 && content.some((b) => b.type === 'tool_result' && ids.has(b.tool_use_id));
}

/**
 * One result cut exactly as microcompact cuts it: what replaying a cut recorded in the transcript
 * runs, so a resumed process sends the bytes the one that decided it sent (recordedCompactions.ts).
 */
export function trimToolResult(block: ToolResultBlock, maxChars: number): ToolResultBlock {
  return trimResult(block, maxChars, {
    messages: [],
    changed: [],
    trimmedToolUseIds: [],
    imagesRemoved: 0,
    charsBefore: 0,
    charsAfter: 0,
  });
}

/** A message's loose images (a tool's extra output beside its results) as the notes microcompact leaves. */
export function imagesAsNotes(content: readonly ContentBlock[]): ContentBlock[] {
  return content.map((b): ContentBlock => (b.type === 'image' ? { type: 'text', text: imageNote(b) } : b));
}

/** Characters of output a result shows, without microcompact's notes (what a recorded cut reports). */
export function outputChars(block: ToolResultBlock): number {
  if (typeof block.content === 'string') {
    const note = NOTE_PATTERN.exec(block.content);
    return note ? Math.max(0, note.index - 2) : block.content.length;
  }
  return block.content.reduce(
    (n, c) =>
      n + (c.type === 'text' && !IMAGE_NOTE_PATTERN.test(c.text) && !NOTE_PATTERN.test(c.text) ? c.text.length : 0),
    0,
  );
}

function trimResult(block: ToolResultBlock, maxChars: number, out: MicrocompactResult): ToolResultBlock {
  if (typeof block.content === 'string') {
    if (block.content.length <= maxChars) return block;
    const kept = cutText(block.content, maxChars);
    const content = `${kept}\n\n${trimNote(kept.length, block.content.length)}`;
    out.charsBefore += block.content.length;
    out.charsAfter += content.length;
    return { ...block, content };
  }
  // Notes of images removed earlier are ours, not output: they neither count nor get cut.
  const total = block.content.reduce(
    (n, c) => n + (c.type === 'text' && !IMAGE_NOTE_PATTERN.test(c.text) ? c.text.length : 0),
    0,
  );
  const images = block.content.filter((c) => c.type === 'image').length;
  if (total <= maxChars && images === 0) return block;
  const inner: TextBlock[] = [];
  let budget = maxChars;
  let shown = 0;
  for (const c of block.content) {
    if (c.type === 'image') {
      out.imagesRemoved++;
      out.charsBefore += c.source.data.length;
      const text = imageNote(c);
      out.charsAfter += text.length;
      inner.push({ type: 'text', text });
      continue;
    }
    if (IMAGE_NOTE_PATTERN.test(c.text)) {
      inner.push(c);
      continue;
    }
    out.charsBefore += c.text.length;
    if (budget <= 0) continue;
    const kept = cutText(c.text, budget);
    budget -= kept.length;
    shown += kept.length;
    // A block cut to nothing would be an empty text block, which the API rejects.
    if (kept.trim() !== '') {
      inner.push(kept === c.text ? c : { type: 'text', text: kept });
      out.charsAfter += kept.length;
    }
  }
  if (total > maxChars) {
    const note = trimNote(shown, total);
    inner.push({ type: 'text', text: note });
    out.charsAfter += note.length;
  }
  return { ...block, content: inner };
}
