// Read: shows a text file with line numbers (cat -n style), by line range, and records what was read
// so Edit and Write can check the model is not editing blind.
import { createReadStream, promises as fsp } from 'node:fs';
import readline from 'node:readline';
import { isErrno } from '../fs/errno';
import { decodeText, kindByExtension, looksBinary, sha1, sniffFile } from '../fs/fileText';
import type { Tool, ToolContext, ToolResult } from './tool';
import { defineTool, displayPath, errorResult, guardedPath, okResult } from './toolSupport';

/** Lines shown when no limit is given: enough for most source files, small enough for the context. */
export const READ_DEFAULT_LIMIT = 2000;
/** Longer lines are cut: minified bundles would otherwise fill the context with one line. */
export const READ_MAX_LINE_CHARS = 2000;
/** Above this size a file must be read by range; a whole log or dump would swamp the context. */
export const READ_MAX_BYTES_WITHOUT_RANGE = 256 * 1024;
/** Hard cap on one result (~25K tokens), whatever the range asked for. */
export const READ_MAX_OUTPUT_CHARS = 100_000;

export type ReadInput = { file_path: string; offset?: number; limit?: number };

export interface ReadData {
  filePath: string;
  startLine: number;
  numLines: number;
  /** Known when the whole file was loaded. */
  totalLines?: number;
}

export function readTool(): Tool<ReadInput> {
  return defineTool<ReadInput>({
    name: 'Read',
    description:
      'Read a text file. Output has line numbers (cat -n style). Reads up to 2000 lines from the start unless ' +
      'offset (1-based first line) and limit (line count) are given; use them for large files. Lines over ' +
      '2000 characters are cut. Images and binary files are not supported. Read a file before editing it.',
    inputSchema: {
      type: 'object',
      properties: {
        file_path: { type: 'string', description: 'Absolute path, or relative to the working directory' },
        offset: { type: 'integer', minimum: 0, description: 'Line number to start at (1-based)' },
        limit: { type: 'integer', minimum: 1, description: 'Number of lines to read' },
      },
      required: ['file_path'],
      additionalProperties: false,
    },
    fields: {
      file_path: { type: 'string', required: true, nonEmpty: true },
      offset: { type: 'integer', min: 0 },
      limit: { type: 'integer', min: 1 },
    },
    readOnly: true,
    concurrencySafe: true,
    summarize: (input) => `Read ${input.file_path}${rangeLabel(input)}`,
    readPaths: (input) => (typeof input.file_path === 'string' ? [input.file_path] : []),
    run: readFile,
  });
}

function rangeLabel(input: ReadInput): string {
  if (input.offset === undefined && input.limit === undefined) return '';
  const start = Math.max(1, input.offset ?? 1);
  return input.limit === undefined ? ` (from line ${start})` : ` (lines ${start}-${start + input.limit - 1})`;
}

async function readFile(input: ReadInput, ctx: ToolContext): Promise<ToolResult> {
  const g = guardedPath(input.file_path, 'read', ctx);
  if ('error' in g) return g.error;
  const abs = g.abs;
  const shown = displayPath(abs, ctx.cwd);

  let stat;
  try {
    stat = await fsp.stat(abs);
  } catch (err) {
    if (isErrno(err, 'ENOENT', 'ENOTDIR')) {
      return errorResult(
        `File does not exist: ${shown} (working directory: ${ctx.cwd}). Use Glob to find the right path.`,
      );
    }
    throw err;
  }
  if (stat.isDirectory())
    return errorResult(`${shown} is a directory, not a file. Use Glob, or Bash with ls, to list it.`);
  if (!stat.isFile()) return errorResult(`${shown} is not a regular file.`);

  const kind = kindByExtension(abs);
  if (kind === 'image') return errorResult(`${shown} is an image; Read shows text files only.`);
  if (kind === 'binary')
    return errorResult(`${shown} is a binary file (${formatBytes(stat.size)}); Read shows text files only.`);

  const ranged = input.offset !== undefined || input.limit !== undefined;
  const start = Math.max(1, input.offset ?? 1);
  const limit = input.limit ?? READ_DEFAULT_LIMIT;

  if (stat.size === 0) {
    ctx.readFiles.set(abs, { mtimeMs: stat.mtimeMs, contentHash: sha1(''), partial: false, touchedAt: Date.now() });
    return okResult(`(File ${shown} is empty.)`, {
      filePath: abs,
      startLine: 1,
      numLines: 0,
      totalLines: 0,
    } satisfies ReadData);
  }
  if (looksBinary(await sniffFile(abs))) {
    return errorResult(`${shown} looks like a binary file (it contains NUL bytes); Read shows text files only.`);
  }

  if (stat.size > READ_MAX_BYTES_WITHOUT_RANGE) {
    if (!ranged) {
      return errorResult(
        `${shown} is ${formatBytes(stat.size)}, ` +
          `over the ${formatBytes(READ_MAX_BYTES_WITHOUT_RANGE)} limit for reading a whole file. ` +
          'Read a part with offset and limit (e.g. offset=1, limit=500), or use Grep to find the lines you need.',
      );
    }
    const { lines, more } = await streamLines(abs, start, limit, ctx.signal);
    ctx.readFiles.set(abs, { mtimeMs: stat.mtimeMs, partial: true, touchedAt: Date.now() });
    if (lines.length === 0)
      return errorResult(`${shown} has fewer than ${start} lines; offset ${start} is past the end.`);
    return render(shown, abs, lines, start, undefined, more);
  }

  const buf = await fsp.readFile(abs);
  const all = splitLines(decodeText(buf).text);
  const total = all.length;
  if (start > total) {
    ctx.readFiles.set(abs, { mtimeMs: stat.mtimeMs, contentHash: sha1(buf), partial: true, touchedAt: Date.now() });
    return errorResult(`${shown} has ${total} line${total === 1 ? '' : 's'}; offset ${start} is past the end.`);
  }
  const lines = all.slice(start - 1, start - 1 + limit);
  const partial = start > 1 || start - 1 + lines.length < total;
  ctx.readFiles.set(abs, { mtimeMs: stat.mtimeMs, contentHash: sha1(buf), partial, touchedAt: Date.now() });
  return render(shown, abs, lines, start, total, start - 1 + lines.length < total);
}

function render(
  shown: string,
  abs: string,
  lines: string[],
  start: number,
  total: number | undefined,
  more: boolean,
): ToolResult {
  const out: string[] = [];
  let chars = 0;
  let shownCount = 0;
  for (const line of lines) {
    const row = `${String(start + shownCount).padStart(6)}\t${cutLine(line)}`;
    if (chars + row.length > READ_MAX_OUTPUT_CHARS && shownCount > 0) break;
    out.push(row);
    chars += row.length + 1;
    shownCount++;
  }
  const end = start + shownCount - 1;
  const moreLeft = more || shownCount < lines.length;
  if (moreLeft) {
    const of = total !== undefined ? ` of ${total}` : '';
    out.push(`[Showing lines ${start}-${end}${of} of ${shown}. Use offset=${end + 1} to read more.]`);
  }
  const data: ReadData = { filePath: abs, startLine: start, numLines: shownCount, totalLines: total };
  return okResult(out.join('\n'), data);
}

/** Splits text into lines without their terminators; a final newline does not start a new line. */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.endsWith('\r')) lines[i] = l.slice(0, -1);
  }
  return lines;
}

function cutLine(line: string): string {
  if (line.length <= READ_MAX_LINE_CHARS) return line;
  let cut = READ_MAX_LINE_CHARS;
  const c = line.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--; // never split a surrogate pair
  return `${line.slice(0, cut)}… [line cut, ${line.length} characters]`;
}

/** Reads lines start..start+limit-1 of a large file without loading the rest of it. */
async function streamLines(
  abs: string,
  start: number,
  limit: number,
  signal: AbortSignal,
): Promise<{ lines: string[]; more: boolean }> {
  const stream = createReadStream(abs, { encoding: 'utf8' });
  const rl = readline.createInterface({ input: stream, crlfDelay: Infinity });
  const lines: string[] = [];
  let n = 0;
  let more = false;
  try {
    for await (const line of rl) {
      n++;
      if (signal.aborted) break;
      if (n < start) continue;
      if (lines.length >= limit) {
        more = true;
        break;
      }
      lines.push(n === 1 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line);
    }
  } finally {
    rl.close();
    stream.destroy();
  }
  return { lines, more };
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
