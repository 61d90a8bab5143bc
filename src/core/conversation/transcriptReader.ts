// Reads transcripts (Engram's or Claude Code's) line by line while streaming. A transcript is written
// while things go wrong (crashes, full disks, two versions of a tool), so bad lines are skipped and
// reported with their 1-based line numbers instead of failing the whole session; a last line cut off
// without its newline is reported as a torn tail. Lines of types this code does not know are kept as
// OtherLine for callers that want them, and the normaliser ignores them.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { isMemoryAttachment } from './attachmentTag';
import { decodeLine, splitFileLines } from './lineSplitter';
import type { ConversationLine, OtherLine, UserLine } from './types';

export type TranscriptLine = ConversationLine | OtherLine;

export interface CorruptLine {
  /** 1-based line number in the file. */
  line: number;
  error: string;
}

export interface TranscriptReadResult {
  lines: TranscriptLine[];
  /** Lines that are not JSON or not transcript lines; a torn tail is not listed here. */
  corrupt: CorruptLine[];
  /** The file ends with a partial line (no trailing newline and not valid JSON): an interrupted write. */
  tornTail: boolean;
}

export type ParsedLine = { ok: true; line: TranscriptLine } | { ok: false; error: string } | { ok: 'blank' };

const CONVERSATION_TYPES = new Set(['user', 'assistant', 'system']);

/** Parses one line of text; conversation lines get a light shape check so later code can trust them. */
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
  if (typeof o.type !== 'string') return { ok: false, error: 'missing "type"' };
  if (!CONVERSATION_TYPES.has(o.type)) return { ok: true, line: o as OtherLine };
  if (typeof o.uuid !== 'string') return { ok: false, error: `${o.type} line without "uuid"` };
  if (o.type !== 'system') {
    const m = o.message as Record<string, unknown> | null | undefined;
    if (!m || typeof m !== 'object' || (typeof m.content !== 'string' && !Array.isArray(m.content))) {
      return { ok: false, error: `${o.type} line without message content` };
    }
    if (o.type === 'assistant' && typeof m.id !== 'string') return { ok: false, error: 'assistant line without message.id' };
  }
  return { ok: true, line: o as unknown as ConversationLine };
}

/**
 * Streams a transcript, calling `visit` for each good line. Memory stays bounded by the longest line
 * (plus what the visitor keeps). Return false from `visit` to stop early.
 */
export async function forEachTranscriptLine(
  file: string,
  visit: (line: TranscriptLine, lineNo: number) => boolean | void,
): Promise<{ corrupt: CorruptLine[]; tornTail: boolean; lineCount: number; bytes: number }> {
  const corrupt: CorruptLine[] = [];
  let tornTail = false;
  const stats = await splitFileLines(file, (buf, start, end, lineNo, terminated) => {
    const parsed = parseTranscriptLine(decodeLine(buf, start, end, lineNo));
    if (parsed.ok === 'blank') return;
    if (parsed.ok === true) return visit(parsed.line, lineNo);
    if (!terminated) tornTail = true;
    else corrupt.push({ line: lineNo, error: parsed.error });
  });
  return { corrupt, tornTail, lineCount: stats.lines, bytes: stats.bytes };
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
  parts.forEach((raw, i) => {
    const parsed = parseTranscriptLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (parsed.ok === 'blank') return;
    if (parsed.ok === true) lines.push(parsed.line);
    else if (!terminated && i === parts.length - 1) tornTail = true;
    else corrupt.push({ line: i + 1, error: parsed.error });
  });
  return { lines, corrupt, tornTail };
}

export interface SessionSummary {
  sessionId: string;
  file: string;
  mtime: Date;
  /** The first thing the user typed (not meta lines, tool results or compact summaries). */
  firstPrompt: string | undefined;
  /** Lines in the file, blank and corrupt ones included. */
  lineCount: number;
}

/** Sessions of one project folder (`projects/<key>/`), newest first. Unreadable files are skipped. */
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
      if (!st.isFile()) continue;
      const { firstPrompt, lineCount } = await scanSession(file);
      sessions.push({ sessionId: name.slice(0, -'.jsonl'.length), file, mtime: st.mtime, firstPrompt, lineCount });
    } catch {
      // removed or unreadable while listing: not a session we can offer
    }
  }
  return sessions.sort((a, b) => b.mtime.getTime() - a.mtime.getTime());
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
  const text = typeof c === 'string'
    ? c
    : c.some((b) => b.type === 'tool_result')
      ? undefined
      // Blocks the engine attached to the prompt (recalled memories) are not what the person typed.
      : c.filter((b) => b.type === 'text' && !isMemoryAttachment((b as { text: string }).text))
        .map((b) => (b as { text: string }).text).join('\n');
  if (!text || text.trim() === '') return undefined;
  // Local command echoes (`/compact` and its output) are bookkeeping, not a prompt.
  if (/^\s*<(local-command-|command-name>)/.test(text)) return undefined;
  return text;
}
