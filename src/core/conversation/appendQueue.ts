// Appends to transcript files: one queue per file, shared by every writer of that file in this process,
// so lines land in call order; and the torn-tail check a writer makes before its first line.
import { promises as fsp } from 'node:fs';
import { isErrno } from '../fs/errno';

const queues = new Map<string, Promise<void>>();

export function enqueue(file: string, write: () => Promise<void>): Promise<void> {
  const prev = queues.get(file) ?? Promise.resolve();
  const next = prev.then(write);
  // A failed write rejects its own caller only; later lines still get their turn.
  const settled = next.catch(() => undefined);
  queues.set(file, settled);
  void settled.then(() => {
    if (queues.get(file) === settled) queues.delete(file);
  });
  return next;
}

export function queueTail(file: string): Promise<void> {
  return queues.get(file) ?? Promise.resolve();
}

/**
 * Appends `text`, first ending a torn last line (no trailing newline) when `checkTail` is set. Returns
 * the bytes written, so a writer knows what size the file has if nobody else appended to it. A file
 * this call made is removed again when nothing could be written to it (a full disk): an empty
 * transcript would look like a session that exists.
 */
export async function appendText(file: string, text: string, checkTail: boolean): Promise<number> {
  if (!checkTail) {
    await fsp.appendFile(file, text, 'utf8');
    return Buffer.byteLength(text);
  }
  const { handle, created } = await openForAppend(file);
  let written = false;
  try {
    const { size } = await handle.stat();
    let out = text;
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) out = `\n${text}`;
    }
    await handle.appendFile(out, 'utf8');
    written = true;
    return Buffer.byteLength(out);
  } finally {
    await handle.close();
    if (!written && created) await fsp.rm(file, { force: true }).catch(() => undefined);
  }
}

async function openForAppend(file: string): Promise<{ handle: fsp.FileHandle; created: boolean }> {
  try {
    return { handle: await fsp.open(file, 'ax+'), created: true };
  } catch (e) {
    if (!isErrno(e, 'EEXIST')) throw e;
    return { handle: await fsp.open(file, 'a+'), created: false };
  }
}
