// Repeated tool output, sent once (issue #19). A tool result byte-identical to one the request still
// carries whole (a file read again unchanged, a search run twice) would be written to the prompt cache
// once more and re-read by every later request, while telling the model nothing new. Such a result goes
// to the model as a short note naming the earlier call; the transcript keeps the full output beside the
// note (`engramRepeat` on the result's line), and the chat shows the full output.
//
// The decision is taken once, when the result arrives, against the conversation as it is then, and it is
// recorded: a resumed process reads the note from the line instead of deciding again, so it sends the
// very bytes the process that decided sent, whatever happened to the earlier copy since. A trimmed copy
// never matches (its text ends with the trim note), nor does a note, so a note always points at a copy
// that was whole when the note was written. If that copy is trimmed or compacted away later, the note
// says how to get the output back: run the tool again.
import { createHash } from 'node:crypto';
import { REPEAT_MIN_CHARS } from '../thresholds';
import type { ApiMessage, ToolResultBlock, ToolUseBlock } from './types';

/** How every repeat note starts (the bench and the inspector recognise notes by it). */
export const REPEAT_NOTE_PREFIX = '[Same output as the earlier ';

/** What a transcript line records beside a result sent as a note: the earlier call and the exact note sent. */
export interface RepeatMark {
  of: string;
  note: string;
}

/** The earlier call a note names, as the model saw it. */
export interface CallLabel {
  name: string;
  /** One line: the call's summary (e.g. "Read src/app.py"). */
  summary: string;
}

export function repeatNote(toolUseId: string, label: CallLabel, chars: number): string {
  const what = label.summary && label.summary !== label.name ? `${label.name} call (${label.summary})` : `${label.name} call`;
  return `${REPEAT_NOTE_PREFIX}${what}, id ${toolUseId}: ${chars.toLocaleString('en-US')} characters, unchanged, so not repeated here. ` +
    'If that output is no longer shown in full above, run the tool again.]';
}

/** The id of the call a note names. */
export function repeatedCallOf(note: string): string | undefined {
  return note.startsWith(REPEAT_NOTE_PREFIX) ? / id ([^:\s]+):/.exec(note)?.[1] : undefined;
}

export function isRepeatNote(block: ToolResultBlock): boolean {
  return typeof block.content === 'string' && block.content.startsWith(REPEAT_NOTE_PREFIX);
}

/** The mark a transcript line carries, when it is a well-formed one. */
export function readRepeatMark(value: unknown): RepeatMark | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { of, note } = value as { of?: unknown; note?: unknown };
  if (typeof of !== 'string' || typeof note !== 'string' || !note.startsWith(REPEAT_NOTE_PREFIX)) return undefined;
  return { of, note };
}

/** Text-only output as one string (images are never matched: a note could not stand for them). */
function outputText(block: ToolResultBlock): string | undefined {
  if (typeof block.content === 'string') return block.content;
  if (block.content.some((c) => c.type !== 'text')) return undefined;
  return block.content.map((c) => (c.type === 'text' ? c.text : '')).join('\u0000');
}

const digests = new WeakMap<ToolResultBlock, string | null>();

/** A digest of the output, cached per block (the index is rebuilt every tool round). */
function digestOf(block: ToolResultBlock): string | undefined {
  const known = digests.get(block);
  if (known !== undefined) return known ?? undefined;
  const text = block.is_error ? undefined : outputText(block);
  const digest = text !== undefined && text.length >= REPEAT_MIN_CHARS ? createHash('sha256').update(text).digest('hex') : undefined;
  digests.set(block, digest ?? null);
  return digest;
}

/**
 * The whole outputs a conversation carries, by content, with the call behind each. Built before a tool
 * round from the messages the next request will start with.
 */
export class RepeatIndex {
  private readonly byDigest = new Map<string, { id: string; call: ToolUseBlock | undefined }>();

  constructor(messages: readonly ApiMessage[]) {
    const calls = new Map<string, ToolUseBlock>();
    for (const m of messages) {
      if (typeof m.content === 'string') continue;
      for (const b of m.content) {
        if (b.type === 'tool_use') calls.set(b.id, b);
        if (b.type !== 'tool_result') continue;
        const digest = digestOf(b);
        // The first whole copy is the one a note names: it is the oldest, so the least likely to be
        // superseded, and naming always the same call keeps the notes of one output alike.
        if (digest && !this.byDigest.has(digest)) this.byDigest.set(digest, { id: b.tool_use_id, call: calls.get(b.tool_use_id) });
      }
    }
  }

  /** The note to send instead of `block`, or undefined when it is not a repeat of a whole copy. */
  noteFor(block: ToolResultBlock, label: (call: ToolUseBlock | undefined) => CallLabel): RepeatMark | undefined {
    const digest = digestOf(block);
    const earlier = digest ? this.byDigest.get(digest) : undefined;
    if (!earlier || earlier.id === block.tool_use_id) return undefined;
    const text = outputText(block) ?? '';
    return { of: earlier.id, note: repeatNote(earlier.id, label(earlier.call), text.replace(/\u0000/g, '').length) };
  }

  /** Ids of the calls whose output a note stands for (a trim keeps those whole). */
  static originsIn(messages: readonly ApiMessage[]): Set<string> {
    const out = new Set<string>();
    for (const m of messages) {
      if (typeof m.content === 'string') continue;
      for (const b of m.content) {
        const id = b.type === 'tool_result' && isRepeatNote(b) ? repeatedCallOf(b.content as string) : undefined;
        if (id) out.add(id);
      }
    }
    return out;
  }
}
