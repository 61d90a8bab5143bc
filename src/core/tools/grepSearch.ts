// The search engine behind Grep: ripgrep-like regex translation, file filters (--glob, --type) and a
// per-file matcher that keeps only the lines it must (matches plus context), so memory stays bounded.
import ignore, { type Ignore } from 'ignore';

export interface LineHit {
  /** 1-based line number. */
  n: number;
  text: string;
  isMatch: boolean;
}

export interface FileHits {
  /** Number of matching lines. */
  matches: number;
  lines: LineHit[];
}

/** File types as ripgrep names them (`rg --type-list`), for the common languages. */
export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  js: ['js', 'mjs', 'cjs', 'jsx'],
  ts: ['ts', 'tsx', 'mts', 'cts'],
  py: ['py', 'pyi'],
  rust: ['rs'],
  go: ['go'],
  java: ['java'],
  kotlin: ['kt', 'kts'],
  scala: ['scala', 'sc'],
  c: ['c', 'h'],
  cpp: ['cpp', 'cc', 'cxx', 'c++', 'hpp', 'hh', 'hxx', 'h', 'inl'],
  cs: ['cs'],
  swift: ['swift'],
  ruby: ['rb', 'rake', 'gemspec'],
  php: ['php'],
  sh: ['sh', 'bash', 'zsh'],
  lua: ['lua'],
  dart: ['dart'],
  r: ['r', 'R', 'Rmd'],
  sql: ['sql'],
  json: ['json', 'jsonc', 'json5'],
  yaml: ['yml', 'yaml'],
  toml: ['toml'],
  xml: ['xml', 'xsd', 'xsl', 'svg'],
  html: ['html', 'htm'],
  css: ['css', 'scss', 'sass', 'less'],
  markdown: ['md', 'markdown', 'mdx'],
  md: ['md', 'markdown', 'mdx'],
  vue: ['vue'],
  svelte: ['svelte'],
  txt: ['txt'],
};

/**
 * Compiles a ripgrep-style pattern as a JS RegExp. Rust and JS regexes agree on the common syntax; the
 * differences models actually write (leading inline flags, `(?P<name>`) are translated.
 */
export function compilePattern(pattern: string, opts: { ignoreCase: boolean; multiline: boolean }): RegExp {
  let src = pattern;
  let flags = 'm' + (opts.ignoreCase ? 'i' : '') + (opts.multiline ? 'gs' : '');
  const inline = /^\(\?([imsx]+)\)/.exec(src);
  if (inline) {
    src = src.slice(inline[0].length);
    for (const f of inline[1]) if (f !== 'x' && !flags.includes(f)) flags += f;
  }
  src = src.replace(/\(\?P</g, '(?<');
  return new RegExp(src, flags);
}

/** Expands `a.{ts,tsx}` into `a.ts a.tsx` (nested braces too), as ripgrep's globs allow. */
export function expandBraces(glob: string, limit = 256): string[] {
  const open = findTopBrace(glob);
  if (!open) return [glob];
  const { start, end, options } = open;
  const out: string[] = [];
  for (const opt of options) {
    for (const e of expandBraces(glob.slice(0, start) + opt + glob.slice(end + 1), limit)) {
      if (out.length >= limit) return out;
      out.push(e);
    }
  }
  return out;
}

function findTopBrace(s: string): { start: number; end: number; options: string[] } | null {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') {
      i++;
      continue;
    }
    if (s[i] !== '{') continue;
    let depth = 0;
    const cuts: number[] = [];
    for (let j = i; j < s.length; j++) {
      const c = s[j];
      if (c === '\\') j++;
      else if (c === '{') depth++;
      else if (c === ',' && depth === 1) cuts.push(j);
      else if (c === '}' && --depth === 0) {
        if (cuts.length === 0) break; // "{x}" is literal, as in rg
        const bounds = [i, ...cuts, j];
        const options = bounds.slice(0, -1).map((b, k) => s.slice(b + 1, bounds[k + 1]));
        return { start: i, end: j, options };
      }
    }
  }
  return null;
}

/** Splits the glob argument on whitespace and top-level commas ("*.ts,*.tsx" and "*.ts *.tsx" both work). */
export function splitGlobs(arg: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  for (const c of arg) {
    if (c === '{') depth++;
    if (c === '}') depth = Math.max(0, depth - 1);
    if ((/\s/.test(c) || c === ',') && depth === 0) {
      if (cur) out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) out.push(cur);
  return out;
}

/** A predicate on base-relative posix paths combining --glob (gitignore-style, `!` excludes) and --type. */
export function fileFilter(
  globArg: string | undefined,
  type: string | undefined,
): ((relPosix: string) => boolean) | string {
  let include: Ignore | null = null;
  let exclude: Ignore | null = null;
  if (globArg) {
    const pos: string[] = [];
    const neg: string[] = [];
    for (const g of splitGlobs(globArg)) {
      const target = g.startsWith('!') ? neg : pos;
      target.push(...expandBraces(g.startsWith('!') ? g.slice(1) : g));
    }
    // Two matchers, because in one gitignore list a later "!x" cannot re-include a file inside a matched dir.
    if (pos.length) include = ignore().add(pos);
    if (neg.length) exclude = ignore().add(neg);
  }
  let exts: Set<string> | null = null;
  if (type) {
    const list = FILE_TYPES[type];
    if (!list) return `Unknown file type "${type}". Known types: ${Object.keys(FILE_TYPES).join(', ')}. Or use glob.`;
    exts = new Set(list);
  }
  return (rel: string) => {
    if (include && !include.ignores(rel)) return false;
    if (exclude && exclude.ignores(rel)) return false;
    if (exts) {
      const base = rel.slice(rel.lastIndexOf('/') + 1);
      const dot = base.lastIndexOf('.');
      if (dot <= 0 || !exts.has(base.slice(dot + 1))) return false;
    }
    return true;
  };
}

/**
 * Collects matching lines (and their context) line by line. `maxLines` bounds what it keeps: once reached,
 * `full` is set and the caller stops feeding it.
 */
export class LineMatcher {
  matches = 0;
  readonly lines: LineHit[] = [];
  full = false;
  private readonly ring: LineHit[] = [];
  private afterLeft = 0;
  private lastKept = 0;

  constructor(
    private readonly re: RegExp,
    private readonly before: number,
    private readonly after: number,
    private readonly collect: boolean,
    private readonly maxLines: number,
  ) {}

  push(n: number, text: string): void {
    this.re.lastIndex = 0;
    if (this.re.test(text)) {
      this.matches++;
      if (!this.collect) return;
      for (const r of this.ring) if (r.n > this.lastKept) this.keep(r);
      this.ring.length = 0;
      this.keep({ n, text, isMatch: true });
      this.afterLeft = this.after;
    } else if (this.collect && this.afterLeft > 0) {
      this.afterLeft--;
      this.keep({ n, text, isMatch: false });
    } else if (this.collect && this.before > 0) {
      this.ring.push({ n, text, isMatch: false });
      if (this.ring.length > this.before) this.ring.shift();
    }
  }

  private keep(hit: LineHit): void {
    if (this.lines.length >= this.maxLines) {
      this.full = true;
      return;
    }
    this.lines.push(hit);
    this.lastKept = hit.n;
  }
}

/** Multiline search: a match may span lines; every line it touches is a matching line. */
export function searchMultiline(
  text: string,
  lines: string[],
  re: RegExp,
  before: number,
  after: number,
  maxLines: number,
): FileHits {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lineAt = (idx: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= idx) lo = mid;
      else hi = mid - 1;
    }
    return lo; // 0-based
  };
  const matched = new Set<number>();
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const s = m.index;
    const e = s + m[0].length;
    const first = lineAt(s);
    const last = lineAt(Math.max(s, e - 1));
    for (let l = first; l <= last && l < lines.length; l++) matched.add(l);
    if (m[0].length === 0) re.lastIndex++; // never loop on an empty match
  }
  const keep = new Set<number>();
  for (const l of matched)
    for (let k = Math.max(0, l - before); k <= Math.min(lines.length - 1, l + after); k++) keep.add(k);
  const out: LineHit[] = [...keep]
    .sort((a, b) => a - b)
    .slice(0, maxLines)
    .map((l) => ({ n: l + 1, text: lines[l], isMatch: matched.has(l) }));
  return { matches: matched.size, lines: out };
}
