// Deleting a pruned entry for good: the one step that loses data, so the host asks a second time before
// calling this. Only a folder under `memory/.trash/` with a trash id for a name is removed.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { MemoryPathError, TRASH_DIR_NAME } from './memoryPaths';
import { withMemoryLock } from './memoryWriter';
import { confineTo } from '../../fs/pathGuard';

const TRASH_ID = /^[0-9A-Za-z][0-9A-Za-z-]{0,80}$/;

export async function deleteTrashEntry(dir: string, id: string): Promise<void> {
  if (!TRASH_ID.test(id)) throw new MemoryPathError(`Not a trash id: ${JSON.stringify(id.slice(0, 80))}.`);
  const target = path.join(dir, TRASH_DIR_NAME, id);
  if (confineTo(dir)(target, 'write'))
    throw new MemoryPathError(`The trash folder ${target} resolves outside the memory folder.`);
  await withMemoryLock(dir, async () => {
    await fsp.access(path.join(target, 'prune.json'));
    await fsp.rm(target, { recursive: true, force: true });
  });
}
