// Confines file access to one folder, e.g. the memory writer's tools to its memory directory. Paths are resolved
// the way the kernel will resolve them: `..` after a symlink goes to the link target's parent, and a
// symlink anywhere on the path (even a dangling one at the end, which a write would create) is followed.
// Check-then-use is racy against someone swapping a directory for a symlink in between; this guards the
// model's mistakes and prompt-injected paths, not a hostile local user.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

export type PathOp = 'read' | 'write';

/** Returns an error text to deny access to a path, or null to allow. */
export type PathGuard = (absPath: string, op: PathOp) => string | null;

/** Kernel limit on symlink hops (ELOOP); beyond it the path cannot be opened anyway. */
const MAX_SYMLINK_HOPS = 40;

export interface ConfineOptions {
  /** Also confine reads (default: only writes are confined). */
  reads?: boolean;
}

export function confineTo(rootDir: string, options: ConfineOptions = {}): PathGuard {
  const shownRoot = path.resolve(rootDir);
  return (absPath: string, op: PathOp): string | null => {
    if (op === 'read' && !options.reads) return null;
    // The root is resolved on each call: it may be created, or become a symlink, after the guard is made.
    const root = resolveReal(shownRoot);
    const target = resolveReal(absPath, shownRoot);
    if (root !== null && target !== null && isWithin(root, target)) return null;
    const verb = op === 'write' ? 'write to' : 'read';
    return `Not allowed to ${verb} ${absPath}: only paths inside ${shownRoot} are permitted here.`;
  };
}

/**
 * The path the kernel would reach: existing components are resolved through symlinks one by one, the
 * rest (not yet existing) is appended as written. Null on a symlink loop.
 */
export function resolveReal(p: string, base = process.cwd()): string | null {
  // Not path.resolve(): it folds `a/link/..` to `a` lexically, which is not where the kernel goes.
  const abs = path.isAbsolute(p) ? p : `${path.resolve(base)}${path.sep}${p}`;
  const { root } = path.parse(abs);
  let pending = splitSegments(abs.slice(root.length));
  let cur = realpathOr(root);
  let hops = 0;
  let missing = false; // once a component is missing, nothing below it can be a symlink yet
  while (pending.length > 0) {
    const seg = pending.shift() as string;
    if (seg === '.') continue;
    if (seg === '..') {
      cur = path.dirname(cur);
      missing = false; // back in an existing directory: its entries may be symlinks again
      continue;
    }
    const next = path.join(cur, seg);
    if (missing) {
      cur = next;
      continue;
    }
    let isLink = false;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      missing = true;
      cur = next;
      continue;
    }
    if (!isLink) {
      cur = next;
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) return null;
    const link = readlinkSync(next);
    const linkAbs = path.isAbsolute(link) ? link : `${cur}${path.sep}${link}`;
    const linkRoot = path.parse(linkAbs).root;
    // Restart from the link target: its own components may be links too.
    pending = [...splitSegments(linkAbs.slice(linkRoot.length)), ...pending];
    cur = realpathOr(linkRoot);
  }
  return cur;
}

function splitSegments(p: string): string[] {
  return p.split(process.platform === 'win32' ? /[\\/]+/ : /\/+/).filter(Boolean);
}

function realpathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** `target` is `root` or below it (both already resolved). */
export function isWithin(root: string, target: string): boolean {
  const norm = (s: string): string => (process.platform === 'win32' ? s.toLowerCase() : s);
  const rel = path.relative(norm(root), norm(target));
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}
