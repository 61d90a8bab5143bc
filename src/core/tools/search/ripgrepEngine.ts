// The ripgrep engine: Grep through `rg --json`, Glob through `rg --files`, with flags that make ripgrep
// skip exactly what the JavaScript engine skips (jsEngine.ts): .gitignore, .ignore and .rgignore (with or
// without a git repository: --no-require-git), no global gitignore, hidden files searched, .git/.hg/.svn
// and node_modules folders left out, files over the size limit and binary files (a NUL byte) left out.
// ripgrep leaves files out silently; its --debug log names each one ("ignoring PATH: N bytes", "ignoring
// PATH: found binary data at offset N", and the override glob that skipped a folder), so the result can
// count and name them. Results are put in the shared order (searchOrder.ts): ripgrep's own is unordered.
// JSON format: https://docs.rs/grep-printer/latest/grep_printer/struct.JSON.html (begin, match, context,
// end with binary_offset and stats, summary; a path or line that is not UTF-8 comes as base64 `bytes`).
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { FILE_TYPES, fileFilter } from '../grepSearch';
import { IgnoreRules, REPORTED_SKIPPED_DIRS, toPosix } from '../ignoreRules';
import {
  SearchPatternError,
  type FileListing,
  type FileQuery,
  type GrepFileHit,
  type GrepOutcome,
  type GrepQuery,
  type SearchEngine,
} from '../searchTypes';
import { jsSearchEngine, listing, withMtimes } from './jsEngine';
import { unsafeForJs } from './regexSafety';
import { runRg } from './rgProcess';
import { globMatcher, keptHits, LeftOutTally } from './searchOrder';

/** Folders never searched below the root, as override globs (`!name/` matches a folder at any depth). */
const SKIP_GLOBS = ['.git', '.hg', '.svn', 'node_modules'].map((d) => `!${d}/`);
/** The type name our --type-add defines (the JS engine's FILE_TYPES, so both filter alike). */
const OWN_TYPE = 'engramtype';
/** Kept stderr (ripgrep's error text) at most, in characters. */
const MAX_ERROR_CHARS = 4000;

interface RgText {
  text?: string;
  bytes?: string;
}

/** A ripgrep engine running the binary at `rgPath` (checked by the caller: createSearchEngine). */
export function ripgrepSearchEngine(rgPath: string, detail: string): SearchEngine {
  return {
    name: 'ripgrep',
    detail,
    grep: (q, signal) => rgGrep(rgPath, q, signal),
    files: (q, signal) => rgFiles(rgPath, q, signal),
  };
}

function textOf(t: RgText | undefined): string {
  if (!t) return '';
  return t.text ?? Buffer.from(t.bytes ?? '', 'base64').toString('utf8');
}

/** The flags that make ripgrep walk the tree as IgnoreRules does. */
async function walkArgs(root: string, excludes: readonly string[]): Promise<string[]> {
  const rules = await IgnoreRules.create(root);
  const args = ['--no-config', '--debug', '--hidden', '--no-require-git', '--no-ignore-global'];
  if (!rules.readsParents) args.push('--no-ignore-parent');
  for (const g of SKIP_GLOBS) args.push('--glob', g);
  for (const e of excludes) if (e.trim() !== '' && !e.startsWith('!')) args.push('--glob', `!${e}`);
  return args;
}

/** Reads ripgrep's --debug lines for the files and folders it left out, and keeps its error text. */
class StderrReader {
  errors = '';

  constructor(
    private readonly root: string,
    private readonly tally: LeftOutTally,
    private readonly keep: (abs: string) => boolean,
  ) {}

  line(l: string): void {
    if (!l.startsWith('rg: DEBUG|')) {
      if (this.errors.length < MAX_ERROR_CHARS) this.errors += `${l}\n`;
      return;
    }
    const m =
      /: ignoring (.+?): (?:(\d+) bytes|found binary data at offset \d+|Ignore\(IgnoreMatch\(Override\(Glob\(Matched\(Glob \{ from: None, original: "!([^"/]+)\/")/.exec(
        l,
      );
    if (!m) return;
    const abs = path.resolve(this.root, m[1]);
    if (m[3] !== undefined) {
      if (REPORTED_SKIPPED_DIRS.has(m[3])) this.tally.add('excluded', abs);
    } else if (this.keep(abs)) this.tally.add(m[2] !== undefined ? 'tooBig' : 'binary', abs);
  }

  /** ripgrep's own words when it refused the pattern, or null. */
  patternError(): string | null {
    const text = this.errors.trim();
    if (!/regex parse error|error parsing|PCRE2|literal .* not allowed|regex/i.test(text)) return null;
    return text.replace(/^rg: /, '');
  }
}

interface OpenFile {
  abs: string;
  lines: GrepFileHit['lines'];
}

async function rgGrep(rgPath: string, q: GrepQuery, signal: AbortSignal): Promise<GrepOutcome> {
  const st = await fsp.stat(q.root);
  // One named file: the JavaScript engine's answer (it streams big files and names binary ones), unless
  // the pattern is one only ripgrep may run.
  if (!st.isDirectory() && !unsafeForJs(q.pattern)) return jsSearchEngine().grep(q, signal);
  const filter = fileFilter(q.glob, q.type);
  if (typeof filter === 'string') throw new SearchPatternError(filter);
  const isDir = st.isDirectory();
  const rel = (abs: string): string => toPosix(path.relative(q.root, abs));
  const wanted = (abs: string): boolean => !isDir || filter(rel(abs));
  const tally = new LeftOutTally();
  const stderr = new StderrReader(q.root, tally, wanted);
  const content = q.mode === 'content';
  const args = ['--json', '--crlf', '--engine', 'auto'];
  if (isDir) args.push(...(await walkArgs(q.root, q.excludes)), '--max-filesize', String(q.maxFileBytes));
  else args.push('--no-config');
  if (q.ignoreCase) args.push('--ignore-case');
  if (q.multiline) args.push('--multiline', '--multiline-dotall');
  if (content && q.before > 0) args.push('--before-context', String(q.before));
  if (content && q.after > 0) args.push('--after-context', String(q.after));
  if (q.mode === 'files_with_matches') args.push('--max-count', '1');
  if (q.type && FILE_TYPES[q.type])
    for (const ext of FILE_TYPES[q.type]) args.push('--type-add', `${OWN_TYPE}:*.${ext}`);
  if (q.type) args.push('--type', OWN_TYPE);
  args.push('--regexp', q.pattern, '--', isDir ? '.' : q.root);

  const perFile = Number.isFinite(q.wanted) ? q.wanted + 1 : Number.MAX_SAFE_INTEGER;
  let hits: GrepFileHit[] = [];
  let held = 0;
  const open = new Map<string, OpenFile>();
  const onStdout = (line: string): void => {
    const type = /^\{"type":"(\w+)"/.exec(line)?.[1];
    if (type === 'summary' || type === undefined) return;
    if (!content && (type === 'match' || type === 'context')) return; // counts come with `end`
    const msg = JSON.parse(line) as { data: RgMessage };
    const abs = path.resolve(q.root, textOf(msg.data.path));
    if (type === 'begin') {
      if (wanted(abs)) open.set(abs, { abs, lines: [] });
      return;
    }
    const f = open.get(abs);
    if (!f) return;
    if (type === 'end') {
      open.delete(abs);
      if (msg.data.binary_offset !== null && msg.data.binary_offset !== undefined) return; // named from the log
      const matches = msg.data.stats?.matched_lines ?? 0;
      hits.push({ path: abs, mtimeMs: 0, matches, lines: f.lines });
      held += content ? f.lines.length : 1;
      // Files arrive in any order: once well over the page, drop what sorts after the cut for good.
      if (Number.isFinite(q.wanted) && q.mode !== 'files_with_matches' && held > 2 * q.wanted + 1000) {
        hits = keptHits(hits, q.mode, q.wanted).files;
        held = hits.reduce((n, h) => n + (content ? h.lines.length : 1), 0);
      }
      return;
    }
    const first = msg.data.line_number ?? 0;
    const texts = splitRgLines(textOf(msg.data.lines));
    for (let i = 0; i < texts.length && f.lines.length < perFile; i++)
      f.lines.push({ line: first + i, text: texts[i], isMatch: type === 'match' });
  };
  const run = await runRg(rgPath, args, isDir ? q.root : path.dirname(q.root), signal, q.timeLimitMs, {
    onStdout,
    onStderr: (l) => stderr.line(l),
  });
  if (run.code === 2 && hits.length === 0) {
    const words = stderr.patternError();
    if (words) throw new SearchPatternError(`ripgrep cannot use this pattern: ${words}`);
    if (!run.stopped && !run.timedOut)
      throw new Error(`ripgrep failed: ${stderr.errors.trim() || `exit code ${run.code}`}`);
  }
  const kept = keptHits(hits, 'content', Number.POSITIVE_INFINITY); // walk order, nothing cut yet
  const withTimes = await withMtimes(
    kept.files.map((h) => h.path),
    signal,
  );
  const times = new Map(withTimes.map((e) => [e.path, e.mtimeMs]));
  for (const h of kept.files) h.mtimeMs = times.get(h.path) ?? 0;
  const final = keptHits(kept.files, q.mode, q.wanted);
  return {
    engine: 'ripgrep',
    files: final.files,
    leftOut: tally.list(final.stoppedAt),
    truncated: final.truncated,
    timedOut: run.timedOut,
  };
}

interface RgMessage {
  path?: RgText;
  lines?: RgText;
  line_number?: number;
  binary_offset?: number | null;
  stats?: { matched_lines?: number };
}

/** A match or context message's text as lines: one, or several for a multiline match; terminators cut. */
function splitRgLines(text: string): string[] {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return body.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

async function rgFiles(rgPath: string, q: FileQuery, signal: AbortSignal): Promise<FileListing> {
  const match = globMatcher(q.pattern);
  const tally = new LeftOutTally();
  const stderr = new StderrReader(q.root, tally, () => false);
  const found: string[] = [];
  const args = ['--files', ...(await walkArgs(q.root, q.excludes)), '--', '.'];
  const run = await runRg(rgPath, args, q.root, signal, q.timeLimitMs, {
    onStdout: (line) => {
      const rel = line.startsWith('./') ? line.slice(2) : line;
      if (match(rel)) found.push(path.join(q.root, rel));
    },
    onStderr: (l) => stderr.line(l),
  });
  if (run.code === 2 && found.length === 0 && !run.stopped && !run.timedOut)
    throw new Error(`ripgrep failed: ${stderr.errors.trim() || `exit code ${run.code}`}`);
  return listing('ripgrep', found, q, tally, run.timedOut, signal);
}
