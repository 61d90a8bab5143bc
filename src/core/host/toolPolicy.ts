// What a host that answers for its own tools needs (engram -p, whose flags decide what the agent may do
// with nobody to ask): the folder a path must stay in, whether a shell command only reads, a tool's path
// as the tool itself resolves it, and the plain file checks of its flags and settings file. The rules
// are the engine's, so a host's gate agrees with what the tools themselves allow.
import { isErrno as errnoIs } from '../fs/errno';
import { isDirectory as isFolder } from '../fs/fileKind';
import { confineTo as confine, type ConfineOptions, type PathGuard } from '../fs/pathGuard';
import { isReadOnlyCommand as readOnlyVerdict, type ReadOnlyVerdict } from '../tools/bashReadOnly';
import { resolveToolPath as toolPath } from '../tools/toolSupport';

export type { ConfineOptions, PathGuard, ReadOnlyVerdict };

/** A guard that refuses, with a reason, a write outside `rootDir` (and with `options.reads`, a read too). */
export function confineTo(rootDir: string, options: ConfineOptions = {}): PathGuard {
  return confine(rootDir, options);
}

/** Whether a shell command only reads (every part of a pipeline a known read-only command), and if not why. */
export function isReadOnlyCommand(command: string): ReadOnlyVerdict {
  return readOnlyVerdict(command);
}

/** The absolute path a tool works on for its `path` input `p`, resolved against `cwd` as the tool does. */
export function resolveToolPath(p: string, cwd: string): string {
  return toolPath(p, cwd);
}

/** Whether `p` is an existing folder (a flag that names one). */
export function isDirectory(p: string): Promise<boolean> {
  return isFolder(p);
}

/** Whether `err` is a file system error with one of `codes` (ENOENT: a settings file that is not there). */
export function isErrno(err: unknown, ...codes: string[]): boolean {
  return errnoIs(err, ...codes);
}
