// What a compaction lost, found without a model call: the facts of the messages it replaced (file paths
// read or edited, commands run, error lines, the person's own messages) that the messages standing in
// their place (the summary or notes with the files re-attached, and the messages kept verbatim) no
// longer carry. A fact is carried when its text, with runs of whitespace made one space, appears in the
// replacement's text (same normalisation). A path also counts as carried when its last two segments
// (`src/app.ts` for `/home/me/project/src/app.ts`) appear on a segment boundary: summaries and notes
// usually name files relative to the project. One linear pass over each side, so the preview can
// recompute it as a person edits the summary.
import { isFileAttachment, isMemoryAttachment } from '../conversation/attachmentTag';
import type { ApiMessage, ContentBlock, ToolResultBlock } from '../conversation/types';
import { isMcpToolName } from '../mcp/toolNames';
import type { CompactionResult, DroppedFacts } from './types';

export type { DroppedFacts };

export type DroppedKind = keyof DroppedFacts;
export const DROPPED_KINDS: readonly DroppedKind[] = ['paths', 'commands', 'errors', 'userMessages'];

/** Input fields naming a file or folder, in Engram's tools and Claude Code's. */
const PATH_FIELDS = ['file_path', 'notebook_path', 'path'] as const;
const PATH_TOOLS = new Set([
  'Read',
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'NotebookRead',
  'Glob',
  'Grep',
  'LS',
]);
const COMMAND_TOOLS = new Set(['Bash', 'PowerShell']);
/** Longest error line kept: the first line of an error says what went wrong. */
const ERROR_CHARS = 200;

/** Runs of whitespace made one space, ends trimmed: how both sides are compared. */
export function normaliseFact(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function emptyDropped(): DroppedFacts {
  return { paths: [], commands: [], errors: [], userMessages: [] };
}

export function droppedCount(d: DroppedFacts): number {
  return d.paths.length + d.commands.length + d.errors.length + d.userMessages.length;
}

/** The facts of these messages, each list deduplicated and in order of first appearance. */
export function factsOf(messages: readonly ApiMessage[]): DroppedFacts {
  const out = new FactLists();
  for (const m of messages) {
    if (typeof m.content === 'string') {
      if (m.role === 'user') out.add('userMessages', userText(m.content));
      continue;
    }
    if (m.role === 'user' && !m.content.some((b) => b.type === 'tool_result')) {
      // Block by block: a summary merged into the first kept message is a block of its own.
      const typed = m.content.flatMap((b) => (b.type === 'text' && !isAttachment(b.text) ? [userText(b.text)] : []));
      out.add('userMessages', typed.filter((t) => t !== undefined).join(' '));
    }
    for (const b of m.content) blockFacts(b, out);
  }
  return out.lists;
}

/**
 * Each fact of `replaced` that `replacement` does not carry. The replacement's text is built only when
 * there is a fact to look for.
 */
export function droppedFacts(replaced: readonly ApiMessage[], replacement: readonly ApiMessage[]): DroppedFacts {
  const facts = factsOf(replaced);
  if (droppedCount(facts) === 0) return facts;
  return notCarried(facts, replacementText(replacement));
}

/** The facts that `text` (a replacement's text, as replacementText gives it) does not carry. */
export function notCarried(facts: DroppedFacts, text: string): DroppedFacts {
  const carried = new CarriedText(text);
  return {
    paths: facts.paths.filter((p) => !carried.path(p)),
    commands: facts.commands.filter((c) => !carried.whole(c)),
    errors: facts.errors.filter((e) => !carried.whole(e)),
    userMessages: facts.userMessages.filter((u) => !carried.whole(u)),
  };
}

/**
 * A replacement's text with the set of its words. A fact found as whole words has each of its words as
 * a whole word of the text too, so a fact with a word the text lacks is turned down without a scan: a
 * compaction of thousands of messages checks thousands of facts against a text of 100K characters or
 * more, and a scan for each was most of its time.
 */
class CarriedText {
  private words: Set<string> | undefined;
  /**
   * Where the last fact was found. Facts come in order of first appearance and the replacement keeps
   * most messages in their order, so the next one is usually found after it: looking there first
   * spares a scan from the start of a text of many megabytes (a whole conversation, after a microcompact).
   */
  private cursor = 0;

  constructor(private readonly text: string) {}

  whole(fact: string): boolean {
    if (!this.hasWords(wordsOf(fact))) return false;
    const at = wholeAt(this.text, fact, this.cursor);
    if (at < 0) return false;
    this.cursor = at;
    return true;
  }

  path(p: string): boolean {
    if (this.whole(p)) return true;
    const tail = pathTail(p);
    // The tail's outer words may run on into letters pathCarried allows beside it: only its inner ones count.
    return tail !== undefined && this.hasWords(wordsOf(tail).slice(1, -1)) && tailCarried(tail, this.text);
  }

  private hasWords(words: readonly string[]): boolean {
    if (words.length === 0) return true;
    this.words ??= wordSet(this.text);
    const set = this.words;
    return words.every((w) => set.has(w));
  }
}

const WORD_RUNS = /[\p{L}\p{N}_]+/gu;

function wordsOf(text: string): string[] {
  return text.match(WORD_RUNS) ?? [];
}

/** The distinct words of `text`, without a list of every word first (millions, for a whole conversation). */
function wordSet(text: string): Set<string> {
  const set = new Set<string>();
  const runs = new RegExp(WORD_RUNS.source, WORD_RUNS.flags);
  for (let m = runs.exec(text); m !== null; m = runs.exec(text)) set.add(m[0]);
  return set;
}

/** Every text a person or the model reads in these messages, normalised, one message part a line. */
export function replacementText(messages: readonly ApiMessage[]): string {
  const parts: string[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string') parts.push(m.content);
    else for (const b of m.content) blockTexts(b, parts);
  }
  // A reminder may open in one part and close in a later one: then the text is cleaned whole.
  if (parts.some((p) => p.includes('<system-reminder>'))) return normaliseFact(withoutReminders(parts.join('\n')));
  return normaliseParts(parts);
}

/** Characters normalised at once: one replace over a whole conversation's text held hundreds of MB. */
const NORMALISE_CHUNK = 1 << 20;

/**
 * normaliseFact(parts.join('\n')) a group of parts at a time, never holding the whole joined text
 * beside its normalised copy. Whitespace where groups meet (the '\n' between them and the runs at their
 * ends) becomes the one space the whole replace would have made.
 */
function normaliseParts(parts: readonly string[]): string {
  const out: string[] = [];
  let space = false;
  const emit = (group: string[]): void => {
    let n = group.join('\n').replace(/\s+/g, ' ');
    if (n.startsWith(' ')) [space, n] = [true, n.slice(1)];
    const trailing = n.endsWith(' ');
    if (trailing) n = n.slice(0, -1);
    if (n !== '') {
      if (space && out.length > 0) out.push(' ');
      out.push(n);
      space = false;
    }
    // The '\n' before the next group is whitespace too.
    space = true;
  };
  let group: string[] = [];
  let size = 0;
  for (const part of parts) {
    if (size > 0 && size + part.length > NORMALISE_CHUNK) {
      emit(group);
      group = [];
      size = 0;
    }
    group.push(part);
    size += part.length + 1;
  }
  emit(group);
  return out.join('');
}

const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

function withoutReminders(text: string): string {
  return text.includes('<system-reminder>') ? text.replace(REMINDER, ' ') : text;
}

/** A stage's result with what it dropped (the replaced messages against the new conversation). */
export function withDropped(result: CompactionResult): CompactionResult {
  const replaced = result.replaced.map((e) => e.message);
  return {
    ...result,
    dropped: droppedFacts(
      replaced,
      result.entries.map((e) => e.message),
    ),
  };
}

/**
 * Whether `fact` appears in `text` not as a piece of a longer word: `ls` is not carried by "tools".
 * The edges are checked only where the fact itself starts or ends with a letter or digit.
 */
export function containsWhole(text: string, fact: string): boolean {
  return wholeAt(text, fact, 0) >= 0;
}

/**
 * Where `fact` appears whole in `text` (-1 when nowhere): occurrences from `from` on are tried first,
 * then those before it, so the answer is the same whatever `from` is; only the time differs.
 */
function wholeAt(text: string, fact: string, from: number): number {
  const wordStart = WORD.test(fact[0] ?? '');
  const wordEnd = WORD.test(fact[fact.length - 1] ?? '');
  const whole = (at: number): boolean =>
    !(wordStart && at > 0 && WORD.test(text[at - 1])) && !(wordEnd && WORD.test(text[at + fact.length] ?? ''));
  for (let at = text.indexOf(fact, from); at >= 0; at = text.indexOf(fact, at + 1)) if (whole(at)) return at;
  for (let at = text.indexOf(fact); at >= 0 && at < from; at = text.indexOf(fact, at + 1)) if (whole(at)) return at;
  return -1;
}

const WORD = /[\p{L}\p{N}_]/u;

export function pathCarried(path: string, text: string): boolean {
  if (containsWhole(text, path)) return true;
  const tail = pathTail(path);
  return tail !== undefined && tailCarried(tail, text);
}

/** The last two segments of a path of three or more (`src/app.ts`), which summaries name files by. */
function pathTail(path: string): string | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  return segments.length < 3 ? undefined : segments.slice(-2).join('/');
}

function tailCarried(tail: string, text: string): boolean {
  for (let at = text.indexOf(tail); at >= 0; at = text.indexOf(tail, at + 1)) {
    const before = at === 0 ? ' ' : text[at - 1];
    const after = text[at + tail.length] ?? ' ';
    if (!/[\w.-]/.test(before) && !/[\w/-]/.test(after)) return true;
  }
  return false;
}

class FactLists {
  readonly lists = emptyDropped();
  private readonly seen = new Set<string>();

  add(kind: DroppedKind, text: string | undefined): void {
    if (!text) return;
    const key = `${kind}\u0000${text}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.lists[kind].push(text);
  }
}

function blockFacts(b: ContentBlock, out: FactLists): void {
  if (b.type === 'tool_use') {
    // An MCP server's tool names its files with the same fields (server-filesystem's `path`).
    if (PATH_TOOLS.has(b.name) || isMcpToolName(b.name))
      for (const field of PATH_FIELDS) {
        const v = b.input[field];
        if (typeof v === 'string') out.add('paths', normaliseFact(v));
      }
    const command = b.input.command;
    if (COMMAND_TOOLS.has(b.name) && typeof command === 'string') out.add('commands', normaliseFact(command));
  } else if (b.type === 'tool_result' && b.is_error) {
    out.add('errors', errorLine(resultText(b)));
  }
}

/** The first non-empty line of an error, without Claude Code's <tool_use_error> wrapper, cut short. */
export function errorLine(text: string): string | undefined {
  const bare = text.replace(/<\/?tool_use_error>/g, '');
  const line = bare.split('\n').find((l) => l.trim() !== '');
  if (!line) return undefined;
  const one = normaliseFact(line);
  return one.length > ERROR_CHARS ? one.slice(0, ERROR_CHARS).trimEnd() : one;
}

/** A typed message without the engine's reminders; undefined for bookkeeping lines and summaries. */
function userText(raw: string): string | undefined {
  const text = normaliseFact(withoutReminders(raw));
  if (text === '') return undefined;
  if (/^<(local-command-|command-name>|command-message>)/.test(text)) return undefined;
  if (text.startsWith('This session continues a conversation') || text.startsWith('This session is being continued'))
    return undefined;
  if (/^\[\d+ earlier messages? (was|were) removed/.test(text)) return undefined;
  return text;
}

function isAttachment(text: string): boolean {
  return isMemoryAttachment(text) || isFileAttachment(text) || text.trimStart().startsWith('<system-reminder>');
}

function resultText(b: ToolResultBlock): string {
  if (typeof b.content === 'string') return b.content;
  return b.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

function blockTexts(b: ContentBlock, parts: string[]): void {
  switch (b.type) {
    case 'text':
      parts.push(b.text);
      return;
    case 'thinking':
      parts.push(b.thinking);
      return;
    case 'tool_use':
      stringLeaves(b.input, parts);
      return;
    case 'tool_result':
      parts.push(resultText(b));
      return;
    case 'redacted_thinking':
    case 'image':
      return;
  }
}

function stringLeaves(value: unknown, parts: string[]): void {
  if (typeof value === 'string') parts.push(value);
  else if (Array.isArray(value)) for (const v of value) stringLeaves(v, parts);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringLeaves(v, parts);
}
