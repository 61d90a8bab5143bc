// .gitignore handling for Glob and Grep, so searches skip build output and dependencies the way git and
// ripgrep do. Rules come from every .gitignore between the git root and the searched path (plus
// .git/info/exclude); a deeper file overrides a higher one, and nothing inside an ignored directory can be
// re-included (git's rule).
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isErrno } from '../fs/errno';

/** Never searched below the search root: VCS internals and installed dependencies are noise. */
export const ALWAYS_SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn', 'node_modules']);

export class IgnoreRules {
  private readonly rules = new Map<string, Promise<Ignore | null>>();
  private readonly dirVerdicts = new Map<string, Promise<boolean>>();

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

  /** Applies the rule files from `from` down to the path's parent, deeper files taking precedence. */
  private async evaluate(abs: string, isDir: boolean, from: string): Promise<boolean> {
    let ignored = false;
    for (const level of levelsBetween(from, path.dirname(abs))) {
      const ig = await this.rulesOf(level);
      if (!ig) continue;
      const rel = toPosix(path.relative(level, abs)) + (isDir ? '/' : '');
      const r = ig.test(rel);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored;
  }

  private async baseIgnoredFromAbove(): Promise<boolean> {
    for (const dir of levelsBetween(this.top, this.base).slice(1)) {
      if (ALWAYS_SKIPPED_DIRS.has(path.basename(dir))) return true;
      if (await this.evaluate(dir, true, this.top)) return true;
    }
    return false;
  }

  private rulesOf(dir: string): Promise<Ignore | null> {
    let p = this.rules.get(dir);
    if (!p) {
      p = loadRules(dir, dir === this.top);
      this.rules.set(dir, p);
    }
    return p;
  }
}

async function loadRules(dir: string, isTop: boolean): Promise<Ignore | null> {
  const texts: string[] = [];
  const files = [path.join(dir, '.gitignore')];
  if (isTop) files.push(path.join(dir, '.git', 'info', 'exclude'));
  for (const f of files) {
    try {
      texts.push(await fsp.readFile(f, 'utf8'));
    } catch (err) {
      if (!isErrno(err, 'ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES')) throw err;
    }
  }
  if (texts.length === 0) return null;
  return ignore().add(texts.join('\n'));
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

/**
 * Yields the files below `base` in a stable (name-sorted, depth-first) order, pruning ignored directories
 * before descending. Symlinks are not followed, as ripgrep does by default, so a link cannot loop.
 */
export async function* walkFiles(
  base: string,
  rules: IgnoreRules,
  signal: AbortSignal,
  skipDir: (abs: string) => boolean = () => false,
): AsyncGenerator<string> {
  const stack: string[] = [base];
  while (stack.length > 0) {
    if (signal.aborted) return;
    const dir = stack.pop() as string;
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable directories are skipped, like rg does
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!skipDir(abs) && !(await rules.isIgnored(abs, true))) subdirs.push(abs);
      } else if (e.isFile()) {
        if (!(await rules.isIgnored(abs, false))) yield abs;
      }
    }
    // Reverse so the stack pops them in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]);
  }
}
