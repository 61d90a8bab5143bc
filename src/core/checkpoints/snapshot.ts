// One snapshot of the workspace into the shadow repository: one walk of the workspace lists what is new
// or changed against the session's own index (`ls-files --others --modified`, honouring .gitignore files,
// the person's .git/info/exclude and a short list of heavy folders), those paths alone are brought up to
// date (`update-index --stdin`, so an unchanged file costs a stat, not a hash), then a tree and a commit
// on the session's ref. Files over the size limit, sockets and nested repositories are left out and
// reported; the ignored paths are reported on request.
import { constants as fsConstants, promises as fsp } from 'node:fs';
import path from 'node:path';
import type { SkippedPath } from './types';
import type { ShadowGit } from './shadowGit';

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
  maxFileBytes: number;
  ref: string;
}

export interface Snapshot {
  commit: string;
  tree: string;
  skipped: SkippedPath[];
  /** What changed since `diffFrom` (when asked for). */
  changes?: TreeChange[];
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

const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

interface Candidates {
  /** Paths to bring up to date in the index (added, changed, or removed when gone). */
  update: string[];
  /** Paths that leave the index: gone, behind a link now, or grown past the limit (excludes do not drop them). */
  drop: string[];
  skipped: SkippedPath[];
  /** Ignored paths (only when asked for). */
  excluded: SkippedPath[];
}

/**
 * The one walk of the workspace per snapshot: files not in the index yet (minus .gitignore'd ones and
 * the heavy folders) and indexed files whose stat changed, each checked against the size limit.
 */
async function listCandidates(place: SnapshotPlace, withExcluded: boolean): Promise<Candidates> {
  const { tagged, excluded } = await (withExcluded ? walkWithExcluded(place) : walk(place));
  const out: Candidates = { update: [], drop: [], skipped: [], excluded };
  const linked = new Map<string, Promise<boolean>>(); // folder -> reached through a symbolic link
  const throughLink = (dir: string): Promise<boolean> => {
    let known = linked.get(dir);
    if (!known) {
      known = fsp.realpath(dir).then(
        (real) => real !== dir,
        () => false,
      );
      linked.set(dir, known);
    }
    return known;
  };
  const entries = [...tagged];
  for (let i = 0; i < entries.length; i += 256) {
    await Promise.all(
      entries.slice(i, i + 256).map(async ([rel, indexed]) => {
        if (rel.endsWith('/')) return void out.skipped.push({ path: rel, reason: 'not-a-file' }); // a nested repository
        const abs = path.join(place.git.workspace, rel);
        const st = await fsp.lstat(abs).catch(() => undefined);
        if (!st) return void out.update.push(rel); // gone: `--remove` takes it out
        // Behind a link now, or a folder now (its files are listed on their own): out of the index first.
        if (st.isDirectory() || (await throughLink(path.dirname(abs)))) return void out.drop.push(rel);
        let skip: SkippedPath | undefined;
        if (st.isFile() && st.size > place.maxFileBytes) skip = { path: rel, reason: 'too-big', bytes: st.size };
        else if (!st.isFile() && !st.isSymbolicLink()) skip = { path: rel, reason: 'not-a-file' };
        else if (
          st.isFile() &&
          !(await fsp.access(abs, fsConstants.R_OK).then(
            () => true,
            () => false,
          ))
        )
          skip = { path: rel, reason: 'not-a-file' }; // unreadable
        if (!skip) return void out.update.push(rel);
        out.skipped.push(skip);
        if (indexed) out.drop.push(rel);
      }),
    );
  }
  out.skipped.sort(byPath);
  out.update.sort();
  return out;
}

/** What a walk found: path -> whether the index has it already; and the ignored paths, when asked for. */
interface Walk {
  tagged: Map<string, boolean>;
  excluded: SkippedPath[];
}

/** Files not in the index yet and indexed files whose stat changed (`ls-files -t`: `?` is not indexed). */
async function walk(place: SnapshotPlace): Promise<Walk> {
  const listed = await place.git.list(['ls-files', '-z', '-t', '--others', '--modified', '--exclude-standard'], {
    index: place.index,
    config: [`core.excludesFile=${place.baseExcludes}`],
  });
  const tagged = new Map<string, boolean>();
  for (const entry of listed) tagged.set(entry.slice(2), (tagged.get(entry.slice(2)) ?? false) || entry[0] !== '?');
  return { tagged, excluded: [] };
}

/**
 * The same in one walk with the paths .gitignore files and the heavy-folder list keep out (an ignored
 * folder once, with a trailing slash): `status` against the shadow repository's unborn HEAD, where every
 * indexed file reads `A` and its second letter says how the file differs from the index.
 */
async function walkWithExcluded(place: SnapshotPlace): Promise<Walk> {
  const listed = await place.git.list(
    ['status', '--porcelain', '-z', '--untracked-files=all', '--ignored=matching', '--no-renames'],
    { index: place.index, config: [`core.excludesFile=${place.baseExcludes}`] },
  );
  const tagged = new Map<string, boolean>();
  const ignored: string[] = [];
  for (const entry of listed) {
    const [xy, rel] = [entry.slice(0, 2), entry.slice(3)];
    if (xy === '!!') ignored.push(rel);
    else if (xy === '??') tagged.set(rel, false);
    else if (xy[1] !== ' ') tagged.set(rel, true);
  }
  const excluded = ignored
    .sort()
    .slice(0, MAX_EXCLUDED_REPORTED)
    .map((p) => ({ path: p, reason: 'excluded' as const }));
  return { tagged, excluded };
}

/**
 * Takes a snapshot. `parent` is the session's newest snapshot (its commit and tree): when nothing
 * changed, that commit is the snapshot and nothing is written. `indexMatchesParent`: the index holds
 * exactly the parent's tree (false for an index copied from another session). `diffFrom`: a snapshot to
 * list the changes against (read from the index while the tree and commit are written).
 */
export async function takeSnapshot(
  place: SnapshotPlace,
  parent: { commit: string; tree: string } | undefined,
  message: string,
  opts: { reportExcluded: boolean; indexMatchesParent: boolean; diffFrom?: string },
): Promise<Snapshot> {
  const { git } = place;
  const { update, drop, skipped, excluded } = await listCandidates(place, opts.reportExcluded);
  if (drop.length)
    await git.run(['update-index', '-z', '--force-remove', '--stdin'], {
      index: place.index,
      input: `${drop.join('\0')}\0`,
    });
  if (update.length)
    await git.run(['update-index', '-z', '--add', '--remove', '--replace', '--stdin'], {
      index: place.index,
      input: `${update.join('\0')}\0`,
    });
  const same = parent && opts.indexMatchesParent && !drop.length && !update.length;
  const diff =
    opts.diffFrom === undefined || (same && opts.diffFrom === parent.commit)
      ? Promise.resolve([])
      : git
          .list(['diff-index', '--cached', '-r', '-z', '--no-renames', opts.diffFrom], { index: place.index })
          .then(parseRawDiff);
  const tree = same ? parent.tree : await git.text(['write-tree'], { index: place.index });
  const commit =
    parent && parent.tree === tree ? parent.commit : await commitOnRef(place, tree, parent?.commit, message);
  const known = new Set(skipped.map((s) => s.path));
  skipped.push(...excluded.filter((s) => !known.has(s.path)));
  skipped.sort(byPath);
  return { commit, tree, skipped, ...(opts.diffFrom !== undefined ? { changes: await diff } : {}) };
}

/**
 * A commit of `tree` on the session's ref, child of the ref's newest commit. The ref moves only from the
 * value this store knows; when another process of the same session (`engram rewind` while the window
 * runs) moved it meanwhile, the commit is made again on top of that one.
 */
async function commitOnRef(
  place: SnapshotPlace,
  tree: string,
  parent: string | undefined,
  message: string,
): Promise<string> {
  const { git } = place;
  for (let attempt = 0; ; attempt++) {
    const commit = await git.text(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message]);
    try {
      await git.run(['update-ref', place.ref, commit, parent ?? '']);
      return commit;
    } catch (e) {
      if (attempt >= 3) throw e;
      const now = await git.text(['rev-parse', '--verify', '-q', `${place.ref}^{commit}`], { okCodes: [1] });
      if ((now || undefined) === parent) throw e; // not a moved ref: a real failure
      parent = now || undefined;
    }
  }
}

/** What changed between two snapshots, per path: the old and new `mode oid` (undefined: no file). */
export interface TreeChange {
  path: string;
  change: 'added' | 'modified' | 'deleted';
  from?: string;
  to?: string;
}

/** `--raw -z` diff output (diff-tree, diff-index) as changes, sorted by path. */
function parseRawDiff(out: readonly string[]): TreeChange[] {
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
  return changes.sort(byPath);
}
