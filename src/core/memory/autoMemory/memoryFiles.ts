// Every read and write of a file in the memory folder goes through here, so a symlink that leads out of
// the folder (a MEMORY.md pointing at another file, a topic file pointing at /etc/passwd, a trash folder
// pointing elsewhere) is refused when the file is opened, not only when its name was checked. The name
// checks in memoryPaths.ts run first and give the clearer message; these catch what changed since, and
// the files no name check covers (the index, trash records).
import type { Stats } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomicWrite';
import { OutsideFolderError, readFileWithin, realPathWithin } from '../../fs/confinedFile';
import { MemoryPathError } from './memoryPaths';

function refusal(dir: string, abs: string): MemoryPathError {
  return new MemoryPathError(
    `Refused ${path.relative(dir, abs) || abs}: it is a symbolic link that leads outside the memory folder.`,
  );
}

function mapOutside<T>(dir: string, abs: string, run: () => Promise<T>): Promise<T> {
  return run().catch((e: unknown) => {
    throw e instanceof OutsideFolderError ? refusal(dir, abs) : e;
  });
}

/**
 * A regular file inside the memory folder `dir`. Rejects with ENOENT when missing, MemoryPathError when
 * it leads out.
 */
export function readMemoryFile(dir: string, abs: string): Promise<{ data: Buffer; stats: Stats }> {
  return mapOutside(dir, abs, () => readFileWithin(dir, abs));
}

/** readMemoryFile as UTF-8 text. */
export async function readMemoryText(dir: string, abs: string): Promise<string> {
  return (await readMemoryFile(dir, abs)).data.toString('utf8');
}

/** Atomic write of a file that must stay inside the memory folder `dir`; returns the new mtime. */
export function writeMemoryFile(dir: string, abs: string, data: string | Buffer): Promise<number> {
  return mapOutside(dir, abs, () => writeFileAtomic(abs, data, { within: dir }));
}

/** Throws MemoryPathError when `abs` (a folder or file about to be moved or created) leads out of `dir`. */
export function assertInsideMemory(dir: string, abs: string): void {
  try {
    realPathWithin(dir, abs);
  } catch (e) {
    throw e instanceof OutsideFolderError ? refusal(dir, abs) : e;
  }
}
