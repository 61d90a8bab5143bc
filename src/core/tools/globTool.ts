// Glob: finds files by name pattern, newest first, so the files the user is working on come up top. It
// runs on the host's search engine (ripgrep's file list) or the JavaScript walk, with the same ignore
// rules and the same answer, and names the node_modules folders it left out.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { isDynamicPattern } from 'tinyglobby';
import { isErrno } from '../fs/errno';
import { toPosix } from './ignoreRules';
import { leftOutNotes, onEngine, searchBounds, timedOutNote } from './search/searchRun';
import type { LeftOut } from './searchTypes';
import type { Tool, ToolContext, ToolResult } from './tool';
import { defineTool, displayPath, errorResult, guardedPath, okResult } from './toolSupport';

/** More paths than this rarely help the model; it should narrow the pattern instead. */
export const GLOB_MAX_RESULTS = 100;

export type GlobInput = { pattern: string; path?: string };

export interface GlobData {
  filenames: string[];
  numFiles: number;
  truncated: boolean;
  /** Which engine ran (ripgrep, or the JavaScript fallback). */
  engine?: 'ripgrep' | 'javascript';
}

export function globTool(): Tool<GlobInput> {
  return defineTool<GlobInput>({
    name: 'Glob',
    description:
      'Find files by glob pattern (e.g. "**/*.ts", "src/**/test_*.py"). Returns paths sorted by modification ' +
      'time, newest first. Respects .gitignore and .ignore and skips node_modules and .git; to search an ' +
      'ignored folder, pass it as path.',
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

  const bounds = searchBounds(ctx);
  const { result: listing, note } = await onEngine(ctx, base, (engine) =>
    engine.files({ ...bounds, root: base, pattern, maxResults: GLOB_MAX_RESULTS }, ctx.signal),
  );
  if (ctx.signal.aborted) return errorResult('Glob was cancelled.');
  const total = listing.total ?? listing.files.length;
  const shown = listing.files.map((e) => displayPath(e.path, ctx.cwd));
  const truncated = total > shown.length;
  const data: GlobData = { filenames: shown, numFiles: total, truncated, engine: listing.engine };
  const notes = [
    ...leftOutNotes(relevantLeftOut(listing.leftOut, base, pattern), bounds.maxFileBytes, ctx.cwd),
    ...(listing.timedOut ? [timedOutNote(bounds.timeLimitMs)] : []),
    ...(note ? [note] : []),
  ];
  if (total === 0) return okResult(['No files found.', ...notes].join('\n'), data);
  const cut = truncated
    ? [`(Showing the ${shown.length} newest of ${total} files. Use a narrower pattern or path to see others.)`]
    : [];
  return okResult([...shown, ...cut, ...notes].join('\n'), data);
}

/**
 * The left-out folders the pattern could have matched in: `src/**\/*.ts` has nothing to do with a
 * node_modules folder at the top, so the answer does not mention it.
 */
function relevantLeftOut(leftOut: LeftOut[], base: string, pattern: string): LeftOut[] {
  const segs = toPosix(pattern).split('/');
  const fixed: string[] = [];
  for (const seg of segs.slice(0, -1)) {
    if (isDynamicPattern(seg)) break;
    fixed.push(seg);
  }
  const prefix = fixed.join('/');
  return leftOut.flatMap((l) => {
    const keep = l.paths.filter((p) => {
      const rel = toPosix(path.relative(base, p));
      return rel.startsWith(`${prefix}/`) || `${prefix}/`.startsWith(`${rel}/`) || prefix === '';
    });
    if (keep.length === l.paths.length) return [l];
    return keep.length > 0 ? [{ ...l, count: keep.length, paths: keep }] : [];
  });
}

/** Splits "/a/b/**\/*.ts" into the directory "/a/b" and the pattern "**\/*.ts". */
export function splitStaticPrefix(pattern: string): { base: string; rest: string } {
  const segs = toPosix(pattern).split('/');
  let i = 0;
  while (i < segs.length - 1 && !isDynamicPattern(segs[i])) i++;
  const base = segs.slice(0, i).join('/') || '/';
  return { base: path.resolve(base), rest: segs.slice(i).join('/') };
}
