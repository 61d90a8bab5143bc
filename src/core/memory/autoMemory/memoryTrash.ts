// Prune with undo, for the inspector: the entry's index lines come out of MEMORY.md and the topic file
// moves (rename: same bytes, same mtime) to `memory/.trash/<id>/`, next to a record of what was removed
// and where. Restore puts both back; when nothing else changed meanwhile, MEMORY.md and the file are
// byte-identical to what they were. The record is written before anything moves, so an interrupted
// prune can still be restored. Restore reads the record and moves the file only when both really lie in
// the trash folder: a `files` folder or record that is a link out would bring outside files in.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { confineTo } from '../../fs/pathGuard';
import { assertInsideMemory, readMemoryText } from './memoryFiles';
import { MemoryPathError, TRASH_DIR_NAME, normaliseName, resolveMemoryFile } from './memoryPaths';
import { reinsertLines, removeLines, withMemoryLock, type RemovedLines } from './memoryWriter';

const RECORD_FILE = 'prune.json';
const FILES_DIR = 'files';
const TRASH_ID = /^[0-9A-Za-z][0-9A-Za-z-]{0,80}$/;

export interface PruneRecord {
  id: string;
  /** The topic file, relative to the memory folder. */
  file: string;
  prunedAt: string;
  /** The file existed and was moved to the trash (an entry may point at a missing file). */
  moved: boolean;
  removed: RemovedLines;
}

export async function pruneEntry(dir: string, file: string, now: Date = new Date()): Promise<PruneRecord> {
  const abs = resolveMemoryFile(dir, file);
  const name = normaliseName(file);
  return withMemoryLock(dir, async () => {
    const id = `${now.toISOString().replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
    const trash = trashDir(dir, id);
    const moved = await isFile(abs);
    await fsp.mkdir(path.join(trash, FILES_DIR), { recursive: true });
    // The lines are recorded by removing them; if the move below fails they go straight back.
    let removed: RemovedLines;
    try {
      removed = await removeLines(dir, name);
    } catch (e) {
      await fsp.rm(trash, { recursive: true, force: true }); // a refused index edit leaves no empty trash
      throw e;
    }
    const record: PruneRecord = { id, file: name, prunedAt: now.toISOString(), moved, removed };
    await fsp.writeFile(path.join(trash, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
    if (moved) {
      const dest = path.join(trash, FILES_DIR, name);
      try {
        await fsp.mkdir(path.dirname(dest), { recursive: true });
        await fsp.rename(abs, dest);
      } catch (e) {
        await reinsertLines(dir, removed);
        await fsp.rm(trash, { recursive: true, force: true });
        throw e;
      }
    }
    return record;
  });
}

/** Undoes a prune. Refuses when a file of that name exists again (it would be overwritten). */
export async function restoreEntry(dir: string, id: string): Promise<PruneRecord> {
  if (!TRASH_ID.test(id)) return Promise.reject(new MemoryPathError(`Not a trash id: ${JSON.stringify(id)}.`));
  return withMemoryLock(dir, async () => {
    const trash = trashDir(dir, id);
    const record = JSON.parse(await readMemoryText(dir, path.join(trash, RECORD_FILE))) as PruneRecord;
    const abs = resolveMemoryFile(dir, record.file);
    if (record.moved) {
      const from = path.join(trash, FILES_DIR, normaliseName(record.file));
      if (await isFile(abs))
        throw new MemoryPathError(`Cannot restore ${record.file}: a file of that name exists again.`);
      // Where the file really is must be inside the folder: prune never trashes a link out, so one
      // found here was planted.
      assertInsideMemory(dir, from);
      if (await isFile(from)) {
        await fsp.mkdir(path.dirname(abs), { recursive: true });
        await fsp.rename(from, abs);
      }
    }
    await reinsertLines(dir, record.removed);
    await fsp.rm(trash, { recursive: true, force: true });
    return record;
  });
}

/** Pruned entries that can be restored, newest first. */
export async function listTrash(dir: string): Promise<PruneRecord[]> {
  let ids: string[];
  try {
    ids = await fsp.readdir(path.join(dir, TRASH_DIR_NAME));
  } catch {
    return [];
  }
  const out: PruneRecord[] = [];
  for (const id of ids.filter((i) => TRASH_ID.test(i))) {
    try {
      out.push(JSON.parse(await readMemoryText(dir, path.join(dir, TRASH_DIR_NAME, id, RECORD_FILE))) as PruneRecord);
    } catch {
      // an interrupted prune before its record (nothing to restore from), or a record that links out
    }
  }
  return out.sort((a, b) => (a.prunedAt < b.prunedAt ? 1 : a.prunedAt > b.prunedAt ? -1 : 0));
}

function trashDir(dir: string, id: string): string {
  const p = path.join(dir, TRASH_DIR_NAME, id);
  // A `.trash` that is a symlink out of the folder would carry memory files elsewhere.
  if (confineTo(dir)(p, 'write'))
    throw new MemoryPathError(`The trash folder ${p} resolves outside the memory folder.`);
  return p;
}

async function isFile(p: string): Promise<boolean> {
  try {
    const st = await fsp.lstat(p);
    return st.isFile() || st.isSymbolicLink();
  } catch {
    return false;
  }
}
