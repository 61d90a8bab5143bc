// How Grep and Glob run a search: on the host's engine (ToolContext.search) or the JavaScript one, within
// the bounds (time limit, file size, excludes), falling back to JavaScript when ripgrep itself fails; and
// the lines that tell the model what was left out and why.
import { isInside } from '../ignoreRules';
import type { LeftOut, SearchBounds, SearchEngine } from '../searchTypes';
import { SearchPatternError } from '../searchTypes';
import type { ToolContext } from '../tool';
import { displayPath, errorText } from '../toolSupport';
import { jsSearchEngine } from './jsEngine';

/** Files above this are left out of directory searches (and named): generated bundles and dumps, not code. */
export const SEARCH_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** A search stops after this long and answers with what it has (a host setting may change it). */
export const SEARCH_TIME_LIMIT_MS = 30_000;

/** The bounds for this call: the host's (ToolContext.searchBounds), else the defaults. */
export function searchBounds(ctx: ToolContext): SearchBounds {
  return {
    timeLimitMs: ctx.searchBounds?.timeLimitMs ?? SEARCH_TIME_LIMIT_MS,
    maxFileBytes: ctx.searchBounds?.maxFileBytes ?? SEARCH_MAX_FILE_BYTES,
    excludes: ctx.searchBounds?.excludes ?? [],
    excludesRoot: ctx.searchBounds?.excludesRoot,
  };
}

/**
 * Runs `op` on the context's engine; when ripgrep fails for a reason other than the pattern (it cannot
 * start, an unknown flag in an old version), runs it on the JavaScript engine and says so in `note`.
 * A folder that holds /proc (a search of /) is always walked by the JavaScript engine, which passes it by.
 */
export async function onEngine<T>(
  ctx: ToolContext,
  root: string,
  op: (engine: SearchEngine) => Promise<T>,
): Promise<{ result: T; note?: string }> {
  const engine = ctx.search;
  if (!engine || engine.name === 'javascript' || isInside(root, '/proc')) return { result: await op(jsSearchEngine()) };
  try {
    return { result: await op(engine) };
  } catch (err) {
    if (err instanceof SearchPatternError || ctx.signal.aborted) throw err;
    const result = await op(jsSearchEngine());
    return { result, note: `[ripgrep failed (${errorText(err)}); searched with the JavaScript engine instead.]` };
  }
}

/** One line per reason: "2 files over 2 MB not searched: a.bin, b.log". */
export function leftOutNotes(leftOut: readonly LeftOut[], maxFileBytes: number, cwd: string): string[] {
  return leftOut.map((l) => {
    const names = l.paths.map((p) => displayPath(p, cwd)).join(', ') + (l.count > l.paths.length ? ', …' : '');
    const files = l.count === 1 ? 'file' : 'files';
    switch (l.reason) {
      case 'tooBig':
        return `[${l.count} ${files} over ${formatBytes(maxFileBytes)} not searched: ${names}. Name one as path to search it.]`;
      case 'binary':
        return `[${l.count} binary ${files} not searched: ${names}.]`;
      case 'excluded':
        return `[${l.count} node_modules ${l.count === 1 ? 'folder' : 'folders'} not searched: ${names}. Pass one as path to search it.]`;
      case 'hostExcluded':
        return `[${hostExcludedWhat(l)} excluded by the editor's files.exclude / search.exclude settings not searched: ${names}. Pass ${l.count === 1 ? 'it' : 'one'} as path to search it.]`;
      default:
        return `[${l.count} ${files} could not be read: ${names}.]`;
    }
  });
}

/** "1 folder", "2 files", "3 folders and files". */
function hostExcludedWhat(l: LeftOut): string {
  const folders = l.folders ?? 0;
  if (folders === l.count) return `${l.count} ${l.count === 1 ? 'folder' : 'folders'}`;
  if (folders === 0) return `${l.count} ${l.count === 1 ? 'file' : 'files'}`;
  return `${l.count} folders and files`;
}

/** The time-limit note. */
export function timedOutNote(timeLimitMs: number): string {
  return `[The search stopped after ${Math.round(timeLimitMs / 100) / 10} s (its time limit); these results are partial. Narrow the path, glob or type.]`;
}

/** A size limit in words: "2 MB", "500 KB", "100 bytes". */
export function formatBytes(n: number): string {
  const mb = n / (1024 * 1024);
  if (mb >= 1) return `${Math.round(mb * 10) / 10} MB`;
  return n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}
