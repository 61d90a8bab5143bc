// Grep: regex search over the workspace, ripgrep's interface implemented in JS (no rg binary here).
// Files are searched a few at a time and results are bounded, so a large repository cannot flood memory.
import { createReadStream, promises as fsp } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { isErrno } from '../fs/errno';
import { decodeText, kindByExtension, looksBinary, sniffFile } from '../fs/fileText';
import { compilePattern, fileFilter, LineMatcher, searchMultiline, type FileHits } from './grepSearch';
import { resolveReal } from '../fs/pathGuard';
import { isUnderProc } from '../security/procFiles';
import { IgnoreRules, toPosix, walkFiles } from './ignoreRules';
import { splitLines } from './readTool';
import type { Tool, ToolContext, ToolResult } from './tool';
import { defineTool, displayPath, errorResult, errorText, guardedPath, okResult } from './toolSupport';

/** Files above this are skipped in directory searches: generated bundles and dumps, not code. */
export const GREP_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Default cap on output lines/entries; the model can page with offset or raise head_limit. */
export const GREP_DEFAULT_HEAD_LIMIT = 250;
/** Cap on the result text (~8K tokens) whatever head_limit says. */
export const GREP_MAX_OUTPUT_CHARS = 30_000;
/** Matched lines are cut here, like rg --max-columns: minified code would otherwise fill the result. */
export const GREP_MAX_LINE_CHARS = 500;
/** Files searched at once: overlaps I/O without holding many files in memory. */
const PARALLEL_FILES = 8;

export type GrepInput = {
  pattern: string;
  path?: string;
  glob?: string;
  type?: string;
  output_mode?: 'content' | 'files_with_matches' | 'count';
  '-i'?: boolean;
  '-n'?: boolean;
  '-A'?: number;
  '-B'?: number;
  '-C'?: number;
  head_limit?: number;
  offset?: number;
  multiline?: boolean;
};

export interface GrepData {
  mode: 'content' | 'files_with_matches' | 'count';
  numFiles: number;
  numMatches: number;
  truncated: boolean;
}

export function grepTool(): Tool<GrepInput> {
  const ctxNum = { type: 'integer', minimum: 0 };
  return defineTool<GrepInput>({
    name: 'Grep',
    description:
      'Search file contents with a regular expression (JavaScript/ripgrep syntax). Respects .gitignore. ' +
      'output_mode: "files_with_matches" (default, newest first), "content" (matching lines; -n line numbers ' +
      'default on, -A/-B/-C context), or "count". Filter files with glob ("*.{ts,tsx}") or type ("py"). ' +
      'head_limit caps entries (default 250, 0 = no cap); offset skips entries. multiline lets . and ' +
      'patterns span lines.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Regular expression' },
        path: { type: 'string', description: 'File or directory to search (default: working directory)' },
        glob: { type: 'string', description: 'Only files matching this glob, e.g. "*.js" or "src/**/*.ts"' },
        type: { type: 'string', description: 'Only files of this type, e.g. js, ts, py, rust, go, java' },
        output_mode: { type: 'string', enum: ['content', 'files_with_matches', 'count'] },
        '-i': { type: 'boolean', description: 'Case insensitive' },
        '-n': { type: 'boolean', description: 'Line numbers (content mode)' },
        '-A': { ...ctxNum, description: 'Lines after each match (content mode)' },
        '-B': { ...ctxNum, description: 'Lines before each match (content mode)' },
        '-C': { ...ctxNum, description: 'Lines before and after each match (content mode)' },
        head_limit: { type: 'integer', minimum: 0, description: 'Max lines/entries to return' },
        offset: { type: 'integer', minimum: 0, description: 'Skip this many lines/entries first' },
        multiline: { type: 'boolean', description: 'Let matches span lines' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    fields: {
      pattern: { type: 'string', required: true, nonEmpty: true },
      path: { type: 'string' },
      glob: { type: 'string' },
      type: { type: 'string' },
      output_mode: { type: 'string', oneOf: ['content', 'files_with_matches', 'count'] },
      '-i': { type: 'boolean' },
      '-n': { type: 'boolean' },
      '-A': { type: 'integer', min: 0 },
      '-B': { type: 'integer', min: 0 },
      '-C': { type: 'integer', min: 0 },
      head_limit: { type: 'integer', min: 0 },
      offset: { type: 'integer', min: 0 },
      multiline: { type: 'boolean' },
    },
    readOnly: true,
    concurrencySafe: true,
    summarize: (input) => {
      const where = `${input.path ? ` in ${input.path}` : ''}${input.glob ? ` (${input.glob})` : ''}`;
      return `Grep ${JSON.stringify(input.pattern)}${where}`;
    },
    readPaths: (input) => [typeof input.path === 'string' && input.path ? input.path : '.'],
    run: grep,
  });
}

interface FileOutcome {
  abs: string;
  hits: FileHits | null;
  /** Why a file given explicitly could not be searched. */
  skipped?: string;
}

async function grep(input: GrepInput, ctx: ToolContext): Promise<ToolResult> {
  const mode = input.output_mode ?? 'files_with_matches';
  let re: RegExp;
  try {
    re = compilePattern(input.pattern, { ignoreCase: input['-i'] === true, multiline: input.multiline === true });
  } catch (err) {
    return errorResult(
      `Invalid regular expression: ${errorText(err)}. ` +
        'Escape special characters such as ( [ { . * + ? with a backslash.',
    );
  }
  const filter = fileFilter(input.glob, input.type);
  if (typeof filter === 'string') return errorResult(filter);

  const g = guardedPath(input.path ?? '.', 'read', ctx);
  if ('error' in g) return g.error;
  const target = g.abs;
  // /proc holds other processes' secrets and endless files (pagemap): never searched as a folder.
  const realTarget = resolveReal(target) ?? target;
  let isDir: boolean;
  try {
    isDir = (await fsp.stat(target)).isDirectory();
  } catch (err) {
    if (isErrno(err, 'ENOENT', 'ENOTDIR')) return errorResult(`Path does not exist: ${displayPath(target, ctx.cwd)}.`);
    throw err;
  }

  const headLimit = input.head_limit === 0 ? Infinity : (input.head_limit ?? GREP_DEFAULT_HEAD_LIMIT);
  const skip = input.offset ?? 0;
  const wanted = skip + headLimit; // entries needed before we can stop early (content/count modes)
  const context = input['-C'] ?? 0;
  const before = mode === 'content' ? (input['-B'] ?? context) : 0;
  const after = mode === 'content' ? (input['-A'] ?? context) : 0;
  const opts: SearchOpts = {
    re,
    before,
    after,
    collect: mode === 'content',
    firstOnly: mode === 'files_with_matches',
    multiline: input.multiline === true,
    maxLines: Number.isFinite(wanted) ? wanted + 1 : Number.MAX_SAFE_INTEGER,
  };

  const outcomes: FileOutcome[] = [];
  let contentLines = 0;
  if (!isDir) {
    outcomes.push(await searchFile(target, opts, ctx.signal, true));
  } else {
    if (isUnderProc(realTarget))
      return errorResult(
        "Grep does not search folders under /proc: they hold other processes' environments and files that never end.",
      );
    const rules = await IgnoreRules.create(target);
    const pending: Array<Promise<FileOutcome>> = [];
    const drain = async (): Promise<boolean> => {
      const o = await (pending.shift() as Promise<FileOutcome>);
      if (o.hits && o.hits.matches > 0) {
        outcomes.push(o);
        contentLines += o.hits.lines.length;
      }
      // files_with_matches sorts by mtime, so it must see every file; the others can stop once full.
      if (mode === 'content') return contentLines > wanted;
      if (mode === 'count') return outcomes.length > wanted;
      return false;
    };
    let stop = false;
    // The walk does not follow links, so below the real target a path is where it looks: a search of /
    // passes /proc by.
    const skipDir = (abs: string): boolean => isUnderProc(path.join(realTarget, path.relative(target, abs)));
    for await (const abs of walkFiles(target, rules, ctx.signal, skipDir)) {
      if (!filter(toPosix(path.relative(target, abs)))) continue;
      pending.push(searchFile(abs, opts, ctx.signal, false));
      if (pending.length >= PARALLEL_FILES && (stop = await drain())) break;
    }
    while (pending.length > 0 && !stop) stop = await drain();
    await Promise.allSettled(pending);
  }
  if (ctx.signal.aborted) return errorResult('Grep was cancelled.');

  const only = outcomes[0];
  if (!isDir && only?.skipped) return errorResult(only.skipped);
  const found = outcomes.filter((o) => o.hits && o.hits.matches > 0);
  const numMatches = found.reduce((s, o) => s + (o.hits?.matches ?? 0), 0);
  if (found.length === 0) {
    return okResult('No matches found.', { mode, numFiles: 0, numMatches: 0, truncated: false } satisfies GrepData);
  }
  const show = (abs: string): string => displayPath(abs, ctx.cwd);

  let entries: string[];
  if (mode === 'files_with_matches') {
    const withTimes = await Promise.all(found.map(async (o) => ({ abs: o.abs, t: await mtimeOf(o.abs) })));
    withTimes.sort((a, b) => b.t - a.t || (a.abs < b.abs ? -1 : 1));
    entries = withTimes.map((e) => show(e.abs));
  } else if (mode === 'count') {
    entries = found.map((o) => `${show(o.abs)}:${o.hits?.matches ?? 0}`);
  } else {
    entries = formatContent(found, isDir ? show : null, input['-n'] !== false, before + after > 0);
  }
  return page(entries, skip, headLimit, { mode, numFiles: found.length, numMatches, truncated: false });
}

interface SearchOpts {
  re: RegExp;
  before: number;
  after: number;
  collect: boolean;
  firstOnly: boolean;
  multiline: boolean;
  maxLines: number;
}

async function searchFile(abs: string, o: SearchOpts, signal: AbortSignal, explicit: boolean): Promise<FileOutcome> {
  const shown = path.basename(abs);
  try {
    if (signal.aborted) return { abs, hits: null };
    if (kindByExtension(abs) !== 'text')
      return { abs, hits: null, skipped: `${shown} is a binary file; Grep searches text only.` };
    const { size } = await fsp.stat(abs);
    if (size > GREP_MAX_FILE_BYTES) {
      // A file named explicitly is still searched, streamed line by line; in a directory walk it is noise.
      if (!explicit) return { abs, hits: null };
      if (o.multiline) return { abs, hits: null, skipped: `${shown} is too large (over 2 MB) for a multiline search.` };
      if (looksBinary(await sniffFile(abs)))
        return { abs, hits: null, skipped: `${shown} is a binary file; Grep searches text only.` };
      return { abs, hits: await streamSearch(abs, o, signal) };
    }
    const buf = await fsp.readFile(abs);
    if (looksBinary(buf)) return { abs, hits: null, skipped: `${shown} is a binary file; Grep searches text only.` };
    const text = decodeText(buf).text;
    const lines = splitLines(text);
    if (o.multiline) return { abs, hits: searchMultiline(text, lines, o.re, o.before, o.after, o.maxLines) };
    const m = new LineMatcher(o.re, o.before, o.after, o.collect, o.maxLines);
    for (let i = 0; i < lines.length && !m.full; i++) {
      m.push(i + 1, lines[i]);
      if (o.firstOnly && m.matches > 0) break;
    }
    return { abs, hits: { matches: m.matches, lines: m.lines } };
  } catch (err) {
    // A file that vanished or cannot be read is skipped, as rg does, unless it was asked for by name.
    return { abs, hits: null, skipped: explicit ? `Cannot read ${shown}: ${errorText(err)}` : undefined };
  }
}

async function streamSearch(abs: string, o: SearchOpts, signal: AbortSignal): Promise<FileHits> {
  const stream = createReadStream(abs, { encoding: 'utf8' });
  const rl = readline.createInterface({ input: stream, crlfDelay: Infinity });
  const m = new LineMatcher(o.re, o.before, o.after, o.collect, o.maxLines);
  let n = 0;
  try {
    for await (const line of rl) {
      m.push(++n, line);
      if (m.full || signal.aborted || (o.firstOnly && m.matches > 0)) break;
    }
  } finally {
    rl.close();
    stream.destroy();
  }
  return { matches: m.matches, lines: m.lines };
}

/** rg's layout: `file:12:match`, `file-13-context`, and `--` between groups when context is on. */
function formatContent(
  found: FileOutcome[],
  show: ((abs: string) => string) | null,
  numbers: boolean,
  withContext: boolean,
): string[] {
  const out: string[] = [];
  for (const o of found) {
    let prev = -1;
    const name = show ? show(o.abs) : null;
    for (const l of o.hits?.lines ?? []) {
      if (withContext && out.length > 0 && l.n !== prev + 1) out.push('--');
      prev = l.n;
      const sep = l.isMatch ? ':' : '-';
      const prefix = (name !== null ? name + sep : '') + (numbers ? l.n + sep : '');
      out.push(prefix + cut(l.text));
    }
  }
  return out;
}

function cut(line: string): string {
  if (line.length <= GREP_MAX_LINE_CHARS) return line;
  return `${line.slice(0, GREP_MAX_LINE_CHARS)}… [${line.length - GREP_MAX_LINE_CHARS} more characters]`;
}

function page(entries: string[], skip: number, headLimit: number, data: GrepData): ToolResult {
  const slice = entries.slice(skip, skip + headLimit);
  const lines: string[] = [];
  let chars = 0;
  for (const e of slice) {
    if (chars + e.length + 1 > GREP_MAX_OUTPUT_CHARS && lines.length > 0) break;
    lines.push(e);
    chars += e.length + 1;
  }
  if (lines.length > 1 && lines[lines.length - 1] === '--') lines.pop(); // never end a page on a separator
  const hasMore = skip + lines.length < entries.length;
  data.truncated = hasMore;
  if (lines.length === 0) return okResult(`No results at offset ${skip} (there are ${entries.length}).`, data);
  let text = lines.join('\n');
  if (hasMore)
    text +=
      `\n[Results cut after ${lines.length} entries. ` +
      `Use offset=${skip + lines.length} for more, or narrow the search.]`;
  return okResult(text, data);
}

async function mtimeOf(abs: string): Promise<number> {
  try {
    return (await fsp.stat(abs)).mtimeMs;
  } catch {
    return 0;
  }
}
