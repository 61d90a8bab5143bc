// Every file Engram writes for itself (memory files, notes, cursors) and every tool write goes through
// here, so no reader ever sees half a file.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { realPathWithin } from './confinedFile';
import { isErrno } from './errno';

export interface AtomicWriteOptions {
  /**
   * The file must really lie inside this folder (symlinks resolved now, at write time): a link that
   * leads out throws OutsideFolderError instead of carrying the write elsewhere. Memory files use it.
   */
  within?: string;
}

/**
 * Writes a file atomically: a temp file in the same directory, then a rename, so a crash or a concurrent
 * reader never sees half a file. Follows a symlink at the target so the link itself is kept, and keeps
 * the existing file's permission bits. Returns the new mtime.
 */
export async function writeFileAtomic(
  absPath: string,
  data: string | Buffer,
  opts: AtomicWriteOptions = {},
): Promise<number> {
  if (opts.within !== undefined) realPathWithin(opts.within, absPath);
  let target = absPath;
  let mode: number | undefined;
  try {
    target = await fsp.realpath(absPath);
    mode = (await fsp.stat(target)).mode & 0o7777;
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
    await fsp.mkdir(path.dirname(absPath), { recursive: true });
  }
  const tmp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  ); // TEMP_NAME below
  try {
    await fsp.writeFile(tmp, data, { flag: 'wx', mode: mode ?? 0o666 });
    if (mode !== undefined) await fsp.chmod(tmp, mode); // writeFile's mode is filtered by the umask
    await fsp.rename(tmp, target);
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
  return (await fsp.stat(target)).mtimeMs;
}

/** The temp files writeFileAtomic makes: `.<name>.<pid>.<8 hex digits>.tmp`. */
const TEMP_NAME = /^\..+\.\d+\.[0-9a-f]{8}\.tmp$/;
/** A write takes milliseconds: a temp file this old was left by a writer that was killed mid-write. */
export const STALE_TEMP_MS = 60 * 60_000;

/**
 * Removes the temp files killed writers left in `dirs` (those older than STALE_TEMP_MS; a folder that
 * is not there is skipped). Returns the files removed.
 */
export async function removeStaleTempFiles(dirs: readonly string[], now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  for (const dir of dirs) {
    const names = await fsp.readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => TEMP_NAME.test(n))) {
      const file = path.join(dir, name);
      const st = await fsp.lstat(file).catch(() => undefined);
      if (!st?.isFile() || now - st.mtimeMs < STALE_TEMP_MS) continue;
      await fsp.rm(file, { force: true });
      removed.push(file);
    }
  }
  return removed;
}
