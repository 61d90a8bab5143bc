// One snapshot of the workspace into the shadow repository: the session's own index takes in every file
// (`git add -A`, so unchanged files cost a stat, not a hash), then a tree and a commit on the session's
// ref. Files over the size limit, sockets and nested repositories are left out through a per-session
// excludes file and reported; the workspace's .gitignore files and a short list of heavy folders are
// honoured and the ignored paths reported on request.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { SkippedPath } from './types';
import { GitError, type ShadowGit } from './shadowGit';

/**
 * Folders left out of every checkpoint: installed packages, virtual environments and caches that tools
 * rebuild. Kept short on purpose; a project's own .gitignore covers its build output.
 */
export const HEAVY_FOLDERS = [
  'node_modules/',
  '.venv/',
  'venv/',
  '__pycache__/',
  '.next/',
  '.nuxt/',
  '.gradle/',
  '.tox/',
  '.mypy_cache/',
  '.pytest_cache/',
  '.terraform/',
];

/** How many ignored paths one turn reports (a .gitignore'd build folder counts once). */
const MAX_EXCLUDED_REPORTED = 50;

export interface SnapshotPlace {
  git: ShadowGit;
  /** The session's GIT_INDEX_FILE. */
  index: string;
  /** Shared excludes: heavy folders, the person's .git/info/exclude, the data folder when inside. */
  baseExcludes: string;
  /** This session's excludes: the base ones plus this snapshot's too-big and odd files. */
  sessionExcludes: string;
  maxFileBytes: number;
  ref: string;
}

export interface Snapshot {
  commit: string;
  tree: string;
  skipped: SkippedPath[];
}

/** A gitignore pattern matching exactly this workspace-relative path (anchored, wildcards escaped). */
export function exactPattern(rel: string): string | undefined {
  if (/[\n\r]/.test(rel)) return undefined; // not expressible in an excludes file
  const dir = rel.endsWith('/');
  const body = (dir ? rel.slice(0, -1) : rel)
    .replace(/[\\*?[\]]/g, '\\$&')
    .replace(/ +$/, (s) => '\\ '.repeat(s.length));
  return `/${body}${dir ? '/' : ''}`;
}

/** The files that may go into the index this time, checked against the size limit. */
async function checkCandidates(place: SnapshotPlace): Promise<{ skipped: SkippedPath[]; tracked: string[] }> {
  const { git } = place;
  const candidates = await git.list(['ls-files', '-z', '--others', '--modified', '--exclude-standard'], {
    index: place.index,
    config: [`core.excludesFile=${place.baseExcludes}`],
  });
  const skipped: SkippedPath[] = [];
  const tracked: string[] = []; // in the index already: an exclude pattern does not drop them
  const unique = [...new Set(candidates)];
  for (let i = 0; i < unique.length; i += 256) {
    await Promise.all(
      unique.slice(i, i + 256).map(async (rel) => {
        if (rel.endsWith('/')) {
          skipped.push({ path: rel, reason: 'not-a-file' }); // a repository of its own inside the workspace
          return;
        }
        const st = await fsp.lstat(path.join(git.workspace, rel)).catch(() => undefined);
        if (!st) return; // deleted: `add -A` records that
        if (st.isFile() && st.size > place.maxFileBytes) skipped.push({ path: rel, reason: 'too-big', bytes: st.size });
        else if (!st.isFile() && !st.isSymbolicLink() && !st.isDirectory())
          skipped.push({ path: rel, reason: 'not-a-file' });
        else return;
        tracked.push(rel);
      }),
    );
  }
  skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { skipped, tracked };
}

/** Paths .gitignore files and the heavy-folder list keep out (folders once, with a trailing slash). */
async function listExcluded(place: SnapshotPlace, skipped: readonly SkippedPath[]): Promise<SkippedPath[]> {
  const out = await place.git.list(
    ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory', '--no-empty-directory'],
    { index: place.index, config: [`core.excludesFile=${place.sessionExcludes}`] },
  );
  const already = new Set(skipped.map((s) => s.path));
  return out
    .filter((p) => !already.has(p))
    .sort()
    .slice(0, MAX_EXCLUDED_REPORTED)
    .map((p) => ({ path: p, reason: 'excluded' as const }));
}

/**
 * Takes a snapshot. `parent` is the session's newest snapshot (its commit and tree): when nothing
 * changed, that commit is the snapshot and nothing is written.
 */
export async function takeSnapshot(
  place: SnapshotPlace,
  parent: { commit: string; tree: string } | undefined,
  message: string,
  opts: { reportExcluded: boolean },
): Promise<Snapshot> {
  const { git } = place;
  const { skipped, tracked } = await checkCandidates(place);
  const base = await fsp.readFile(place.baseExcludes, 'utf8').catch(() => '');
  const own = skipped.map((s) => exactPattern(s.path)).filter((p): p is string => p !== undefined);
  await fsp.writeFile(place.sessionExcludes, `${base}\n${own.join('\n')}\n`);
  if (tracked.length)
    await git.run(['update-index', '-z', '--force-remove', '--stdin'], {
      index: place.index,
      input: `${tracked.join('\0')}\0`,
    });
  try {
    await git.run(['add', '-A', '--ignore-errors', '--', '.'], {
      index: place.index,
      config: [`core.excludesFile=${place.sessionExcludes}`],
    });
  } catch (e) {
    // A file that vanished or cannot be read mid-add: the others are in the index; write-tree tells.
    if (!(e instanceof GitError)) throw e;
  }
  const tree = await git.text(['write-tree'], { index: place.index });
  if (opts.reportExcluded) skipped.push(...(await listExcluded(place, skipped)));
  if (parent && parent.tree === tree) return { commit: parent.commit, tree, skipped };
  const commit = await git.text(['commit-tree', tree, ...(parent ? ['-p', parent.commit] : []), '-m', message]);
  await git.run(['update-ref', place.ref, commit, ...(parent ? [parent.commit] : [])]);
  return { commit, tree, skipped };
}

/** What changed between two snapshots, per path: the old and new `mode oid` (undefined: no file). */
export interface TreeChange {
  path: string;
  change: 'added' | 'modified' | 'deleted';
  from?: string;
  to?: string;
}

export async function diffSnapshots(git: ShadowGit, before: string, after: string): Promise<TreeChange[]> {
  if (before === after) return [];
  const out = await git.list(['diff-tree', '-r', '-z', '--no-renames', '--no-commit-id', before, after]);
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < out.length; i += 2) {
    // ":<old mode> <new mode> <old oid> <new oid> <status>" then the path
    const [oldMode, newMode, oldOid, newOid, status] = (out[i] as string).slice(1).split(' ');
    const p = out[i + 1] as string;
    const from = /^0+$/.test(oldMode ?? '0') ? undefined : `${oldMode} ${oldOid}`;
    const to = /^0+$/.test(newMode ?? '0') ? undefined : `${newMode} ${newOid}`;
    const change = status === 'A' ? 'added' : status === 'D' ? 'deleted' : 'modified';
    changes.push({ path: p, change, ...(from ? { from } : {}), ...(to ? { to } : {}) });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
