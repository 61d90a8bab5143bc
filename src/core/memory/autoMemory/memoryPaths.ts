// Where a project's auto memory lives and which paths in it may be written. The folder is keyed by the
// git root (every folder of one repository shares one memory), as Claude Code does. A file name comes
// from a model or from an index line someone edited, so it is checked before any write: no `..`, no
// absolute path, no control characters, no hidden folders (the trash lives in one), and it must resolve,
// through symlinks, to a place inside the folder.
import path from 'node:path';
import { findGitRoot, projectDir } from '../../conversation/projectKey';
import { confineTo, resolveReal } from '../../fs/pathGuard';

export const MEMORY_DIR_NAME = 'memory';
export const MEMORY_INDEX_FILE = 'MEMORY.md';
/** Pruned entries go here, one folder per prune, so they can be restored. */
export const TRASH_DIR_NAME = '.trash';
/** Team memory has its own index and sync (DESIGN 4); the private index does not list it. */
export const TEAM_DIR_NAME = 'team';

/** Team memory as a session has it on: its folder (`<memory>/team`) and its repository `owner/repo`. */
export interface TeamMemoryScope {
  dir: string;
  repo: string;
}

/** `<dataDir>/projects/<key of git root or cwd>/memory`. */
export async function autoMemoryDir(dataDir: string, cwd: string): Promise<string> {
  return memoryDirOf(dataDir, cwd, await findGitRoot(cwd));
}

/**
 * The memory folder once the git root is known (undefined outside a repository): opening a session
 * finds the root once and builds every path from it (sessionPaths.ts).
 */
export function memoryDirOf(dataDir: string, cwd: string, gitRoot: string | undefined): string {
  return path.join(projectDir(dataDir, gitRoot ?? path.resolve(cwd)), MEMORY_DIR_NAME);
}

export class MemoryPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MemoryPathError';
  }
}

/**
 * `<memory>/team`. Team memory is synced and read like the rest, so a `team` that is a symlink out of
 * the memory folder would pull files from anywhere: MemoryPathError then.
 */
export function teamMemoryDir(dir: string): string {
  return confinedTeamDir(dir, path.join(dir, TEAM_DIR_NAME));
}

/** `team` (the team folder of memory folder `dir`, as SessionPaths has it) when it stays inside `dir`. */
export function confinedTeamDir(dir: string, team: string): string {
  if (confineTo(dir, { reads: true })(team, 'read'))
    throw new MemoryPathError(
      `${TEAM_DIR_NAME} is a symbolic link that leads outside the memory folder; team memory was not read.`,
    );
  return team;
}

/**
 * Which folder memory file `name` (relative to the memory folder) belongs to: `team/x.md` is file `x.md`
 * of the team folder, with its own index; anything else is the private memory's.
 */
export function memoryHome(dir: string, name: string): { dir: string; file: string; team: boolean } {
  const norm = normaliseName(name);
  const [first, ...rest] = norm.split('/');
  if (first === TEAM_DIR_NAME && rest.length > 0)
    return { dir: path.join(dir, TEAM_DIR_NAME), file: rest.join('/'), team: true };
  return { dir, file: norm, team: false };
}

/** `name` (relative to the memory folder) is the private index or the team index. */
export function isIndexName(name: string): boolean {
  return memoryHome('', name).file === MEMORY_INDEX_FILE;
}

/** Why `name` cannot name a topic file, or null. `name` is relative to the memory folder. */
export function memoryNameProblem(name: string, opts: { allowIndex?: boolean } = {}): string | null {
  if (typeof name !== 'string' || name.trim() === '') return 'the file name is empty';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'the file name contains control characters';
  if (path.isAbsolute(name) || path.win32.isAbsolute(name) || /^[A-Za-z]:/.test(name))
    return 'the file name must be relative to the memory folder';
  const segments = name.split(/[\\/]+/);
  if (segments.some((s) => s === '..')) return 'the file name must not contain ".."';
  if (segments.some((s) => s.startsWith('.') && s !== '.')) return 'hidden files and folders are reserved';
  if (!name.toLowerCase().endsWith('.md')) return 'topic files are Markdown (.md)';
  if (!opts.allowIndex && normaliseName(name) === MEMORY_INDEX_FILE)
    return `${MEMORY_INDEX_FILE} is the index, not a topic file`;
  if (name.length > 200) return 'the file name is too long';
  return null;
}

/** `./a//b.md` -> `a/b.md` (forward slashes), for comparing names from index lines and tools. */
export function normaliseName(name: string): string {
  return name
    .split(/[\\/]+/)
    .filter((s) => s !== '' && s !== '.')
    .join('/');
}

/**
 * The absolute path of topic file `name`, after every check (symlinks resolved). Throws
 * MemoryPathError with the reason when it is refused.
 */
export function resolveMemoryFile(dir: string, name: string, opts: { allowIndex?: boolean } = {}): string {
  const problem = memoryNameProblem(name, opts);
  if (problem) throw new MemoryPathError(`Refused memory file ${JSON.stringify(name)}: ${problem}.`);
  const abs = path.join(dir, normaliseName(name));
  const denied = confineTo(dir)(abs, 'write');
  if (denied)
    throw new MemoryPathError(`Refused memory file ${JSON.stringify(name)}: it resolves outside the memory folder.`);
  return abs;
}

/**
 * For tool calls (Write/Edit by an agent): the file's name relative to the memory folder when
 * `absPath` is a topic file or the index inside it, else the reason it is not.
 */
export function memoryWriteTarget(dir: string, absPath: string): { name: string } | { problem: string } {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(absPath)) return { problem: 'the path contains control characters' };
  // Compared where the kernel would go (symlinks and `..` after them), not lexically.
  const realDir = resolveReal(dir);
  const realTarget = resolveReal(absPath, dir);
  const rel = realDir && realTarget ? path.relative(realDir, realTarget) : '..';
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    return { problem: `${absPath} is not inside the memory folder ${dir} (symlinks and ".." resolved)` };
  }
  const name = normaliseName(rel);
  const problem = memoryNameProblem(name, { allowIndex: true });
  if (problem) return { problem: `${absPath}: ${problem}` };
  return { name };
}
