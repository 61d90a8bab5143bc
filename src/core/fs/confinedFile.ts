// Reading a file that must lie inside one folder (the memory folder): the path is resolved through every
// symlink when the file is opened, not when a name was checked earlier, and the resolved file itself is
// opened with O_NOFOLLOW, so a link planted at the end of the path (a MEMORY.md or topic file pointing at
// /etc/passwd) or in the middle (a `.trash/<id>/files` pointing elsewhere) is refused instead of read.
// Only regular files are opened: a FIFO named like a topic file would block the reader forever.
// What is left is the race of a local user swapping a parent folder between resolve and open, which is
// outside what this guards (see pathGuard.ts).
import { constants, promises as fsp, type Stats } from 'node:fs';
import { isWithin, resolveReal } from './pathGuard';

/** The path leads outside the folder it must stay in (code EOUTSIDE, so callers can tell it from I/O). */
export class OutsideFolderError extends Error {
  readonly code = 'EOUTSIDE';
  constructor(
    readonly absPath: string,
    readonly folder: string,
  ) {
    super(`${absPath} leads outside ${folder} (through a symbolic link or "..").`);
    this.name = 'OutsideFolderError';
  }
}

/** Where `absPath` really leads, when that is inside `folder`; else throws OutsideFolderError. */
export function realPathWithin(folder: string, absPath: string): string {
  const root = resolveReal(folder);
  const real = resolveReal(absPath);
  if (root === null || real === null || !isWithin(root, real)) throw new OutsideFolderError(absPath, folder);
  return real;
}

// Windows has no O_NOFOLLOW (the constant is undefined there); the resolve above still applies.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * The bytes and stats of a regular file inside `folder`. ENOENT when it does not exist, OutsideFolderError
 * when it leads out (a dangling link out included), an ENOTFILE-coded error for folders, FIFOs, devices.
 */
export async function readFileWithin(folder: string, absPath: string): Promise<{ data: Buffer; stats: Stats }> {
  const real = realPathWithin(folder, absPath);
  const fh = await fsp.open(real, constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = await fh.stat();
    if (!stats.isFile()) throw Object.assign(new Error(`${absPath} is not a regular file.`), { code: 'ENOTFILE' });
    return { data: await fh.readFile(), stats };
  } finally {
    await fh.close();
  }
}
