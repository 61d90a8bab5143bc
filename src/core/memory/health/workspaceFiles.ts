// What a reference check knows of the workspace's files: the list of paths that count (tracked by git,
// or present and not ignored), the folders they make, a lookup by base name, the .gitignore rules, and
// the package.json scripts and Makefile targets. Listed once (`git ls-files`, or a walk that honours
// .gitignore outside a repository) and then kept up to date from file events. Nothing outside the
// workspace is listed or read: the walk never descends a symbolic link, and a manifest is read only when
// it resolves inside the workspace.
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isWithin, resolveReal } from '../../fs/pathGuard';

/** Folders never listed by the walk (and never checked as references). */
export const ALWAYS_SKIPPED = new Set(['.git', 'node_modules']);
/** A walk outside git stops here (and says so): a workspace this big without git is not a project. */
const MAX_WALK_FILES = 200_000;
/** Manifests bigger than this are not parsed. */
const MAX_MANIFEST_BYTES = 2_000_000;

export interface WorkspaceFiles {
  /** The workspace folder, symlinks resolved. */
  root: string;
  git: boolean;
  /** Relative paths with forward slashes. */
  files: Set<string>;
  /** Every folder holding a listed file, with how many files it holds (the root is not listed). */
  dirs: Map<string, number>;
  /** Base name -> the listed files and folders of that name. */
  byBase: Map<string, Set<string>>;
  /** Whether .gitignore (and .git/info/exclude) ignores a relative path. */
  ignores: Ignore;
  /** Script name -> the package.json files that define it. */
  scripts: Map<string, Set<string>>;
  /** Target -> the Makefiles that define it. */
  targets: Map<string, Set<string>>;
  /** package.json files and Makefiles found (for "no package.json in the workspace"). */
  manifests: { packageJson: number; makefiles: number };
  /** Said when the listing is incomplete. */
  notes: string[];
  /** Per manifest, what it defined (to undo it when the manifest changes). */
  manifestDefs: Map<string, string[]>;
}

/** Lists the workspace at `rootDir`: through git when it is a repository, else by a walk. */
export async function listWorkspace(rootDir: string): Promise<WorkspaceFiles> {
  const root = resolveReal(path.resolve(rootDir)) ?? path.resolve(rootDir);
  const ws: WorkspaceFiles = {
    root,
    git: false,
    files: new Set(),
    dirs: new Map(),
    byBase: new Map(),
    ignores: ignore(),
    scripts: new Map(),
    targets: new Map(),
    manifests: { packageJson: 0, makefiles: 0 },
    notes: [],
    manifestDefs: new Map(),
  };
  const listed = await gitListing(root);
  if (listed) {
    ws.git = true;
    addPaths(ws, listed);
  } else {
    await walk(ws);
  }
  await loadIgnores(ws);
  for (const f of ws.files) if (isManifest(f)) await readManifest(ws, f);
  return ws;
}

/** `git ls-files` (tracked and untracked-not-ignored, minus deleted), or undefined when not a repository root. */
async function gitListing(root: string): Promise<string[] | undefined> {
  try {
    const top = (await git(root, ['rev-parse', '--show-toplevel'])).trim();
    if ((resolveReal(top) ?? top) !== root) return undefined; // a folder inside a repository: walk it
    const [listed, gone] = await Promise.all([
      git(root, ['ls-files', '-z', '-c', '-o', '--exclude-standard']),
      git(root, ['ls-files', '-z', '-d']),
    ]);
    const present = listed.split('\0');
    const deleted = new Set(gone.split('\0'));
    return [...new Set(present)].filter((f) => f !== '' && !deleted.has(f));
  } catch {
    return undefined;
  }
}

/**
 * Settings every git run here starts with: names as they are (no quoting), and no fsmonitor hook, a command
 * a repository's own config could name, which a memory check must never start.
 */
export const GIT_SAFE_CONFIG = ['-c', 'core.quotepath=off', '-c', 'core.fsmonitor=false'];

/** Runs git in `cwd` and returns its standard output; rejects on failure. */
export function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...GIT_SAFE_CONFIG, ...args],
      { cwd, maxBuffer: 512 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

async function walk(ws: WorkspaceFiles): Promise<void> {
  const pending: Array<{ rel: string; rules: Ignore[] }> = [{ rel: '', rules: [] }];
  while (pending.length > 0) {
    const { rel, rules: parentRules } = pending.pop() as { rel: string; rules: Ignore[] };
    const abs = path.join(ws.root, rel);
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fsp.readdir(abs, { withFileTypes: true });
    } catch {
      continue;
    }
    const rules = [...parentRules];
    const own = entries.find((e) => e.name === '.gitignore' && e.isFile());
    if (own) rules.push(await ignoreFileAt(ws.root, rel));
    for (const e of entries) {
      const child = rel === '' ? e.name : `${rel}/${e.name}`;
      if (ALWAYS_SKIPPED.has(e.name)) continue;
      const isDir = e.isDirectory(); // a symbolic link is never a directory here: never descended
      if (rules.some((r) => r.ignores(isDir ? `${child}/` : child))) continue;
      if (isDir) pending.push({ rel: child, rules });
      else if (ws.files.size >= MAX_WALK_FILES) {
        ws.notes.push(`only the first ${MAX_WALK_FILES} files of the workspace were listed`);
        return;
      } else addPath(ws, child);
    }
  }
}

/** The rules of `<rel>/.gitignore`, rewritten to apply to paths relative to the root. */
async function ignoreFileAt(root: string, rel: string): Promise<Ignore> {
  const text = await readInside(root, rel === '' ? '.gitignore' : `${rel}/.gitignore`, MAX_MANIFEST_BYTES);
  const ig = ignore();
  if (text === undefined) return ig;
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('#'));
  if (rel === '') return ig.add(lines);
  // Nested rules: anchored ones are relative to their folder; unanchored ones match anywhere below it.
  for (const line of lines) {
    const neg = line.startsWith('!');
    const body = neg ? line.slice(1) : line;
    const anchored = body.replace(/\/$/, '').includes('/');
    const scoped = anchored ? `${rel}/${body.replace(/^\//, '')}` : `${rel}/**/${body}`;
    ig.add(`${neg ? '!' : ''}${scoped}`);
  }
  return ig;
}

/** Loads every listed .gitignore (and .git/info/exclude) into one matcher, for paths relative to the root. */
async function loadIgnores(ws: WorkspaceFiles): Promise<void> {
  const ig = ignore();
  for (const f of [...ws.files].filter((x) => x === '.gitignore' || x.endsWith('/.gitignore')).sort()) {
    ig.add(await ignoreFileAt(ws.root, f === '.gitignore' ? '' : f.slice(0, -'/.gitignore'.length)));
  }
  if (ws.git) {
    const exclude = await readInside(ws.root, '.git/info/exclude', MAX_MANIFEST_BYTES);
    if (exclude) ig.add(exclude.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('#')));
  }
  ws.ignores = ig;
}

/** Whether a relative path is ignored (false for paths the `ignore` package cannot take). */
export function isIgnored(ws: WorkspaceFiles, rel: string): boolean {
  const first = rel.split('/')[0];
  if (ALWAYS_SKIPPED.has(first)) return true;
  try {
    return ws.ignores.ignores(rel) || ws.ignores.ignores(`${rel}/`);
  } catch {
    return false;
  }
}

/** Adds a listed file and its folders. */
export function addPath(ws: WorkspaceFiles, rel: string): void {
  if (ws.files.has(rel)) return;
  ws.files.add(rel);
  addBase(ws, rel);
  for (let d = parentOf(rel); d !== ''; d = parentOf(d)) {
    const n = ws.dirs.get(d) ?? 0;
    ws.dirs.set(d, n + 1);
    if (n === 0) addBase(ws, d);
  }
}

/**
 * Adds the files of a listing: as addPath for each, but each folder's count is raised once per folder
 * rather than once per file below it (on 100,000 files, a few thousand map updates instead of 500,000).
 */
function addPaths(ws: WorkspaceFiles, rels: Iterable<string>): void {
  const perDir = new Map<string, number>();
  for (const rel of rels) {
    if (ws.files.has(rel)) continue;
    ws.files.add(rel);
    addBase(ws, rel);
    const dir = parentOf(rel);
    if (dir !== '') perDir.set(dir, (perDir.get(dir) ?? 0) + 1);
  }
  for (const [dir, added] of perDir)
    for (let d = dir; d !== ''; d = parentOf(d)) {
      const n = ws.dirs.get(d) ?? 0;
      ws.dirs.set(d, n + added);
      if (n === 0) addBase(ws, d);
    }
}

/** Removes a listed file (and folders left empty). */
export function removePath(ws: WorkspaceFiles, rel: string): void {
  if (!ws.files.delete(rel)) return;
  removeBase(ws, rel);
  for (let d = parentOf(rel); d !== ''; d = parentOf(d)) {
    const n = (ws.dirs.get(d) ?? 1) - 1;
    if (n > 0) ws.dirs.set(d, n);
    else {
      ws.dirs.delete(d);
      removeBase(ws, d);
    }
  }
}

function parentOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
}

export function baseOf(rel: string): string {
  return rel.slice(rel.lastIndexOf('/') + 1);
}

function addBase(ws: WorkspaceFiles, rel: string): void {
  const b = baseOf(rel);
  let set = ws.byBase.get(b);
  if (!set) ws.byBase.set(b, (set = new Set()));
  set.add(rel);
}

function removeBase(ws: WorkspaceFiles, rel: string): void {
  const set = ws.byBase.get(baseOf(rel));
  set?.delete(rel);
  if (set?.size === 0) ws.byBase.delete(baseOf(rel));
}

export function isManifest(rel: string): boolean {
  const b = baseOf(rel);
  return b === 'package.json' || isMakefile(b);
}

function isMakefile(base: string): boolean {
  return base === 'Makefile' || base === 'makefile' || base === 'GNUmakefile' || base.endsWith('.mk');
}

/** (Re)reads one manifest's scripts or targets; a missing or broken manifest defines nothing. */
export async function readManifest(ws: WorkspaceFiles, rel: string): Promise<void> {
  forgetManifest(ws, rel);
  const text = ws.files.has(rel) ? await readInside(ws.root, rel, MAX_MANIFEST_BYTES) : undefined;
  if (text === undefined) return;
  const pkg = baseOf(rel) === 'package.json';
  const names = pkg ? packageScripts(text) : makeTargets(text);
  const into = pkg ? ws.scripts : ws.targets;
  if (pkg) ws.manifests.packageJson++;
  else ws.manifests.makefiles++;
  for (const n of names) {
    let set = into.get(n);
    if (!set) into.set(n, (set = new Set()));
    set.add(rel);
  }
  ws.manifestDefs.set(rel, names);
}

function forgetManifest(ws: WorkspaceFiles, rel: string): void {
  const old = ws.manifestDefs.get(rel);
  if (!old) return;
  const pkg = baseOf(rel) === 'package.json';
  const from = pkg ? ws.scripts : ws.targets;
  for (const n of old) {
    from.get(n)?.delete(rel);
    if (from.get(n)?.size === 0) from.delete(n);
  }
  if (pkg) ws.manifests.packageJson--;
  else ws.manifests.makefiles--;
  ws.manifestDefs.delete(rel);
}

function packageScripts(text: string): string[] {
  try {
    const json = JSON.parse(text) as { scripts?: unknown };
    const scripts = json?.scripts;
    return scripts && typeof scripts === 'object' ? Object.keys(scripts) : [];
  } catch {
    return [];
  }
}

function makeTargets(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^([A-Za-z0-9_./%-][A-Za-z0-9_./%\s-]*?)\s*::?(?!=)/.exec(line);
    if (!m) continue;
    for (const t of m[1].split(/\s+/)) if (t !== '' && !t.includes('%')) out.add(t);
  }
  return [...out];
}

/**
 * The text of a file of the workspace, or undefined when it is missing, too big, binary, or resolves
 * (through symbolic links) outside the workspace: nothing outside is ever read.
 */
export async function readInside(root: string, rel: string, maxBytes: number): Promise<string | undefined> {
  const abs = path.join(root, rel);
  const real = resolveReal(abs, root);
  if (real === null || !isWithin(root, real)) return undefined;
  try {
    const st = await fsp.stat(real);
    if (!st.isFile() || st.size > maxBytes) return undefined;
    const buf = await fsp.readFile(real);
    if (buf.subarray(0, 8000).includes(0)) return undefined;
    return buf.toString('utf8');
  } catch {
    return undefined;
  }
}
