// Where a workspace's shadow repository lives and how it is set up: `<dataDir>/checkpoints/<project key>/`,
// a bare git repository (made once, under a lock, for every window and session of the workspace) with
// Engram's own files in its `engram/` folder: the session indexes, the session logs, the rewind journals
// and the shared excludes file.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { findGitRoot, projectKey } from '../conversation/projectKey';
import { writeFileAtomic } from '../fs/atomicWrite';
import { isErrno } from '../fs/errno';
import { acquireWriterLock, type WriterLock } from '../fs/writerLock';
import type { ShadowGit } from './shadowGit';
import { exactPattern, HEAVY_FOLDERS } from './snapshot';

/** The files of one workspace's shadow repository, as one session uses them. */
export interface RepoPaths {
  repo: string;
  index: string;
  log: string;
  baseExcludes: string;
  rewinds: string;
  ref: string;
}

export function repoPaths(dataDir: string, workspace: string, sessionId: string): RepoPaths {
  const repo = path.join(dataDir, 'checkpoints', projectKey(workspace));
  const own = path.join(repo, 'engram');
  return {
    repo,
    index: path.join(own, 'index', sessionId),
    log: path.join(own, 'sessions', `${sessionId}.jsonl`),
    baseExcludes: path.join(own, 'excludes'),
    rewinds: path.join(own, 'rewinds'),
    ref: `refs/engram/sessions/${sessionId}`,
  };
}

/** Locks what all sessions of the workspace share: making the repository, finishing a crashed rewind. */
// Held only for moments (an init, a crashed rewind's few files): a session opening waits a little, then
// goes on without checkpoints (saying why) rather than holding up the person's first message.
export function lockShared(repo: string, waitMs = 5_000): Promise<WriterLock> {
  return acquireWriterLock(path.join(repo, 'engram', 'shared'), { waitMs });
}

/**
 * Locks repacking, one window at a time, and never waits. Its own lock: a pack takes seconds (more under
 * load, at low priority), and a session opening, which takes the shared lock, must not wait for one
 * (git itself keeps packing safe beside object writes and reads).
 */
export function lockPacking(repo: string): Promise<WriterLock> {
  return acquireWriterLock(path.join(repo, 'engram', 'pack'), { waitMs: 0 });
}

/**
 * Makes the shadow repository when it is not there yet and rewrites the shared excludes file: the heavy
 * folders, the person's `.git/info/exclude` (their repository is only read), and the data folder itself
 * when it lies inside the workspace.
 */
export async function prepareRepository(git: ShadowGit, dataDir: string, paths: RepoPaths): Promise<void> {
  await fsp.mkdir(path.join(paths.repo, 'engram'), { recursive: true });
  const lock = await lockShared(paths.repo);
  try {
    const made = await fsp
      .stat(path.join(paths.repo, 'HEAD'))
      .then(() => true)
      .catch(() => false);
    if (!made) await git.run(['init', '--bare', '-q'], { bare: true });
    const lines = ['# Engram checkpoints: left out of every snapshot', ...HEAVY_FOLDERS];
    const info = await personalExcludes(git.workspace);
    if (info.trim()) lines.push("# the person's .git/info/exclude", info);
    const rel = path.relative(git.workspace, path.resolve(dataDir));
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) {
      const pattern = exactPattern(`${rel.split(path.sep).join('/')}/`);
      if (pattern) lines.push('# the data folder', pattern);
    }
    const text = `${lines.join('\n')}\n`;
    const old = await fsp.readFile(paths.baseExcludes, 'utf8').catch(() => undefined);
    if (old !== text) await writeFileAtomic(paths.baseExcludes, text);
  } finally {
    await lock.release();
  }
  await fsp.mkdir(paths.rewinds, { recursive: true });
}

/**
 * The patterns of the person's `.git/info/exclude` that apply to the workspace: all of them when the
 * workspace is the repository's top folder; when it is a folder inside, those not tied to a place (no
 * slash before their end), since the others are relative to the top folder.
 */
async function personalExcludes(workspace: string): Promise<string> {
  const root = await findGitRoot(workspace);
  if (!root) return '';
  const text = await fsp.readFile(path.join(root, '.git', 'info', 'exclude'), 'utf8').catch(() => '');
  if (path.resolve(root) === path.resolve(workspace)) return text;
  return text
    .split('\n')
    .filter((line) => !line.startsWith('#') && !line.replace(/\/$/, '').includes('/'))
    .join('\n');
}

/** A new session's index starts as a copy of the newest one, so unchanged files are not hashed again. */
export async function seedIndex(index: string): Promise<void> {
  const dir = path.dirname(index);
  await fsp.mkdir(dir, { recursive: true });
  try {
    await fsp.access(index);
    return;
  } catch {
    // not there yet
  }
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  let newest: { file: string; mtime: number } | undefined;
  for (const name of names) {
    if (name.endsWith('.lock')) continue;
    const st = await fsp.stat(path.join(dir, name)).catch(() => undefined);
    if (st?.isFile() && (!newest || st.mtimeMs > newest.mtime))
      newest = { file: path.join(dir, name), mtime: st.mtimeMs };
  }
  if (!newest) return;
  const tmp = `${index}.seed`;
  try {
    await fsp.copyFile(newest.file, tmp);
    await fsp.rename(tmp, index);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    if (!isErrno(e, 'ENOENT')) throw e; // the newest one went away: start empty
  }
}

/** The empty file that stands in for the person's ~/.gitconfig. */
export async function emptyGlobalConfig(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'checkpoints', 'empty.gitconfig');
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await fsp.writeFile(file, '', { flag: 'a' });
  return file;
}
