// Glob: finds files by name pattern, newest first, so the files the user is working on come up top.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { isErrno } from '../fs/errno';
import { IgnoreRules, toPosix } from './ignoreRules';
import type { Tool, ToolContext, ToolResult } from './tool';
import { defineTool, displayPath, errorResult, guardedPath, okResult } from './toolSupport';

/** More paths than this rarely help the model; it should narrow the pattern instead. */
export const GLOB_MAX_RESULTS = 100;
/** Parallel stat calls: enough to hide latency, few enough not to exhaust file descriptors. */
const STAT_CONCURRENCY = 64;

export type GlobInput = { pattern: string; path?: string };

export interface GlobData {
  filenames: string[];
  numFiles: number;
  truncated: boolean;
}

export function globTool(): Tool<GlobInput> {
  return defineTool<GlobInput>({
    name: 'Glob',
    description:
      'Find files by glob pattern (e.g. "**/*.ts", "src/**/test_*.py"). Returns paths sorted by modification ' +
      'time, newest first. Respects .gitignore and skips node_modules and .git; to search an ignored folder, ' +
      'pass it as path.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Glob pattern' },
        path: { type: 'string', description: 'Directory to search in (default: working directory)' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    fields: { pattern: { type: 'string', required: true, nonEmpty: true }, path: { type: 'string' } },
    readOnly: true,
    concurrencySafe: true,
    summarize: (input) => `Glob ${input.pattern}${input.path ? ` in ${input.path}` : ''}`,
    readPaths: (input) => [typeof input.path === 'string' && input.path ? input.path : '.'],
    run: globFiles,
  });
}

async function globFiles(input: GlobInput, ctx: ToolContext): Promise<ToolResult> {
  let pattern = input.pattern;
  let dirArg = input.path ?? '.';
  if (path.isAbsolute(pattern)) {
    // An absolute pattern carries its own root: crawl from its static prefix, not from the cwd.
    const split = splitStaticPrefix(pattern);
    dirArg = split.base;
    pattern = split.rest;
  }
  const g = guardedPath(dirArg, 'read', ctx);
  if ('error' in g) return g.error;
  const base = g.abs;
  const shownBase = displayPath(base, ctx.cwd);
  try {
    const st = await fsp.stat(base);
    if (!st.isDirectory()) return errorResult(`${shownBase} is not a directory. Give a directory as path.`);
  } catch (err) {
    if (isErrno(err, 'ENOENT', 'ENOTDIR')) return errorResult(`Directory does not exist: ${shownBase}.`);
    throw err;
  }

  let found: string[];
  try {
    found = await glob(pattern, {
      cwd: base,
      absolute: true,
      dot: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      ignore: ['**/node_modules/**', '**/.git/**'],
      signal: ctx.signal,
    });
  } catch (err) {
    if (ctx.signal.aborted) return errorResult('Glob was cancelled.');
    throw err;
  }

  const rules = await IgnoreRules.create(base);
  const entries: Array<{ abs: string; mtimeMs: number }> = [];
  for (let i = 0; i < found.length; i += STAT_CONCURRENCY) {
    if (ctx.signal.aborted) return errorResult('Glob was cancelled.');
    const batch = found.slice(i, i + STAT_CONCURRENCY).map(path.normalize);
    const checked = await Promise.all(
      batch.map(async (abs) => {
        if (await rules.isIgnored(abs, false)) return null;
        try {
          return { abs, mtimeMs: (await fsp.stat(abs)).mtimeMs };
        } catch {
          return null; // deleted while we looked
        }
      }),
    );
    for (const e of checked) if (e) entries.push(e);
  }
  entries.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.abs < b.abs ? -1 : a.abs > b.abs ? 1 : 0));

  const truncated = entries.length > GLOB_MAX_RESULTS;
  const shown = entries.slice(0, GLOB_MAX_RESULTS).map((e) => displayPath(e.abs, ctx.cwd));
  const data: GlobData = { filenames: shown, numFiles: entries.length, truncated };
  if (entries.length === 0) return okResult('No files found.', data);
  const note = truncated
    ? `\n(Showing the ${GLOB_MAX_RESULTS} newest of ${entries.length} files. ` +
      'Use a narrower pattern or path to see others.)'
    : '';
  return okResult(shown.join('\n') + note, data);
}

/** Splits "/a/b/**\/*.ts" into the directory "/a/b" and the pattern "**\/*.ts". */
export function splitStaticPrefix(pattern: string): { base: string; rest: string } {
  const segs = toPosix(pattern).split('/');
  let i = 0;
  while (i < segs.length - 1 && !isDynamicPattern(segs[i])) i++;
  const base = segs.slice(0, i).join('/') || '/';
  return { base: path.resolve(base), rest: segs.slice(i).join('/') };
}
