// Where the code symbols that memories name appear in the workspace: for each wanted word (a function,
// class, method or settings-key part), the source files holding it as a whole word. One search finds
// every wanted word at once (`git grep -F -w` with the words as fixed strings on its standard input, or
// outside git a read of each listed file split into words), and a changed file is re-read alone. Words
// are looked up, never compiled into a regular expression, so a memory cannot make the search slow.
// "Defined somewhere" is approximated by "appears in a source file": documentation (Markdown, text,
// changelogs) and lock files are not searched, since they keep old names long after the code dropped them.
import { spawn } from 'node:child_process';
import { lstatSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isWithin, resolveReal } from '../../fs/pathGuard';
import { readInside, type WorkspaceFiles } from './workspaceFiles';

/** Source files bigger than this are not read by the JS search (minified bundles, data). */
const MAX_SOURCE_BYTES = 2_000_000;
/** Words shorter than this are not searched (they are everywhere): treated as present. */
const MIN_WORD = 2;
/**
 * `git grep` with many fixed strings is slow (seconds for 800 words on 10,000 files); beyond this many
 * words one read of every file is faster. A changed memory's few new words go through git grep.
 */
const GIT_GREP_MAX_WORDS = 20;
/** Files read between two yields to the event loop. */
const SLICE = 200;
const DOC_PATHSPECS = [
  '*.md',
  '*.mdx',
  '*.markdown',
  '*.txt',
  '*.rst',
  '*.adoc',
  '*.snap',
  '*.lock',
  'CHANGELOG*',
  'package-lock.json',
  'pnpm-lock.yaml',
];

export interface SymbolIndex {
  /** Words searched for so far. */
  wanted: Set<string>;
  /** Source file -> the wanted words it holds. */
  perFile: Map<string, Set<string>>;
  /** Wanted word -> how many source files hold it. */
  count: Map<string, number>;
}

export function emptySymbolIndex(): SymbolIndex {
  return { wanted: new Set(), perFile: new Map(), count: new Map() };
}

/** The words a symbol reference is looked up by: `A.b` -> A, b; `engram.memory.x` -> engram, memory (x too short). */
export function symbolWords(ref: string): string[] {
  return ref.split('.').filter((w) => w.length >= MIN_WORD && /^[A-Za-z_][A-Za-z0-9_]*$/.test(w));
}

/** Whether a word is found in some source file (words never searched count as found). */
export function hasWord(idx: SymbolIndex, word: string): boolean {
  return !idx.wanted.has(word) || (idx.count.get(word) ?? 0) > 0;
}

/** Documentation and lock files: not where a symbol is defined. */
export function isDocFile(rel: string): boolean {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  return (
    /\.(md|mdx|markdown|txt|rst|adoc|snap|lock)$/i.test(base) ||
    base.startsWith('CHANGELOG') ||
    base === 'package-lock.json' ||
    base === 'pnpm-lock.yaml'
  );
}

/** Searches the whole workspace for the words not searched yet. */
export async function searchWords(ws: WorkspaceFiles, idx: SymbolIndex, words: Iterable<string>): Promise<void> {
  const fresh = [...new Set(words)].filter((w) => !idx.wanted.has(w) && w.length >= MIN_WORD);
  if (fresh.length === 0) return;
  for (const w of fresh) idx.wanted.add(w);
  const found =
    ws.git && fresh.length <= GIT_GREP_MAX_WORDS ? await gitGrep(ws.root, fresh) : await jsSearch(ws, new Set(fresh));
  for (const [file, set] of found) {
    if (!ws.files.has(file)) continue; // a path git grep reports that the listing left out
    let mine = idx.perFile.get(file);
    if (!mine) idx.perFile.set(file, (mine = new Set()));
    for (const w of set) {
      if (mine.has(w)) continue;
      mine.add(w);
      idx.count.set(w, (idx.count.get(w) ?? 0) + 1);
    }
  }
}

/** Re-reads one file (created or changed; gone when it is no longer listed); returns the words whose presence flipped. */
export async function rescanFile(ws: WorkspaceFiles, idx: SymbolIndex, rel: string): Promise<string[]> {
  let now = new Set<string>();
  if (ws.files.has(rel) && !isDocFile(rel) && idx.wanted.size > 0) {
    const text = await readInside(ws.root, rel, MAX_SOURCE_BYTES);
    if (text !== undefined) now = wordsIn(text, idx.wanted);
  }
  const before = idx.perFile.get(rel) ?? new Set<string>();
  const flipped: string[] = [];
  for (const w of before)
    if (!now.has(w)) {
      const n = (idx.count.get(w) ?? 1) - 1;
      idx.count.set(w, n);
      if (n === 0) flipped.push(w);
    }
  for (const w of now)
    if (!before.has(w)) {
      const n = (idx.count.get(w) ?? 0) + 1;
      idx.count.set(w, n);
      if (n === 1) flipped.push(w);
    }
  if (now.size > 0) idx.perFile.set(rel, now);
  else idx.perFile.delete(rel);
  return flipped;
}

function wordsIn(text: string, wanted: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const w of text.split(/[^A-Za-z0-9_]+/)) if (wanted.has(w)) out.add(w);
  return out;
}

/**
 * Reads every listed source file and splits it into words. Synchronous reads in slices of SLICE files
 * with a yield between: for many small files that is several times faster than async reads (which
 * queue on libuv's four threads), and a host's event loop is never held for more than a few ms.
 */
async function jsSearch(ws: WorkspaceFiles, wanted: Set<string>): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const files = [...ws.files].filter((f) => !isDocFile(f));
  const dirs = new Map<string, boolean>();
  for (let start = 0; start < files.length; start += SLICE) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const rel of files.slice(start, start + SLICE)) {
      const text = readListed(ws.root, rel, dirs);
      if (text === undefined) continue;
      const found = wordsIn(text, wanted);
      if (found.size > 0) out.set(rel, found);
    }
  }
  return out;
}

/**
 * A listed file's text, or undefined (missing, too big, binary, or leading out of the workspace). Each
 * folder is checked once to be reached without a symbolic link out; a file that is itself a link is
 * read only when its target is inside the workspace.
 */
function readListed(root: string, rel: string, dirs: Map<string, boolean>): string | undefined {
  const abs = path.join(root, rel);
  const dir = path.dirname(abs);
  let inside = dirs.get(dir);
  if (inside === undefined) dirs.set(dir, (inside = resolveReal(dir, root) === dir));
  if (!inside) return undefined;
  try {
    let target = abs;
    if (lstatSync(abs).isSymbolicLink()) {
      const real = resolveReal(abs, root);
      if (real === null || !isWithin(root, real)) return undefined;
      target = real;
    }
    const st = statSync(target);
    if (!st.isFile() || st.size > MAX_SOURCE_BYTES) return undefined;
    const buf = readFileSync(target);
    return buf.subarray(0, 8000).includes(0) ? undefined : buf.toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * One `git grep` for all the words (fixed strings, whole words, only the matches printed), over tracked
 * and untracked-not-ignored files, documentation left out. Git reads the working tree, not outside it.
 */
function gitGrep(root: string, words: string[]): Promise<Map<string, Set<string>>> {
  const args = [
    '-c',
    'core.quotepath=off',
    'grep',
    '--untracked',
    '--no-recurse-submodules',
    '-I',
    '-F',
    '-w',
    '-o',
    '--null',
    '--no-color',
    '-f',
    '-',
    '--',
    '.',
    ...DOC_PATHSPECS.map((p) => `:(exclude)${p}`),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = new Map<string, Set<string>>();
    let rest = '';
    let err = '';
    const take = (line: string): void => {
      const nul = line.indexOf('\0');
      if (nul < 0) return;
      const file = line.slice(0, nul);
      let set = out.get(file);
      if (!set) out.set(file, (set = new Set()));
      set.add(line.slice(nul + 1));
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) take(l);
    });
    child.stderr.on('data', (c: Buffer) => {
      if (err.length < 2000) err += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (rest !== '') take(rest);
      // 1: nothing matched.
      if (code === 0 || code === 1) resolve(out);
      else reject(new Error(`git grep failed (${code}): ${err.trim()}`));
    });
    child.stdin.on('error', () => {}); // git may exit before reading every word
    child.stdin.end(`${words.join('\n')}\n`);
  });
}
