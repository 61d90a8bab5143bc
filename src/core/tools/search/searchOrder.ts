// What both search engines share so they give the same answers: the order results come in, where a search
// that has enough stops, the left-out tally, and Glob's pattern matcher.
//
// Order rules (both engines, every mode):
//  - Grep files_with_matches and Glob: newest first (mtime), ties by absolute path (UTF-16 code units);
//  - Grep content and count: walk order, ripgrep's --sort path: each folder's entries by name (UTF-8
//    bytes), a subfolder's files where its name falls, depth first (what walkFiles yields).
import path from 'node:path';
import type { GrepFileHit, LeftOut, LeftOutReason } from '../searchTypes';
import { expandBraces } from '../grepSearch';
import { compareNames } from '../ignoreRules';
import type { LinePicker } from './rgProcess';

/** Paths kept per left-out reason for the message; the count is always complete. */
export const LEFT_OUT_NAMED = 5;

/** Newest first, then by path. */
export function byNewest<T extends { path: string; mtimeMs: number }>(a: T, b: T): number {
  return b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/** Walk order of two paths below the same root (ripgrep's --sort path): by name at the first difference. */
export function byWalkOrder(a: string, b: string): number {
  if (a === b) return 0;
  const sa = a.split(path.sep);
  const sb = b.split(path.sep);
  let i = 0;
  while (i < sa.length && i < sb.length && sa[i] === sb[i]) i++;
  if (i === sa.length) return -1; // a folder before what is inside it
  if (i === sb.length) return 1;
  return compareNames(sa[i], sb[i]);
}

/**
 * The hits a search keeps, in order: content and count stop once `wanted` entries are there (the file
 * that crosses the line is kept whole, as the walk does); files_with_matches keeps every file.
 */
export function keptHits(
  hits: GrepFileHit[],
  mode: 'content' | 'files_with_matches' | 'count',
  wanted: number,
): { files: GrepFileHit[]; truncated: boolean; stoppedAt?: string } {
  if (mode === 'files_with_matches') return { files: hits.sort(byNewest), truncated: false };
  hits.sort((a, b) => byWalkOrder(a.path, b.path));
  let total = 0;
  for (let i = 0; i < hits.length; i++) {
    total += mode === 'content' ? hits[i].lines.length : 1;
    if (total > wanted) return { files: hits.slice(0, i + 1), truncated: i + 1 < hits.length, stoppedAt: hits[i].path };
  }
  return { files: hits, truncated: false };
}

/** Counts and names the files (or folders) a search left out, by reason. */
export class LeftOutTally {
  private readonly byReason = new Map<LeftOutReason, LeftOut>();
  /** The left-out paths that are folders (they sit in walk order where their first entry would). */
  private readonly dirs = new Set<string>();

  add(reason: LeftOutReason, abs: string, isDir = reason === 'excluded'): void {
    if (isDir) this.dirs.add(abs);
    let e = this.byReason.get(reason);
    if (!e) {
      e = { reason, count: 0, paths: [] };
      this.byReason.set(reason, e);
    }
    e.count++;
    e.paths.push(abs);
  }

  /**
   * In a fixed reason order, the paths sorted and cut to LEFT_OUT_NAMED, so both engines say the same. A
   * search that stopped once it had enough (`stoppedAt`, the last file it kept) names only what it left
   * out before that point in walk order: the rest it never reached.
   */
  list(stoppedAt?: string): LeftOut[] {
    const order: LeftOutReason[] = ['tooBig', 'binary', 'excluded', 'hostExcluded', 'unreadable'];
    return order.flatMap((r): LeftOut[] => {
      const e = this.byReason.get(r);
      if (!e) return [];
      // A folder sits in walk order where its first entry would.
      const place = (p: string): string => (this.dirs.has(p) ? path.join(p, '\u0000') : p);
      const all = [...new Set(e.paths)].filter((p) => stoppedAt === undefined || byWalkOrder(place(p), stoppedAt) < 0);
      if (all.length === 0) return [];
      const paths = all.sort((a, b) => byWalkOrder(place(a), place(b))).slice(0, LEFT_OUT_NAMED);
      if (r !== 'hostExcluded') return [{ reason: r, count: all.length, paths }];
      return [{ reason: r, count: all.length, paths, folders: all.filter((p) => this.dirs.has(p)).length }];
    });
  }
}

/**
 * Whether a folder (relative to the root, posix) could hold a match of a Glob pattern: only folders on
 * the way to or below the pattern's fixed start (`src/app` in `src/app/**\/*.ts`) can.
 */
export function folderFilter(pattern: string): (relDir: string) => boolean {
  const fixed: string[] = [];
  const segs = pattern.replace(/^\.\//, '').split('/');
  for (const seg of segs.slice(0, -1)) {
    if (/[*?[\]{}()!\\]/.test(seg)) break;
    fixed.push(seg);
  }
  const prefix = fixed.join('/');
  if (prefix === '') return () => true;
  return (rel) => rel === prefix || rel.startsWith(`${prefix}/`) || prefix.startsWith(`${rel}/`);
}

/**
 * Glob's matcher: `*` and `?` within a name, `**` across folders, `[...]` classes, `{a,b}` choices; the
 * pattern matches the whole path relative to the root (so `*.ts` means the root's own .ts files), and
 * dot files match like any other.
 */
export function globMatcher(pattern: string): (relPosix: string) => boolean {
  const res = expandBraces(pattern.replace(/^\.\//, '')).map((p) => ({
    // A cheap test of the literal end first, the regex only for the few paths that pass it (a listing
    // is ~80,000 paths, most of them not matches).
    tail: literalTail(p),
    re: new RegExp(`^${globBody(p)}$`),
  }));
  return (rel) => res.some(({ tail, re }) => rel.endsWith(tail) && re.test(rel));
}

/** The literal end every match of a brace-free glob has: ".tsx" of "**\/*.tsx", "" of "src/**". */
function literalTail(glob: string): string {
  return /[^*?[\]\\]*$/.exec(glob)?.[0] ?? '';
}

/**
 * The bytes a listed path must end with to match `pattern`, one per choice of its braces (the literal end
 * of its last name, so it holds whatever the separator); null when some choice has none (anything may
 * match). For testing a listing line before it is decoded.
 */
export function globNameTails(pattern: string): Buffer[] | null {
  const tails = expandBraces(pattern.replace(/^\.\//, '')).map((p) => {
    const tail = literalTail(p);
    return tail.slice(tail.lastIndexOf('/') + 1);
  });
  return tails.includes('') ? null : tails.map((t) => Buffer.from(t));
}

/**
 * A LinePicker (rgProcess.ts) for the lines that end with one of `tails` (a CR before the LF left out of
 * the line): the buffer's own search finds them, so the lines between cost nothing in JavaScript.
 */
export function linesEndingWith(tails: Buffer[]): LinePicker {
  const needles = tails.flatMap((t) => [
    Buffer.concat([t, Buffer.from('\n')]),
    Buffer.concat([t, Buffer.from('\r\n')]),
  ]);
  return (bytes, take) => {
    // Two tails may end the same line (".ts" and ".d.ts"): each line is taken once.
    const taken = needles.length > 2 ? new Set<number>() : undefined;
    for (const needle of needles) {
      for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + needle.length)) {
        const start = at === 0 ? 0 : bytes.lastIndexOf(10, at - 1) + 1;
        if (taken?.has(start)) continue;
        taken?.add(start);
        take(start, at + needle.length - (needle[needle.length - 2] === 13 ? 2 : 1));
      }
    }
  };
}

function globBody(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const atStart = i === 0 || glob[i - 1] === '/';
      const atEnd = i + 2 === glob.length || glob[i + 2] === '/';
      if (atStart && atEnd) {
        // `**/` is zero or more folders; a trailing `**` is anything below.
        if (i + 2 === glob.length) out += '[\\s\\S]*';
        else {
          // Any run of folders: the same strings as (?:[^/]*/)*, without its backtracking on deep paths.
          out += '(?:[\\s\\S]*/)?';
          i++;
        }
        i++;
        continue;
      }
      out += '[^/]*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        const body = glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        out += `[${body}]`;
        i = end;
      }
    } else if (c === '\\' && i + 1 < glob.length) out += escapeRe(glob[++i]);
    else out += escapeRe(c);
  }
  return out;
}

function escapeRe(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}
