// Ignore files for Glob and Grep, so searches skip build output and dependencies the way git and ripgrep
// do. Rules come from every .rgignore, .ignore and .gitignore between the git root and the searched path
// (plus .git/info/exclude); within one kind a deeper file overrides a higher one, and a kind overrides the
// ones after it at any depth (.rgignore, then .ignore, then .gitignore, then .git/info/exclude: ripgrep's
// order, so the ripgrep engine and the JavaScript one skip the same files). Nothing inside an ignored
// directory can be re-included (git's rule).
import { existsSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isErrno } from '../fs/errno';

/** Never searched below the search root: VCS internals and installed dependencies are noise. */
export const ALWAYS_SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', 'node_modules']);
/** Of those, the ones a search names when it leaves one out (VCS internals are never of interest). */
export const REPORTED_SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules']);

/**
 * Whether a folder of this name is left out without a word, whatever leaves it out: VCS internals are
 * skipped anyway, so the editor's `**\/.git` exclude (VS Code's default) has nothing to say about them.
 */
export function quietlySkippedDir(name: string): boolean {
  return ALWAYS_SKIPPED_DIRS.has(name) && !REPORTED_SKIPPED_DIRS.has(name);
}

/** The ignore files, highest precedence first (ripgrep's order); `.git/info/exclude` comes last, at the top only. */
const IGNORE_KINDS = ['.rgignore', '.ignore', '.gitignore'] as const;
const GIT_EXCLUDE = path.join('.git', 'info', 'exclude');

export class IgnoreRules {
  private readonly rules = new Map<string, Promise<Array<Ignore | null>>>();
  private readonly dirVerdicts = new Map<string, Promise<boolean>>();
  /** Per folder (and where rules start), the levels above it that have ignore files: most have none. */
  private readonly chains = new Map<string, Promise<RuleLevel[]>>();

  private constructor(
    /** The git root, or the search root when there is no repository. */
    private readonly top: string,
    /** The search root: always searched, even when a rule ignores it. */
    private readonly base: string,
    /** Whether .gitignore files above the search root apply (not when the root itself is ignored). */
    private useAncestors: boolean,
  ) {}

  static async create(baseDir: string): Promise<IgnoreRules> {
    const base = path.resolve(baseDir);
    const top = (await findGitRoot(base)) ?? base;
    const r = new IgnoreRules(top, base, true);
    // Someone who searches inside an ignored folder (dist/, a vendored tree) means to search it.
    if (base !== top && (await r.baseIgnoredFromAbove())) r.useAncestors = false;
    return r;
  }

  /** Whether ignore files above the search root apply (the ripgrep engine passes --no-ignore-parent if not). */
  get readsParents(): boolean {
    return this.useAncestors && this.top !== this.base;
  }

  /** Whether a path below the search root is excluded (by a skipped dir or an ignore rule). */
  async isIgnored(absPath: string, isDir: boolean): Promise<boolean> {
    const abs = path.resolve(absPath);
    if (!isInside(this.base, abs) || abs === this.base) return false;
    if (await this.dirIgnored(path.dirname(abs))) return true;
    if (isDir && ALWAYS_SKIPPED_DIRS.has(path.basename(abs))) return true;
    return this.evaluate(abs, isDir, this.useAncestors ? this.top : this.base);
  }

  private dirIgnored(dir: string): Promise<boolean> {
    if (dir === this.base || !isInside(this.base, dir)) return Promise.resolve(false);
    let v = this.dirVerdicts.get(dir);
    if (!v) {
      v = this.isIgnored(dir, true);
      this.dirVerdicts.set(dir, v);
    }
    return v;
  }

  /**
   * Applies the rule files from `from` down to the path's parent: per kind the deepest rule that says
   * something decides, and the first kind that says something wins.
   */
  private async evaluate(abs: string, isDir: boolean, from: string): Promise<boolean> {
    const chain = await this.chainOf(from, path.dirname(abs));
    for (let kind = 0; kind <= IGNORE_KINDS.length; kind++) {
      for (let i = chain.length - 1; i >= 0; i--) {
        const ig = chain[i].sets[kind];
        if (!ig) continue;
        const rel = toPosix(path.relative(chain[i].level, abs)) + (isDir ? '/' : '');
        const r = ig.test(rel);
        if (r.ignored) return true;
        if (r.unignored) return false;
      }
    }
    return false;
  }

  private async baseIgnoredFromAbove(): Promise<boolean> {
    for (const dir of levelsBetween(this.top, this.base).slice(1)) {
      if (ALWAYS_SKIPPED_DIRS.has(path.basename(dir))) return true;
      if (await this.evaluate(dir, true, this.top)) return true;
    }
    return false;
  }

  private chainOf(from: string, dir: string): Promise<RuleLevel[]> {
    const key = `${from}\0${dir}`;
    let chain = this.chains.get(key);
    if (!chain) {
      const levels = levelsBetween(from, dir);
      chain = Promise.all(levels.map((l) => this.rulesOf(l))).then((sets) =>
        levels.map((level, i) => ({ level, sets: sets[i] })).filter((l) => l.sets.some((ig) => ig !== null)),
      );
      this.chains.set(key, chain);
    }
    return chain;
  }

  private rulesOf(dir: string): Promise<Array<Ignore | null>> {
    let p = this.rules.get(dir);
    if (!p) {
      const files = [
        ...IGNORE_KINDS.map((k) => path.join(dir, k)),
        dir === this.top ? path.join(dir, GIT_EXCLUDE) : '',
      ];
      // Most folders have no ignore file: existsSync answers that without the cost of a failed open.
      p = Promise.all(files.map((f) => (f && existsSync(f) ? loadRules(f) : null)));
      this.rules.set(dir, p);
    }
    return p;
  }
}

/** A folder with ignore files, and its rules by kind (IGNORE_KINDS, then .git/info/exclude). */
interface RuleLevel {
  level: string;
  sets: Array<Ignore | null>;
}

async function loadRules(file: string): Promise<Ignore | null> {
  try {
    return ignore().add(await fsp.readFile(file, 'utf8'));
  } catch (err) {
    if (!isErrno(err, 'ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES')) throw err;
    return null;
  }
}

export async function findGitRoot(start: string): Promise<string | null> {
  let dir = path.resolve(start);
  for (;;) {
    try {
      await fsp.stat(path.join(dir, '.git'));
      return dir;
    } catch {
      // keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** `from` and every directory below it down to `to` (inclusive), or just `to` when it is not below `from`. */
function levelsBetween(from: string, to: string): string[] {
  if (!isInside(from, to)) return [to];
  const out = [from];
  const rel = path.relative(from, to);
  if (rel === '') return out;
  let cur = from;
  for (const seg of rel.split(path.sep)) {
    cur = path.join(cur, seg);
    out.push(cur);
  }
  return out;
}

export function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

/** What a walk reports besides files: folders it left out, and the host's excludes. */
export interface WalkOptions {
  /** Folders never entered (e.g. /proc below a search of /), silently. */
  skipDir?: (abs: string) => boolean;
  /** Called for each folder left out by REPORTED_SKIPPED_DIRS (node_modules), so the search can say so. */
  onSkippedDir?: (abs: string) => void;
  /** The host's excludes (gitignore-like globs relative to `base`), applied to files and folders. */
  excludes?: Ignore | null;
  /** Called for each folder or file the host's excludes left out, so the search can name it. */
  onExcluded?: (abs: string, isDir: boolean) => void;
}

/**
 * Names in ripgrep's --sort path order: by their UTF-8 bytes (which is UTF-16 order too, except for
 * characters past U+D7FF).
 */
export function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  if (/[\ud800-\uffff]/.test(a + b)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : 1;
}

/**
 * Yields the files below `base` in ripgrep's --sort path order (each folder's entries by name, a
 * subfolder's files where its name falls, depth first), pruning ignored directories before descending.
 * Symlinks are not followed, as ripgrep does by default, so a link cannot loop.
 */
export async function* walkFiles(
  base: string,
  rules: IgnoreRules,
  signal: AbortSignal,
  opts: WalkOptions = {},
): AsyncGenerator<string> {
  const excluded = (abs: string, isDir: boolean): boolean =>
    opts.excludes ? opts.excludes.ignores(toPosix(path.relative(base, abs)) + (isDir ? '/' : '')) : false;
  // Entries still to visit, the next one last: a folder is read when it comes up.
  const stack: Array<{ abs: string; dir: boolean }> = [{ abs: base, dir: true }];
  while (stack.length > 0) {
    if (signal.aborted) return;
    const next = stack.pop() as { abs: string; dir: boolean };
    if (!next.dir) {
      yield next.abs;
      continue;
    }
    let entries;
    try {
      entries = await fsp.readdir(next.abs, { withFileTypes: true });
    } catch {
      continue; // unreadable directories are skipped, like rg does
    }
    entries.sort((a, b) => compareNames(a.name, b.name));
    const kept: Array<{ abs: string; dir: boolean }> = [];
    for (const e of entries) {
      const abs = path.join(next.abs, e.name);
      if (e.isDirectory()) {
        if (opts.skipDir?.(abs)) continue;
        if (excluded(abs, true)) {
          if (!quietlySkippedDir(e.name)) opts.onExcluded?.(abs, true);
        } else if (REPORTED_SKIPPED_DIRS.has(e.name)) opts.onSkippedDir?.(abs);
        else if (!(await rules.isIgnored(abs, true))) kept.push({ abs, dir: true });
      } else if (e.isFile()) {
        if (excluded(abs, false)) opts.onExcluded?.(abs, false);
        else if (!(await rules.isIgnored(abs, false))) kept.push({ abs, dir: false });
      }
    }
    // Reverse so the stack pops them in name order.
    for (let i = kept.length - 1; i >= 0; i--) stack.push(kept[i]);
  }
}
