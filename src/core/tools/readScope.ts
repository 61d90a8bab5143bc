// Where a read-only tool may read without asking: the workspace, and the session's own files (its
// project folder under the data dir, the memory folder). A call that reads elsewhere asks like a write.
import { confineTo } from '../fs/pathGuard';
import type { Tool } from './tool';
import { resolveToolPath } from './toolSupport';

export interface ReadScope {
  /** The workspace: relative paths resolve against it. */
  cwd: string;
  /** Other folders read freely (memory, the project's transcripts and notes). */
  free: readonly string[];
}

/**
 * The first path `tool` would read outside `scope`, or undefined. Judged where the path really leads
 * (symlinks and `..` resolved), so a link in the workspace that points out of it asks too.
 */
export function readOutsideScope(tool: Tool, input: Record<string, unknown>, scope: ReadScope): string | undefined {
  const paths = tool.readPaths?.(input);
  if (!paths || paths.length === 0) return undefined;
  const guards = [scope.cwd, ...scope.free].map((dir) => confineTo(dir, { reads: true }));
  for (const p of paths) {
    const abs = resolveToolPath(p, scope.cwd);
    if (!guards.some((guard) => guard(abs, 'read') === null)) return abs;
  }
  return undefined;
}
