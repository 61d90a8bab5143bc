// The host's excludes (VS Code's files.exclude / search.exclude) for one search. The host writes them
// relative to the workspace folder (`/build` is the workspace's top-level build folder), but an engine
// applies them relative to the folder it searches; so a search below the workspace folder (Grep with path
// `src/`) rebases them: `/src/gen` becomes `/gen`, `/build` cannot match below `src/` and is dropped, and
// `**/x` patterns apply at any depth as they are. Both engines call this, so they exclude the same paths.
import path from 'node:path';
import { isInside, toPosix } from '../ignoreRules';
import type { SearchBounds } from '../searchTypes';
import { globMatcher } from './searchOrder';

/** The host's excludes as globs relative to `root` (gitignore-like, what both engines apply). */
export function excludesFor(q: SearchBounds & { root: string }): string[] {
  const list = q.excludes.filter((e) => e.trim() !== '' && !e.startsWith('!'));
  if (!q.excludesRoot) return list;
  const base = path.resolve(q.excludesRoot);
  const root = path.resolve(q.root);
  if (isInside(base, root)) {
    const rel = toPosix(path.relative(base, root));
    return rel === '' ? list : list.flatMap((e) => rebaseDown(e, rel.split('/')));
  }
  // The workspace folder is below the search root: anchored patterns start at its place.
  if (isInside(root, base)) {
    const rel = toPosix(path.relative(root, base));
    return list.map((e) => (e.startsWith('/') ? `/${rel}${e}` : e.startsWith('**/') ? e : `/${rel}/${e}`));
  }
  // A search outside the workspace folder: only the patterns that apply at any depth.
  return list.filter((e) => e.startsWith('**/'));
}

/**
 * One pattern seen from `relSegs` (the search root's path below the workspace folder), or none when it
 * cannot match below the root (or matches the root itself, which the caller asked to search).
 */
function rebaseDown(pattern: string, relSegs: string[]): string[] {
  // A pattern without a slash before its last character matches at any depth (gitignore's rule).
  const body = pattern.replace(/\/$/, '');
  const anchored = pattern.startsWith('/') || body.includes('/');
  if (!anchored) return [pattern];
  const dirOnly = pattern.endsWith('/') ? '/' : '';
  const segs = body.replace(/^\//, '').split('/');
  for (let i = 0; i < relSegs.length; i++) {
    if (i >= segs.length) return []; // names a folder above the root (or the root itself)
    if (segs[i] === '**') return [`${segs.slice(i).join('/')}${dirOnly}`];
    if (!globMatcher(segs[i])(relSegs[i])) return [];
  }
  if (segs.length === relSegs.length) return [];
  const rest = segs.slice(relSegs.length).join('/');
  return [`${rest.startsWith('**/') ? '' : '/'}${rest}${dirOnly}`];
}
