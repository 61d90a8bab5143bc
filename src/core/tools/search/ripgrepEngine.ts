// The ripgrep engine: Grep through `rg --json`, Glob through `rg --files`, with flags that make ripgrep
// skip exactly what the JavaScript engine skips (jsEngine.ts): .gitignore, .ignore and .rgignore (with or
// without a git repository: --no-require-git), no global gitignore, hidden files searched, .git/.hg/.svn
// and node_modules folders left out, files over the size limit and binary files (a NUL byte) left out.
// ripgrep leaves files out silently; its --debug log names each one ("ignoring PATH: N bytes", "ignoring
// PATH: found binary data at offset N", and the override glob that skipped a folder), so the result can
// count and name them. Results are put in the shared order (searchOrder.ts): ripgrep's own is unordered.
// JSON format: https://docs.rs/grep-printer/latest/grep_printer/struct.JSON.html (begin, match, context,
// end with binary_offset and stats, summary; a path or line that is not UTF-8 comes as base64 `bytes`).
import { lstatSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FILE_TYPES, fileFilter } from '../grepSearch';
import { IgnoreRules, quietlySkippedDir, REPORTED_SKIPPED_DIRS, toPosix } from '../ignoreRules';
import {
  SearchPatternError,
  type FileListing,
  type FileQuery,
  type GrepFileHit,
  type GrepOutcome,
  type GrepQuery,
  type SearchBounds,
  type SearchEngine,
} from '../searchTypes';
import { excludesFor } from './hostExcludes';
import { jsSearchEngine, listing, MtimeReader } from './jsEngine';
import { unsafeForJs } from './regexSafety';
import { runRg } from './rgProcess';
import { folderFilter, globMatcher, globNameTails, keptHits, LeftOutTally, linesEndingWith } from './searchOrder';

/** Folders never searched below the root, as override globs (`!name/` matches a folder at any depth). */
const SKIP_GLOBS = ['.git', '.hg', '.svn', 'node_modules'].map((d) => `!${d}/`);
/** The type name our --type-add defines (the JS engine's FILE_TYPES, so both filter alike). */
const OWN_TYPE = 'engramtype';
/** Paths looked at between two turns of the event loop when telling excluded folders from files. */
const LSTAT_BATCH = 500;
/**
 * ripgrep's walker threads for a listing: one core is left to this process, which reads and matches the
 * listing as it comes (about 80,000 lines on a 100,000-file tree). On two cores, rg on both made Glob 1.7x
 * rg's own filtered listing; on one, 1.2x (test/bench/search.ts).
 */
const LISTING_THREADS = Math.max(1, os.availableParallelism() - 1);
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
async function walkArgs(q: SearchBounds & { root: string }): Promise<string[]> {
  const rules = await IgnoreRules.create(q.root);
  const args = ['--no-config', '--debug', '--hidden', '--no-require-git', '--no-ignore-global'];
  if (!rules.readsParents) args.push('--no-ignore-parent');
  for (const g of SKIP_GLOBS) args.push('--glob', g);
  for (const e of excludesFor(q)) args.push('--glob', `!${e}`);
  return args;
}

/** Reads ripgrep's --debug lines for the files and folders it left out, and keeps its error text. */
class StderrReader {
  errors = '';
  /** Paths ripgrep could not open or read ("rg: PATH: ... (os error 13)"): files among them are named. */
  private readonly failed: string[] = [];
  /** Paths a host exclude glob left out (folders or files: ripgrep's log does not say which). */
  private readonly hostExcluded: string[] = [];

  constructor(
    private readonly root: string,
    private readonly tally: LeftOutTally,
    private readonly keep: (abs: string) => boolean,
    /** Whether a left-out folder is worth naming (Glob: one its pattern could reach). */
    private readonly keepFolder: (abs: string) => boolean = () => true,
  ) {}

  line(l: string): void {
    if (!l.startsWith('rg: DEBUG|')) {
      const failed = /^rg: (.+?): .*\(os error \d+\)$/.exec(l);
      if (failed) this.failed.push(path.resolve(this.root, failed[1]));
      else if (this.errors.length < MAX_ERROR_CHARS) this.errors += `${l}\n`;
      return;
    }
    // An override glob that skipped a path: "ignoring ./a/b: Ignore(IgnoreMatch(Override(Glob(Matched(Glob
    // { from: None, original: \"!**/b\", ...". Ours (SKIP_GLOBS) name node_modules; the others are the host's.
    const m =
      /: ignoring (.+?): (?:(\d+) bytes|found binary data at offset \d+|Ignore\(IgnoreMatch\(Override\(Glob\(Matched\(Glob \{ from: None, original: "(.*?)", actual)/.exec(
        l,
      );
    if (!m) return;
    const abs = path.resolve(this.root, m[1]);
    if (m[3] !== undefined) {
      if (!SKIP_GLOBS.includes(m[3])) this.hostExcluded.push(abs);
      else if (REPORTED_SKIPPED_DIRS.has(path.basename(abs)) && this.keepFolder(abs)) this.tally.add('excluded', abs);
    } else if (this.keep(abs)) this.tally.add(m[2] !== undefined ? 'tooBig' : 'binary', abs);
  }

  /** ripgrep's own words when it refused the pattern, or null. */
  patternError(): string | null {
    const text = this.errors.trim();
    if (!/regex parse error|error parsing|PCRE2|literal .* not allowed/i.test(text)) return null;
    return text.replace(/^rg: /, '');
  }

  /**
   * Names the files ripgrep could not read (unreadable folders are passed by, as the JS walk does), and
   * what the host's excludes left out: every folder (Glob: one its pattern could reach), and the files the
   * search would otherwise have looked at.
   */
  async tallyAfterRun(): Promise<void> {
    for (const abs of this.failed) {
      const st = await fsp.lstat(abs).catch(() => null);
      if (st?.isFile() && this.keep(abs)) this.tally.add('unreadable', abs);
    }
    // ripgrep's log does not say whether a path is a folder. lstatSync costs ~3 µs a path where the
    // promise form costs ~12 (measured on 4,620 excluded files); batches keep the event loop free.
    for (let i = 0; i < this.hostExcluded.length; i += LSTAT_BATCH) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      for (const abs of this.hostExcluded.slice(i, i + LSTAT_BATCH)) {
        const isDir = lstatSync(abs, { throwIfNoEntry: false })?.isDirectory() ?? false;
        if (isDir && quietlySkippedDir(path.basename(abs))) continue;
        if (isDir ? this.keepFolder(abs) : this.keep(abs)) this.tally.add('hostExcluded', abs, isDir);
      }
    }
  }
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
  // Content and count come in walk order (--sort path: one thread), so ripgrep can stop once the page is
  // full; files_with_matches needs every file anyway (newest first), so ripgrep runs on all threads.
  // --count reads each file to the end, so a NUL byte anywhere makes it binary, as in the JS engine.
  // (--count counts a multiline match once; the JS engine, like ripgrep's JSON stats, counts its lines.)
  const json = content || (q.mode === 'count' && q.multiline);
  const args = json ? ['--json'] : ['--count', '--with-filename'];
  args.push('--crlf', '--engine', 'auto');
  if (q.mode !== 'files_with_matches') args.push('--sort', 'path');
  if (isDir) args.push(...(await walkArgs(q)), '--max-filesize', String(q.maxFileBytes));
  else args.push('--no-config');
  if (q.ignoreCase) args.push('--ignore-case');
  if (q.multiline) args.push('--multiline', '--multiline-dotall');
  if (content && q.before > 0) args.push('--before-context', String(q.before));
  if (content && q.after > 0) args.push('--after-context', String(q.after));
  if (q.type && FILE_TYPES[q.type])
    for (const ext of FILE_TYPES[q.type]) args.push('--type-add', `${OWN_TYPE}:*.${ext}`);
  if (q.type) args.push('--type', OWN_TYPE);
  args.push('--regexp', q.pattern, '--', isDir ? '.' : q.root);

  const perFile = Number.isFinite(q.wanted) ? q.wanted + 1 : Number.MAX_SAFE_INTEGER;
  const hits: GrepFileHit[] = [];
  let held = 0;
  let stop = (): void => undefined;
  const times = new MtimeReader(signal);
  const found = (abs: string, matches: number, lines: GrepFileHit['lines']): void => {
    times.add(abs); // read while ripgrep still searches
    hits.push({ path: abs, mtimeMs: 0, matches: q.mode === 'files_with_matches' ? 1 : matches, lines });
    held += content ? lines.length : 1;
    if (q.mode !== 'files_with_matches' && held > q.wanted) stop(); // in walk order: the rest sorts after
  };
  const open = new Map<string, GrepFileHit['lines']>();
  const onJson = (line: string): void => {
    const type = /^\{"type":"(\w+)"/.exec(line)?.[1];
    if (type === 'summary' || type === undefined) return;
    if (!content && (type === 'match' || type === 'context')) return; // the count comes with `end`
    const msg = JSON.parse(line) as { data: RgMessage };
    const abs = path.resolve(q.root, textOf(msg.data.path));
    if (type === 'begin') {
      if (wanted(abs)) open.set(abs, []);
      return;
    }
    const lines = open.get(abs);
    if (!lines) return;
    if (type === 'end') {
      open.delete(abs);
      // A NUL byte after the first matches: the file is binary (the log names it).
      if (msg.data.binary_offset === null || msg.data.binary_offset === undefined)
        found(abs, msg.data.stats?.matched_lines ?? 0, lines);
      return;
    }
    const first = msg.data.line_number ?? 0;
    const texts = splitRgLines(textOf(msg.data.lines));
    for (let i = 0; i < texts.length && lines.length < perFile; i++)
      lines.push({ line: first + i, text: texts[i], isMatch: type === 'match' });
  };
  const onCount = (line: string): void => {
    const colon = line.lastIndexOf(':');
    if (colon <= 0) return;
    const abs = path.resolve(q.root, line.slice(0, colon));
    if (wanted(abs)) found(abs, Number(line.slice(colon + 1)), []);
  };
  const run = await runRg(rgPath, args, isDir ? q.root : path.dirname(q.root), signal, q.timeLimitMs, {
    onStdout: json ? onJson : onCount,
    onStderr: (l) => stderr.line(l),
    started: (s) => {
      stop = s;
    },
  });
  await stderr.tallyAfterRun();
  if (run.code === 2 && hits.length === 0 && stderr.errors.trim() !== '') {
    const words = stderr.patternError();
    if (words) throw new SearchPatternError(`ripgrep cannot use this pattern: ${words}`);
    if (!signal.aborted && !run.timedOut)
      throw new Error(`ripgrep failed: ${stderr.errors.trim() || `exit code ${run.code}`}`);
  }
  const mtimes = new Map((await times.all()).map((e) => [e.path, e.mtimeMs]));
  for (const h of hits) h.mtimeMs = mtimes.get(h.path) ?? 0;
  const final = keptHits(hits, q.mode, q.wanted);
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
  const couldHold = folderFilter(q.pattern);
  const tally = new LeftOutTally();
  const relOf = (abs: string): string => toPosix(path.relative(q.root, abs));
  const stderr = new StderrReader(
    q.root,
    tally,
    (abs) => match(relOf(abs)),
    (abs) => couldHold(relOf(abs)),
  );
  const times = new MtimeReader(signal, q.namesOnly);
  const args = ['--files', '--threads', String(LISTING_THREADS), ...(await walkArgs(q)), '--', '.'];
  // rg prints clean relative paths: outside Windows (where the separator is rewritten) the root is only
  // prefixed, without path.join's normalising, a cost on 100,000 lines.
  const prefix = q.root.endsWith(path.sep) ? q.root : q.root + path.sep;
  const absolute = (rel: string): string => (path.sep === '/' ? prefix + rel : path.join(q.root, rel));
  const tails = globNameTails(q.pattern);
  const run = await runRg(rgPath, args, q.root, signal, q.timeLimitMs, {
    pickStdout: tails ? linesEndingWith(tails) : undefined,
    onStdout: (line) => {
      const rel = line.startsWith('./') ? line.slice(2) : toPosix(line.replace(/^\.\\/, '')); // `.\a\b` on Windows
      if (match(rel)) times.add(absolute(rel));
    },
    onStderr: (l) => stderr.line(l),
  });
  await stderr.tallyAfterRun();
  const files = await times.all();
  if (run.code === 2 && files.length === 0 && stderr.errors.trim() !== '' && !signal.aborted && !run.timedOut)
    throw new Error(`ripgrep failed: ${stderr.errors.trim() || `exit code ${run.code}`}`);
  return listing('ripgrep', files, q, tally, run.timedOut);
}
