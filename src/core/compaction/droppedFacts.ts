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
import { notCarried, notCarriedInGroups } from './carriedText';
import type { CompactionResult, DroppedFacts } from './types';

export { containsWhole, notCarried, pathCarried } from './carriedText';

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
  // The parts are listed again for each use rather than held: a result kept whole may be a text read
  // back from disk (heldText.ts) each time it is read.
  const parts = (): Iterable<string> => replacementParts(replacement);
  if (hasReminder(parts()) || fitsOneGroup(parts())) return notCarried(facts, replacementTextOf(parts()));
  // The whole normalised text (hundreds of MB after a microcompact of a long session) is built only for
  // facts no group of parts carries. Small groups: a text of a megabyte or more is allocated where only a
  // full garbage collection frees it.
  return notCarriedInGroups(
    facts,
    (visit) => forEachNormalisedGroup(parts(), SEARCH_CHUNK, visit),
    () => normaliseParts(parts()),
  );
}

/** Every text a person or the model reads in these messages, normalised, one message part a line. */
export function replacementText(messages: readonly ApiMessage[]): string {
  return replacementTextOf(replacementParts(messages));
}

function* replacementParts(messages: readonly ApiMessage[]): Generator<string> {
  const parts: string[] = [];
  for (const m of messages) {
    if (typeof m.content === 'string') yield m.content;
    else
      for (const b of m.content) {
        blockTexts(b, parts);
        yield* parts;
        parts.length = 0;
      }
  }
}

/** Whether the parts make one group of SEARCH_CHUNK at most: then groups would only search it twice. */
function fitsOneGroup(parts: Iterable<string>): boolean {
  let size = 0;
  for (const p of parts) if ((size += p.length + 1) > SEARCH_CHUNK) return false;
  return true;
}

/** A reminder may open in one part and close in a later one: then the text is cleaned whole. */
function hasReminder(parts: Iterable<string>): boolean {
  for (const p of parts) if (p.includes('<system-reminder>')) return true;
  return false;
}

function replacementTextOf(parts: Iterable<string>): string {
  const all = [...parts];
  if (hasReminder(all)) return normaliseFact(withoutReminders(all.join('\n')));
  return normaliseParts(all);
}

/** Characters normalised at once: one replace over a whole conversation's text held hundreds of MB. */
const NORMALISE_CHUNK = 1 << 20;
/** Characters looked in at once for facts (droppedFacts). */
const SEARCH_CHUNK = 1 << 16;

/**
 * normaliseFact(parts.join('\n')) a group of parts at a time, never holding the whole joined text
 * beside its normalised copy. Whitespace where groups meet (the '\n' between them and the runs at their
 * ends) becomes the one space the whole replace would have made.
 */
function normaliseParts(parts: Iterable<string>): string {
  const out: string[] = [];
  forEachNormalisedGroup(parts, NORMALISE_CHUNK, (n) => {
    if (out.length > 0) out.push(' ');
    out.push(n);
  });
  return out.join('');
}

/**
 * normaliseFact of each group of parts (about `chunk` characters), the non-empty ones in order:
 * the whole normalised text is them joined by single spaces (whitespace where groups meet, the '\n'
 * between them included, is one run). `visit` returns false to stop.
 */
function forEachNormalisedGroup(
  parts: Iterable<string>,
  chunk: number,
  visit: (normalised: string) => boolean | void,
): void {
  let group: string[] = [];
  let size = 0;
  const emit = (): boolean => {
    const n = normaliseFact(group.join('\n'));
    group = [];
    size = 0;
    return n === '' || visit(n) !== false;
  };
  for (const part of parts) {
    if (size > 0 && size + part.length > chunk && !emit()) return;
    group.push(part);
    size += part.length + 1;
  }
  emit();
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
