// Grep: regex search over the workspace with ripgrep's interface, on the search engine the host gave
// (ripgrep) or the JavaScript one (search/jsEngine.ts); both give the same answer in the same order, and
// the result names what was left out (too big, binary, node_modules folders) and a search cut by its time
// limit. This file is the tool: input, paging and the text the model reads.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { isErrno } from '../fs/errno';
import { fileFilter } from './grepSearch';
import { resolveReal } from '../fs/pathGuard';
import { isUnderProc } from '../security/procFiles';
import { matchesNewline } from './search/regexSafety';
import { leftOutNotes, onEngine, searchBounds, SEARCH_MAX_FILE_BYTES, timedOutNote } from './search/searchRun';
import { SearchPatternError, type GrepFileHit, type GrepOutcome } from './searchTypes';
import type { Tool, ToolContext, ToolResult } from './tool';
import { defineTool, displayPath, errorResult, guardedPath, okResult } from './toolSupport';

/** Files above this are skipped in directory searches: generated bundles and dumps, not code. */
export const GREP_MAX_FILE_BYTES = SEARCH_MAX_FILE_BYTES;
/** Default cap on output lines/entries; the model can page with offset or raise head_limit. */
export const GREP_DEFAULT_HEAD_LIMIT = 250;
/** Cap on the result text (~8K tokens) whatever head_limit says. */
export const GREP_MAX_OUTPUT_CHARS = 30_000;
/** Matched lines are cut here, like rg --max-columns: minified code would otherwise fill the result. */
export const GREP_MAX_LINE_CHARS = 500;

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
  /** Which engine ran (ripgrep, or the JavaScript fallback). */
  engine?: 'ripgrep' | 'javascript';
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

async function grep(input: GrepInput, ctx: ToolContext): Promise<ToolResult> {
  const mode = input.output_mode ?? 'files_with_matches';
  const multiline = input.multiline === true;
  if (!multiline && matchesNewline(input.pattern))
    return errorResult('The pattern has \\n, which only matches across lines: set multiline to true.');
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
  if (isDir && isUnderProc(realTarget))
    return errorResult(
      "Grep does not search folders under /proc: they hold other processes' environments and files that never end.",
    );

  const headLimit = input.head_limit === 0 ? Infinity : (input.head_limit ?? GREP_DEFAULT_HEAD_LIMIT);
  const skip = input.offset ?? 0;
  // Entries needed before a search can stop (content/count); no page shows more than the output cap.
  const wanted = skip + Math.min(headLimit, GREP_MAX_OUTPUT_CHARS);
  const context = input['-C'] ?? 0;
  const bounds = searchBounds(ctx);
  let run: { result: GrepOutcome; note?: string };
  try {
    run = await onEngine(ctx, realTarget, (engine) =>
      engine.grep(
        {
          ...bounds,
          root: target,
          pattern: input.pattern,
          ignoreCase: input['-i'] === true,
          multiline,
          ...(input.glob ? { glob: input.glob } : {}),
          ...(input.type ? { type: input.type } : {}),
          mode,
          before: mode === 'content' ? (input['-B'] ?? context) : 0,
          after: mode === 'content' ? (input['-A'] ?? context) : 0,
          wanted,
        },
        ctx.signal,
      ),
    );
  } catch (err) {
    if (err instanceof SearchPatternError) return errorResult(err.message);
    throw err;
  }
  if (ctx.signal.aborted) return errorResult('Grep was cancelled.');
  const out = run.result;
  if (!isDir && out.files.length === 0 && out.leftOut.length > 0) {
    const shown = path.basename(target);
    const why = out.leftOut[0].reason;
    if (why === 'binary') return errorResult(`${shown} is a binary file; Grep searches text only.`);
    if (why === 'tooBig') return errorResult(`${shown} is too large (over 2 MB) for a multiline search.`);
    return errorResult(`Cannot read ${shown}.`);
  }
  const notes = [
    ...leftOutNotes(out.leftOut, bounds.maxFileBytes, ctx.cwd),
    ...(out.timedOut ? [timedOutNote(bounds.timeLimitMs)] : []),
    ...(run.note ? [run.note] : []),
  ];
  const numMatches = out.files.reduce((s, f) => s + f.matches, 0);
  const data: GrepData = { mode, numFiles: out.files.length, numMatches, truncated: false, engine: out.engine };
  if (out.files.length === 0) return okResult(['No matches found.', ...notes].join('\n'), data);
  const show = (abs: string): string => displayPath(abs, ctx.cwd);
  let entries: string[];
  if (mode === 'files_with_matches') entries = out.files.map((f) => show(f.path));
  else if (mode === 'count') entries = out.files.map((f) => `${show(f.path)}:${f.matches}`);
  else {
    const withContext = (input['-B'] ?? context) + (input['-A'] ?? context) > 0;
    entries = formatContent(out.files, isDir ? show : null, input['-n'] !== false, withContext);
  }
  return page(entries, skip, headLimit, data, notes);
}

/** rg's layout: `file:12:match`, `file-13-context`, and `--` between groups when context is on. */
function formatContent(
  found: GrepFileHit[],
  show: ((abs: string) => string) | null,
  numbers: boolean,
  withContext: boolean,
): string[] {
  const out: string[] = [];
  for (const f of found) {
    let prev = -1;
    const name = show ? show(f.path) : null;
    for (const l of f.lines) {
      if (withContext && out.length > 0 && l.line !== prev + 1) out.push('--');
      prev = l.line;
      const sep = l.isMatch ? ':' : '-';
      const prefix = (name !== null ? name + sep : '') + (numbers ? l.line + sep : '');
      out.push(prefix + cut(l.text));
    }
  }
  return out;
}

function cut(line: string): string {
  if (line.length <= GREP_MAX_LINE_CHARS) return line;
  return `${line.slice(0, GREP_MAX_LINE_CHARS)}… [${line.length - GREP_MAX_LINE_CHARS} more characters]`;
}

function page(entries: string[], skip: number, headLimit: number, data: GrepData, notes: string[]): ToolResult {
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
  if (lines.length === 0)
    return okResult([`No results at offset ${skip} (there are ${entries.length}).`, ...notes].join('\n'), data);
  let text = lines.join('\n');
  if (hasMore)
    text +=
      `\n[Results cut after ${lines.length} entries. ` +
      `Use offset=${skip + lines.length} for more, or narrow the search.]`;
  if (notes.length > 0) text += `\n${notes.join('\n')}`;
  return okResult(text, data);
}
