// Where a project's memory lives, as a host asks: the private auto-memory folder (keyed by the project's
// git root), the team folder inside it, and where a memory file named by a tool belongs. A host uses
// these to show, sync or confine memory; what goes into the files is the memory engine's business.
import {
  autoMemoryDir as memoryDirFor,
  memoryHome as homeOf,
  memoryWriteTarget as writeTargetIn,
  teamMemoryDir as teamDirIn,
} from '../memory/autoMemory/memoryPaths';

export type { MergeResult } from '../memory/autoMemory/mergeEntries';

/** The project's private auto-memory folder for `cwd` under `dataDir` (found by its git root). */
export function autoMemoryDir(dataDir: string, cwd: string): Promise<string> {
  return memoryDirFor(dataDir, cwd);
}

/** The team memory folder inside the auto-memory folder `dir`. */
export function teamMemoryDir(dir: string): string {
  return teamDirIn(dir);
}

/** The memory folder and index that a memory file named `name` belongs to, under the auto-memory folder `dir`. */
export function memoryHome(dir: string, name: string): { dir: string; file: string; team: boolean } {
  return homeOf(dir, name);
}

/**
 * Whether a write to `absPath` is a write to a memory file under the auto-memory folder `dir`: its name
 * there, or the problem with it (a host lets the agent write memory files and nothing else of the folder).
 */
export function memoryWriteTarget(dir: string, absPath: string): { name: string } | { problem: string } {
  return writeTargetIn(dir, absPath);
}
