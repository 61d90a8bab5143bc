// Reads transcripts (Engram's or Claude Code's) line by line while streaming. A transcript is written
// while things go wrong (crashes, full disks, two versions of a tool, hand edits), so bad lines are
// skipped and bad parts of lines dropped, each reported with its 1-based line number and the reason,
// instead of failing the whole session; a last line cut off without its newline is reported as a torn
// tail. Lines of types this code does not know are kept as OtherLine for callers that want them, and
// the normaliser ignores them.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { MAX_JSON_DEPTH } from '../thresholds';
import { isFileAttachment, isMemoryAttachment } from './attachmentTag';
import { checkContent, usageProblem } from './contentCheck';
import { valueNestsDeeper } from './jsonDepth';
import { lastMessageTime } from './lastMessageTime';
import { decodeLine, readFileLine, splitFileLines } from './lineSplitter';
import { PIN_LINE_TYPE, pinLineProblem } from './pinLines';
import type { ConversationLine, OtherLine, UserLine } from './types';

export type TranscriptLine = ConversationLine | OtherLine;

export interface CorruptLine {
  /** 1-based line number in the file. */
  line: number;
  error: string;
  /**
   * The line was read without what the API would reject (content blocks, nesting too deep): it is in
   * the lines read, unlike the other corrupt lines, which are skipped.
   */
  repaired?: true;
}

export interface TranscriptReadResult {
  lines: TranscriptLine[];
  /** Lines skipped (not JSON, not transcript lines) or repaired; a torn tail is not listed here. */
  corrupt: CorruptLine[];
  /** The file ends with a partial line (no trailing newline and not valid JSON): an interrupted write. */
  tornTail: boolean;
}

export type ParsedLine =
  | { ok: true; line: TranscriptLine; problems?: string[] }
  | { ok: false; error: string }
  | { ok: 'blank' };

const CONVERSATION_TYPES = new Set(['user', 'assistant', 'system']);

/**
 * Parses one line of text. Conversation lines get their message content checked against the API's
 * block shapes (contentCheck.ts), so later code can trust them; what was dropped is in `problems`.
 */
export function parseTranscriptLine(text: string): ParsedLine {
  if (text.trim() === '') return { ok: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: 'not a JSON object' };
  }
  const o = value as Record<string, unknown>;
  const problems: string[] = [];
  // Nesting d levels takes 2d characters, so short lines need no look; the walk is cheap anyway (objects
  // and arrays only), and only a line that does nest too deep is taken apart value by value.
  const tooDeep = text.length > 2 * MAX_JSON_DEPTH && valueNestsDeeper(o, MAX_JSON_DEPTH);
  if (tooDeep) dropDeepFields(o, problems);
  const done = (): ParsedLine => ({
    ok: true,
    line: o as unknown as TranscriptLine,
    ...(problems.length > 0 ? { problems } : {}),
  });
  if (typeof o.type !== 'string') return { ok: false, error: 'missing "type"' };
  if (o.type === PIN_LINE_TYPE) {
    const bad = pinLineProblem(o);
    return bad ? { ok: false, error: bad } : done();
  }
  if (!CONVERSATION_TYPES.has(o.type)) return done();
  if (typeof o.uuid !== 'string') return { ok: false, error: `${o.type} line without "uuid"` };
  if (o.type === 'system') return done();
  const m = o.message as Record<string, unknown> | null | undefined;
  if (!m || typeof m !== 'object' || Array.isArray(m) || (typeof m.content !== 'string' && !Array.isArray(m.content))) {
    return { ok: false, error: `${o.type} line without message content` };
  }
  if (o.type === 'assistant') {
    if (typeof m.id !== 'string') return { ok: false, error: 'assistant line without message.id' };
    if (typeof m.content === 'string') {
      m.content = [{ type: 'text', text: m.content }];
      problems.push('message.content repaired: an assistant message is a list of blocks, read as one text block');
    }
    if (m.usage !== undefined && m.usage !== null) {
      const bad = usageProblem(m.usage);
      if (bad) {
        delete m.usage;
        problems.push(`message.usage dropped: ${bad}`);
      }
    }
  }
  if (Array.isArray(m.content)) {
    const checked = checkContent(
      o.type as 'user' | 'assistant',
      m.content,
      tooDeep ? { maxDepth: MAX_JSON_DEPTH } : {},
    );
    m.content = checked.content;
    problems.push(...checked.problems);
  }
  return done();
}

/** Top-level and message fields that nest too deep go (content blocks are judged one by one later). */
function dropDeepFields(o: Record<string, unknown>, problems: string[]): void {
  const drop = (holder: Record<string, unknown>, key: string, name: string): void => {
    if (!valueNestsDeeper(holder[key], MAX_JSON_DEPTH)) return;
    delete holder[key];
    problems.push(`${name} dropped: nests deeper than ${MAX_JSON_DEPTH} levels`);
  };
  const m = o.message;
  const message = m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : undefined;
  for (const key of Object.keys(o)) if (key !== 'message' || !message) drop(o, key, `"${key}"`);
  if (message)
    for (const key of Object.keys(message))
      if (key !== 'content' || !Array.isArray(message.content)) drop(message, key, `message.${key}`);
}

/**
 * A line that does not parse may be a torn line with the next append glued on (what older versions
 * wrote after a crash): the glued line starts with one of the keys every line starts with, unescaped.
 */
function parseGluedLine(text: string): ParsedLine | undefined {
  for (const start of ['{"parentUuid":', '{"type":']) {
    for (let at = text.indexOf(start, 1); at !== -1; at = text.indexOf(start, at + 1)) {
      const parsed = parseTranscriptLine(text.slice(at));
      if (parsed.ok === true) return parsed;
    }
  }
  return undefined;
}

type LineSink = {
  line: (line: TranscriptLine, lineNo: number) => boolean | void;
  corrupt: (c: CorruptLine) => void;
  torn: () => void;
};

/** The reading rules for one line, shared by the streaming reader and parseTranscriptText. */
function readLine(text: string, lineNo: number, terminated: boolean, sink: LineSink): boolean | void {
  const parsed = parseTranscriptLine(text);
  if (parsed.ok === 'blank') return;
  if (parsed.ok === true) {
    if (parsed.problems) sink.corrupt({ line: lineNo, error: parsed.problems.join('; '), repaired: true });
    return sink.line(parsed.line, lineNo);
  }
  if (!terminated) return sink.torn();
  const glued = parseGluedLine(text);
  if (!glued || glued.ok !== true) return sink.corrupt({ line: lineNo, error: parsed.error });
  const more = glued.problems ? `; ${glued.problems.join('; ')}` : '';
  sink.corrupt({
    line: lineNo,
    error: `an interrupted write left a partial line (lost) with the next line glued to it, which is read${more}`,
    repaired: true,
  });
  return sink.line(glued.line, lineNo);
}

/** Where a line sits in its file, in bytes (newline excluded), to read it again (readLineAt). */
export interface LinePlace {
  offset: number;
  length: number;
  lineNo: number;
}

/**
 * Streams a transcript, calling `visit` for each good line. Memory stays bounded by the longest line
 * (plus what the visitor keeps). Return false from `visit` to stop early.
 */
export async function forEachTranscriptLine(
  file: string,
  visit: (line: TranscriptLine, lineNo: number, place: LinePlace) => boolean | void,
): Promise<{ corrupt: CorruptLine[]; tornTail: boolean; lineCount: number; bytes: number }> {
  const corrupt: CorruptLine[] = [];
  let tornTail = false;
  let place: LinePlace = { offset: 0, length: 0, lineNo: 0 };
  const sink: LineSink = {
    line: (line, lineNo) => visit(line, lineNo, place),
    corrupt: (c) => void corrupt.push(c),
    torn: () => void (tornTail = true),
  };
  const stats = await splitFileLines(file, (buf, start, end, lineNo, terminated, offset) => {
    place = { offset, length: end - start, lineNo };
    return readLine(decodeLine(buf, start, end, lineNo), lineNo, terminated, sink);
  });
  return { corrupt, tornTail, lineCount: stats.lines, bytes: stats.bytes };
}

/**
 * A line forEachTranscriptLine read, read again from the file (open as `fd`) and parsed by the same
 * rules, so it is the same line (undefined when the file no longer holds a readable line there).
 */
export function readLineAt(fd: number, place: LinePlace): TranscriptLine | undefined {
  const buf = readFileLine(fd, place.offset, place.length);
  let line: TranscriptLine | undefined;
  const sink: LineSink = { line: (l) => void (line = l), corrupt: () => undefined, torn: () => undefined };
  readLine(decodeLine(buf, 0, buf.length, place.lineNo), place.lineNo, true, sink);
  return line;
}

export async function readTranscript(file: string): Promise<TranscriptReadResult> {
  const lines: TranscriptLine[] = [];
  const { corrupt, tornTail } = await forEachTranscriptLine(file, (line) => {
    lines.push(line);
  });
  return { lines, corrupt, tornTail };
}

/** The same rules for text already in memory (tests, pasted transcripts). */
export function parseTranscriptText(text: string): TranscriptReadResult {
  const lines: TranscriptLine[] = [];
  const corrupt: CorruptLine[] = [];
  let tornTail = false;
  const parts = text.split('\n');
  const terminated = parts[parts.length - 1] === '';
  if (terminated) parts.pop();
  const sink: LineSink = {
    line: (l) => void lines.push(l),
    corrupt: (c) => void corrupt.push(c),
    torn: () => void (tornTail = true),
  };
  parts.forEach((raw, i) => {
    readLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw, i + 1, terminated || i < parts.length - 1, sink);
  });
  return { lines, corrupt, tornTail };
}

/** A line a command skipped or repaired, or the torn tail, as every command reports it. */
export interface TranscriptProblem {
  file: string;
  /** 1-based. */
  line: number;
  /** skipped: not read at all; repaired: read without what the API would reject. */
  action: 'skipped' | 'repaired';
  reason: string;
}

export function transcriptProblems(
  file: string,
  read: { corrupt: readonly CorruptLine[]; tornTail: boolean; lineCount?: number },
): TranscriptProblem[] {
  const out: TranscriptProblem[] = read.corrupt.map((c) => ({
    file,
    line: c.line,
    action: c.repaired ? 'repaired' : 'skipped',
    reason: c.error,
  }));
  if (read.tornTail) {
    const line = read.lineCount ?? Math.max(0, ...read.corrupt.map((c) => c.line)) + 1;
    out.push({
      file,
      line,
      action: 'skipped',
      reason: 'the last line is cut off (an interrupted write); the next append starts on a new line after it',
    });
  }
  return out;
}

/** `FILE:LINE: skipped: reason`, the way compilers point at a line. */
export function formatProblem(p: TranscriptProblem): string {
  return `${p.file}:${p.line}: ${p.action}: ${p.reason}`;
}

export interface SessionSummary {
  sessionId: string;
  file: string;
  mtime: Date;
  /** When its last message was written (undefined when the file's end holds none): what "last used" means. */
  lastMessageAt: Date | undefined;
  /** The first thing the user typed (not meta lines, tool results or compact summaries). */
  firstPrompt: string | undefined;
  /** Lines in the file, blank and corrupt ones included. */
  lineCount: number;
}

/** Sessions of one project folder (`projects/<key>/`), newest first. Unreadable and empty files are skipped. */
export async function listSessions(projectDir: string): Promise<SessionSummary[]> {
  let entries: string[];
  try {
    entries = await fsp.readdir(projectDir);
  } catch {
    return [];
  }
  const sessions: SessionSummary[] = [];
  for (const name of entries) {
    if (!name.endsWith('.jsonl')) continue;
    const file = path.join(projectDir, name);
    try {
      const st = await fsp.stat(file);
      // An empty file is a run that stopped before its first line: nothing to offer.
      if (!st.isFile() || st.size === 0) continue;
      const { firstPrompt, lineCount } = await scanSession(file);
      sessions.push({
        sessionId: name.slice(0, -'.jsonl'.length),
        file,
        mtime: st.mtime,
        lastMessageAt: await lastMessageTime(file),
        firstPrompt,
        lineCount,
      });
    } catch {
      // removed or unreadable while listing: not a session we can offer
    }
  }
  const lastUsed = (s: SessionSummary) => (s.lastMessageAt ?? s.mtime).getTime();
  return sessions.sort((a, b) => lastUsed(b) - lastUsed(a));
}

/** Parses lines only until the first prompt; after that it just counts newlines. */
async function scanSession(file: string): Promise<{ firstPrompt: string | undefined; lineCount: number }> {
  let firstPrompt: string | undefined;
  const stats = await splitFileLines(file, (buf, start, end, lineNo) => {
    if (firstPrompt !== undefined) return;
    const parsed = parseTranscriptLine(decodeLine(buf, start, end, lineNo));
    if (parsed.ok === true && parsed.line.type === 'user') firstPrompt = promptText(parsed.line as UserLine);
  });
  return { firstPrompt, lineCount: stats.lines };
}

/** The text a person typed, or undefined for lines that are not a typed prompt. */
export function promptText(line: UserLine): string | undefined {
  if (line.isMeta || line.isCompactSummary || line.isSidechain) return undefined;
  const c = line.message.content;
  const text =
    typeof c === 'string'
      ? c
      : c.some((b) => b.type === 'tool_result')
        ? undefined
        : // Blocks the engine attached to the prompt (recalled memories, @ files) are not what the person typed.
          c
            .filter(
              (b) =>
                b.type === 'text' &&
                !isMemoryAttachment((b as { text: string }).text) &&
                !isFileAttachment((b as { text: string }).text),
            )
            .map((b) => (b as { text: string }).text)
            .join('\n');
  if (!text || text.trim() === '') return undefined;
  // Local command echoes (`/compact` and its output) are bookkeeping, not a prompt.
  if (/^\s*<(local-command-|command-name>)/.test(text)) return undefined;
  return text;
}
