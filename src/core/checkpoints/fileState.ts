// A workspace file as git sees it (`mode oid`: 100644 or 100755 for a file, 120000 for a symbolic link),
// and the one way a rewind changes a file: a temp file (or link) in the same folder, then a rename over
// the old one, so the file is either old or new, never half, and a workspace on another disk is fine.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { blobId, type ShadowGit } from './shadowGit';

export interface DiskState {
  /** `mode oid`, or null when there is no file. */
  state: string | null;
  /** The content, for a file or link that is kept so the rewind can be undone. */
  data?: Buffer;
  size: number;
}

/** What a path holds now. A folder or anything not a file or link throws (the caller checked earlier). */
export async function diskState(abs: string, maxBytes: number): Promise<DiskState> {
  const st = await fsp.lstat(abs).catch(() => undefined);
  if (!st) return { state: null, size: 0 };
  if (st.isSymbolicLink()) {
    const data = Buffer.from(await fsp.readlink(abs, { encoding: 'buffer' }));
    return { state: `120000 ${blobId(data)}`, data, size: data.length };
  }
  if (!st.isFile()) throw new Error('is not a regular file');
  if (st.size > maxBytes) return { state: 'too-big', size: st.size };
  const data = await fsp.readFile(abs);
  return { state: `${st.mode & 0o111 ? '100755' : '100644'} ${blobId(data)}`, data, size: data.length };
}

/** The temp name beside a file: `.<name>.<pid>.<8 hex>.tmp`, the pattern stale temp files are found by. */
function tempBeside(abs: string): string {
  return path.join(path.dirname(abs), `.${path.basename(abs)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Puts `data` at `abs` with git mode `mode` (temp + rename; the old file's permission bits are kept). */
export async function writeState(abs: string, mode: string, data: Buffer): Promise<void> {
  await fsp.mkdir(path.dirname(abs), { recursive: true });
  const tmp = tempBeside(abs);
  try {
    if (mode === '120000') await fsp.symlink(data.toString('utf8'), tmp);
    else {
      const exec = mode === '100755';
      const old = await fsp.lstat(abs).catch(() => undefined);
      await fsp.writeFile(tmp, data, { flag: 'wx', mode: exec ? 0o777 : 0o666 });
      if (old?.isFile()) {
        const perm = old.mode & 0o7777;
        await fsp.chmod(tmp, exec ? perm | ((perm & 0o444) >> 2) : perm & ~0o111);
      }
    }
    await fsp.rename(tmp, abs);
  } catch (e) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/**
 * Removes a file (or link), then the folders above it that are empty now and were not in `keepFrom`
 * (a snapshot commit): the folders the agent made for it.
 */
export async function removeState(git: ShadowGit, abs: string, keepFrom: string | undefined): Promise<void> {
  await fsp.rm(abs, { force: true });
  if (!keepFrom) return;
  for (let dir = path.dirname(abs); dir !== git.workspace && dir.startsWith(git.workspace); dir = path.dirname(dir)) {
    const rel = path.relative(git.workspace, dir).split(path.sep).join('/');
    const existed = await git
      .run(['cat-file', '-e', `${keepFrom}:${rel}`])
      .then(() => true)
      .catch(() => false);
    if (existed) return;
    try {
      await fsp.rmdir(dir);
    } catch {
      return; // not empty (or not ours to remove)
    }
  }
}

/** The contents of blobs, read in one `git cat-file --batch`. */
export async function readBlobs(git: ShadowGit, oids: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(oids)];
  const blobs = new Map<string, Buffer>();
  if (!unique.length) return blobs;
  const out = await git.run(['cat-file', '--batch'], { input: `${unique.join('\n')}\n` });
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    const header = out.subarray(at, eol).toString('utf8').split(' ');
    at = eol + 1;
    if (header[1] === 'missing' || header.length < 3) continue;
    const size = Number(header[2]);
    blobs.set(header[0] as string, out.subarray(at, at + size));
    at += size + 1;
  }
  return blobs;
}

/** Stores content in the shadow repository (a file about to be overwritten, so an undo can bring it back). */
export async function storeBlob(git: ShadowGit, data: Buffer): Promise<string> {
  return git.text(['hash-object', '-w', '--stdin'], { input: data });
}
