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
//
// A file read again after it changed is mostly repeated content too: a Read with the same input as an
// earlier one whose output is still whole goes as a *change note*, a unified diff of the file's lines
// against that copy, when the diff is much shorter than the file. The copy it names then stays whole
// (supersededResults.ts), since copy and diff together are the file as it is now.
import { createHash } from 'node:crypto';
import { structuredPatch } from 'diff';
import { REPEAT_MIN_CHARS } from '../thresholds';
import { isTrimmedText } from './resultNotes';
import type { ApiMessage, ToolResultBlock, ToolUseBlock } from './types';

/** How every repeat note starts (the bench and the inspector recognise notes by it). */
export const REPEAT_NOTE_PREFIX = '[Same output as the earlier ';
/** How every change note starts. */
export const CHANGE_NOTE_PREFIX = '[Changed since the earlier ';
/** A change note is sent only when it is at most this share of the full output. */
const CHANGE_NOTE_MAX_SHARE = 0.4;
/** Tools whose repeated call may be answered by a change note: their output is a file's numbered lines. */
const DIFFABLE_TOOLS = new Set(['Read']);

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

export function repeatNote(toolUseId: string, label: CallLabel, chars: number, how = ''): string {
  return (
    `${REPEAT_NOTE_PREFIX}${callWords(label)}, id ${toolUseId}${how}: ` +
    `${chars.toLocaleString('en-US')} characters, unchanged, so not ` +
    'repeated here. If that output is no longer shown in full above, run the tool again.]'
  );
}

function callWords(label: CallLabel): string {
  return label.summary && label.summary !== label.name ? `${label.name} call (${label.summary})` : `${label.name} call`;
}

/** The id of the call a note names. */
export function repeatedCallOf(note: string): string | undefined {
  return isNoteText(note) ? / id ([^:\s]+)[:;]/.exec(note)?.[1] : undefined;
}

/** A note of either kind: a repeat (same output) or a change (a diff against an earlier copy). */
export function isRepeatNote(block: ToolResultBlock): boolean {
  return typeof block.content === 'string' && isNoteText(block.content);
}

/** A change note: the copy it names is part of what the model has of that file, stale or not. */
export function isChangeNote(block: ToolResultBlock): boolean {
  return typeof block.content === 'string' && block.content.startsWith(CHANGE_NOTE_PREFIX);
}

function isNoteText(text: string): boolean {
  return text.startsWith(REPEAT_NOTE_PREFIX) || text.startsWith(CHANGE_NOTE_PREFIX);
}

/** The mark a transcript line carries, when it is a well-formed one. */
export function readRepeatMark(value: unknown): RepeatMark | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { of, note } = value as { of?: unknown; note?: unknown };
  if (typeof of !== 'string' || typeof note !== 'string' || !isNoteText(note)) return undefined;
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
  const digest = text !== undefined && text.length >= REPEAT_MIN_CHARS ? sha256(text) : undefined;
  digests.set(block, digest ?? null);
  return digest;
}

/**
 * The whole outputs a conversation carries, by content, with the call behind each. Built before a tool
 * round from the messages the next request will start with.
 */
export class RepeatIndex {
  private readonly byDigest = new Map<string, { id: string; call: ToolUseBlock | undefined }>();
  /** The newest whole copy of each diffable call (tool and input), for change notes. */
  private readonly byInput = new Map<string, { id: string; call: ToolUseBlock; text: string }>();
  /** Whole file copies by their lines without numbers: a `cat` of a file already Read says nothing new. */
  private readonly byLines = new Map<string, { id: string; call: ToolUseBlock }>();

  constructor(messages: readonly ApiMessage[]) {
    const calls = new Map<string, ToolUseBlock>();
    for (const m of messages) {
      if (typeof m.content === 'string') continue;
      for (const b of m.content) {
        if (b.type === 'tool_use') calls.set(b.id, b);
        if (b.type !== 'tool_result') continue;
        const digest = digestOf(b);
        const call = calls.get(b.tool_use_id);
        // The first whole copy is the one a note names: it is the oldest, so the least likely to be
        // superseded, and naming always the same call keeps the notes of one output alike.
        if (digest && !this.byDigest.has(digest)) this.byDigest.set(digest, { id: b.tool_use_id, call });
        const key = call && inputKey(call);
        const text = key && digest ? outputText(b) : undefined;
        // Only a whole copy can be the base of a change note: never a note, never a trimmed copy.
        if (key && text !== undefined && !isNoteText(text) && !isTrimmedText(text)) {
          this.byInput.set(key, { id: b.tool_use_id, call, text });
          const lines = fileLines(text);
          const linesDigest = lines && sha256(lines.join('\n').trimEnd());
          if (linesDigest && !this.byLines.has(linesDigest)) this.byLines.set(linesDigest, { id: b.tool_use_id, call });
        }
      }
    }
  }

  /**
   * The note to send instead of `block`: a repeat note when a whole copy of the same output is in the
   * conversation, else a change note when `call` read a file whose earlier whole copy differs a little;
   * undefined when neither applies.
   */
  noteFor(
    block: ToolResultBlock,
    label: (call: ToolUseBlock | undefined) => CallLabel,
    call?: ToolUseBlock,
  ): RepeatMark | undefined {
    const digest = digestOf(block);
    if (!digest) return undefined;
    const text = outputText(block) ?? '';
    const earlier = this.byDigest.get(digest);
    if (earlier && earlier.id !== block.tool_use_id) {
      return { of: earlier.id, note: repeatNote(earlier.id, label(earlier.call), text.replace(/\u0000/g, '').length) };
    }
    const sameLines = this.byLines.get(sha256(text.trimEnd()));
    if (sameLines && sameLines.id !== block.tool_use_id) {
      return {
        of: sameLines.id,
        note: repeatNote(sameLines.id, label(sameLines.call), text.length, ' (there with line numbers)'),
      };
    }
    const key = call && inputKey(call);
    const base = key ? this.byInput.get(key) : undefined;
    if (!base || base.id === block.tool_use_id) return undefined;
    const note = changeNote(base.id, label(base.call), base.text, text);
    return note !== undefined && note.length <= CHANGE_NOTE_MAX_SHARE * text.length ? { of: base.id, note } : undefined;
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

/** Same tool, same input: the same question asked again. Only for tools whose output is a file's lines. */
function inputKey(call: ToolUseBlock): string | undefined {
  return DIFFABLE_TOOLS.has(call.name) ? `${call.name}\u0000${JSON.stringify(call.input)}` : undefined;
}

/** A numbered line of Read's output ("    12\tcode"), split into its number and its text. */
const NUMBERED = /^ *(\d+)\t(.*)$/;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Read's output as the file's lines, numbers left out; undefined when it is not numbered lines. */
function fileLines(text: string): string[] | undefined {
  const lines = text.split('\n');
  return lines.some((l) => NUMBERED.test(l)) ? lines.map((l) => NUMBERED.exec(l)?.[2] ?? l) : undefined;
}

/**
 * A unified diff of the file's lines (numbers left out, so a line added near the top does not make
 * every later line differ), hunks headed with the line numbers of the earlier copy and of the file now.
 * Undefined when nothing but the numbering changed, or the output is not a file's numbered lines.
 */
export function changeNote(baseId: string, label: CallLabel, before: string, after: string): string | undefined {
  const a = fileLines(before);
  const b = fileLines(after);
  if (!a || !b) return undefined;
  const patch = structuredPatch('', '', `${a.join('\n')}\n`, `${b.join('\n')}\n`, '', '', { context: 1 });
  if (patch.hunks.length === 0) return undefined;
  const what = callWords(label);
  const hunks = patch.hunks.map((h) =>
    [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines].join('\n'),
  );
  return (
    `${CHANGE_NOTE_PREFIX}${what}, id ${baseId}; only what changed is shown, ` +
    'as a unified diff of its lines against that ' +
    'copy (line numbers: before -, now +). Every other line reads as in that copy. ' +
    'If that copy is no longer shown in full above, ' +
    `run the tool again.]\n${hunks.join('\n')}`
  );
}
