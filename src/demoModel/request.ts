// The request body as the demo model sees it, read the way a model would: the environment and memory
// folder from the system prompt, the tools on offer, the user's own words of this turn, and the tool
// calls made since then with their results. Text the engine adds around the user's words (recalled
// memories, a compaction's summary or notes, a note about dropped messages) is never taken for them.
import path from 'node:path';
import { droppedNoteText, fullSummaryText } from '../core/compaction/summaryPrompt';
import { notesSummaryText } from '../core/compaction/sessionMemoryCompact';
import { isFileAttachment, isMemoryAttachment } from '../core/conversation/attachmentTag';
import { parseIndexLine, type IndexLine } from '../core/memory/autoMemory/memoryIndex';

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolStep {
  call: ToolCall;
  /** Undefined when no result came back (the turn was cut). */
  result?: { text: string; isError: boolean };
}

/** A block of a message as the API carries it. */
export type Block = Record<string, unknown> & { type?: unknown };
export interface Message {
  role: string;
  content: string | Block[];
}

export interface RecalledMemory {
  file: string;
  text: string;
}

export interface DemoRequest {
  cwd?: string;
  /** `YYYY-MM-DD` from the environment block. */
  date?: string;
  memoryDir?: string;
  /** The MEMORY.md lines the system prompt carries (as of the session's start or last compaction). */
  index: IndexLine[];
  tools: ReadonlySet<string>;
  messages: Message[];
  /** The user's words of this turn (or a forked agent's task), '' when there are none. */
  prompt: string;
  /** Index in `messages` of the message holding the prompt (-1 when none). */
  promptAt: number;
  /** The tool calls made since the prompt, one array per model response, with their results. */
  rounds: ToolStep[][];
  /** Memories recall attached to the prompt's message. */
  recalled: RecalledMemory[];
}

export function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

const textOf = (b: Block): string | undefined => (b.type === 'text' && typeof b.text === 'string' ? b.text : undefined);

// Derived from the engine's own wording, so a change there cannot make the demo read a summary as a request.
const COMPACTED_OPENING = [true, false]
  .flatMap((manual) => [fullSummaryText('x', { kept: 'nothing', manual }), notesSummaryText('x', undefined, manual)])
  .reduce(commonPrefix);
const DROPPED_NOTE = droppedNoteText(7).split('7')[1].slice(0, 24);

/** Text the engine wrote into a user message, not the user. */
export function isEngineText(text: string): boolean {
  const t = text.trimStart();
  return (
    isMemoryAttachment(t) ||
    isFileAttachment(t) ||
    t.startsWith('<system-reminder') ||
    t.startsWith(COMPACTED_OPENING) ||
    (t.startsWith('[') && t.includes(DROPPED_NOTE))
  );
}

/** The user's own text blocks of a user message (tool results and engine text left out). */
export function userWords(m: Message): string[] {
  if (m.role !== 'user') return [];
  return blocksOf(m.content)
    .map(textOf)
    .filter((t): t is string => t !== undefined && t.trim() !== '' && !isEngineText(t));
}

export function readRequest(body: Record<string, unknown>, forkMarkers: readonly string[]): DemoRequest {
  const system = systemText(body.system);
  const line = (re: RegExp): string | undefined => re.exec(system)?.[1]?.trim();
  const messages = (Array.isArray(body.messages) ? body.messages : []) as Message[];
  const tools = new Set(
    (Array.isArray(body.tools) ? body.tools : []).map((t) => String((t as { name?: unknown }).name)),
  );
  const { prompt, promptAt } = findPrompt(messages, forkMarkers);
  return {
    cwd: line(/^Working directory: (.+)$/m),
    date: line(/^Date: (\d{4}-\d\d-\d\d)$/m),
    memoryDir: line(/^Memory folder: (.+)$/m),
    index: indexLines(system),
    tools,
    messages,
    prompt,
    promptAt,
    rounds: promptAt < 0 ? [] : roundsAfter(messages, promptAt),
    recalled: promptAt < 0 ? [] : recalledIn(messages[promptAt]),
  };
}

function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  return blocksOf(system)
    .map(textOf)
    .filter((t) => t !== undefined)
    .join('\n\n');
}

/** The private index lines: from the "Index (MEMORY.md)" line to the next section. */
function indexLines(system: string): IndexLine[] {
  const at = system.search(/^Index \(MEMORY\.md\)[^\n]*\n/m);
  if (at < 0) return [];
  const rest = system.slice(at).split('\n').slice(1);
  const out: IndexLine[] = [];
  for (const l of rest) {
    if (/^# /.test(l)) break;
    const entry = parseIndexLine(l);
    if (entry) out.push(entry);
  }
  return out;
}

/**
 * The newest user message with words in it: a forked agent's task (its marker block) or the user's
 * own text. Results-only messages are continuations of the turn, so the search goes past them.
 */
function findPrompt(messages: readonly Message[], markers: readonly string[]): { prompt: string; promptAt: number } {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    const texts = blocksOf(m.content)
      .map(textOf)
      .filter((t): t is string => t !== undefined);
    const task = texts.find((t) => markers.some((k) => t.trimStart().startsWith(k)));
    if (task !== undefined) return { prompt: task.trim(), promptAt: i };
    const own = userWords(m);
    // The prompt comes first and recall's attachments after it; a summary may come before it.
    if (own.length > 0) return { prompt: own[own.length - 1].trim(), promptAt: i };
  }
  return { prompt: '', promptAt: -1 };
}

/** Every tool call in `messages` from `start` on, grouped by response, with its result. */
export function roundsAfter(messages: readonly Message[], start: number): ToolStep[][] {
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const m of messages.slice(start)) {
    if (m.role !== 'user') continue;
    for (const b of blocksOf(m.content)) {
      if (b.type === 'tool_result' && typeof b.tool_use_id === 'string')
        results.set(b.tool_use_id, { text: resultText(b.content), isError: b.is_error === true });
    }
  }
  const rounds: ToolStep[][] = [];
  for (const m of messages.slice(start)) {
    if (m.role !== 'assistant') continue;
    const calls = blocksOf(m.content).filter((b) => b.type === 'tool_use');
    if (calls.length === 0) continue;
    rounds.push(
      calls.map((b) => {
        const call: ToolCall = {
          id: String(b.id),
          name: String(b.name),
          input: (b.input ?? {}) as Record<string, unknown>,
        };
        const result = results.get(call.id);
        return result ? { call, result } : { call };
      }),
    );
  }
  return rounds;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return blocksOf(content)
    .map(textOf)
    .filter((t) => t !== undefined)
    .join('\n');
}

const ATTACHED = /^<engram-memory file="([^"]*)"[^>]*>\n[^\n]*\n([\s\S]*?)\n<\/engram-memory>\s*$/;

function recalledIn(m: Message): RecalledMemory[] {
  const out: RecalledMemory[] = [];
  for (const b of blocksOf(m.content)) {
    const t = textOf(b);
    const hit = t !== undefined && isMemoryAttachment(t) ? ATTACHED.exec(t) : null;
    if (hit) out.push({ file: hit[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&'), text: hit[2] });
  }
  return out;
}

/** The absolute path a tool's `file_path` means (relative ones against the working directory). */
export function absPath(req: Pick<DemoRequest, 'cwd'>, p: string): string {
  return path.isAbsolute(p) || !req.cwd ? p : path.resolve(req.cwd, p);
}

/** How a path is shown to the user: relative inside the working directory. */
export function shownPath(req: Pick<DemoRequest, 'cwd'>, p: string): string {
  const abs = absPath(req, p);
  if (!req.cwd) return p;
  const rel = path.relative(req.cwd, abs);
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
}

/** The steps of all rounds so far that called `name` on `file` (compared as absolute paths). */
export function stepsOn(
  req: Pick<DemoRequest, 'cwd' | 'rounds'>,
  name: string,
  file: string,
): Array<ToolStep & { round: number }> {
  const want = absPath(req, file);
  const out: Array<ToolStep & { round: number }> = [];
  req.rounds.forEach((round, i) => {
    for (const s of round) {
      if (
        s.call.name === name &&
        typeof s.call.input.file_path === 'string' &&
        absPath(req, s.call.input.file_path) === want
      )
        out.push({ ...s, round: i });
    }
  });
  return out;
}

/** The file's text from a Read result (cat -n lines), or undefined when the result was cut or not a listing. */
export function contentFromRead(result: string): string | undefined {
  if (/^\(File .* is empty\.\)$/.test(result.trim())) return '';
  const lines: string[] = [];
  for (const l of result.split('\n')) {
    const m = /^\s*\d+\t(.*)$/.exec(l);
    if (!m) return undefined; // a "[Showing lines ...]" note: only part of the file is known
    if (/… \[line cut, \d+ characters\]$/.test(m[1])) return undefined;
    lines.push(m[1]);
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : undefined;
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}
