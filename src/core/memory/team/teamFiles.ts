// The team folder's files as the sync sees them: Markdown files by their path relative to the folder
// (forward slashes, the wire's EntryPath), hidden files and folders left out (`.sync`, `.conflicts`,
// `.trash` are the sync's and the pruner's own), and nothing read through a symlink that leads out of
// the folder: a link to ~/.ssh/id_rsa named like a topic file must never reach the server.
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { readFileWithin } from '../../fs/confinedFile';
import { isErrno } from '../../fs/errno';
import { EntryPath } from './teamProtocol';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function teamFilePath(teamDir: string, entryPath: string): string {
  return path.join(teamDir, ...entryPath.split('/'));
}

/** Every pushable file of the team folder: entry path -> content. */
export async function listTeamFiles(teamDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  await walk(teamDir, '', out);
  return out;
}

async function walk(teamDir: string, rel: string, out: Map<string, string>): Promise<void> {
  let entries;
  try {
    entries = await fsp.readdir(path.join(teamDir, rel), { withFileTypes: true });
  } catch (err) {
    if (isErrno(err, 'ENOENT', 'ENOTDIR')) return;
    throw err;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const child = rel === '' ? e.name : `${rel}/${e.name}`;
    // Linked folders are not walked (a loop, or a way out); linked files are read only when they stay inside.
    if (e.isDirectory()) await walk(teamDir, child, out);
    else if ((e.isFile() || e.isSymbolicLink()) && EntryPath.safeParse(child).success) {
      const content = await readTeamFile(teamDir, child);
      if (content !== null) out.set(child, content);
    }
  }
}

/** The content of one team file, or null when it is missing, not a regular file, or leads out of the folder. */
export async function readTeamFile(teamDir: string, entryPath: string): Promise<string | null> {
  try {
    return (await readFileWithin(teamDir, teamFilePath(teamDir, entryPath))).data.toString('utf8');
  } catch (err) {
    if (isErrno(err, 'ENOENT', 'ENOTDIR', 'EOUTSIDE', 'ENOTFILE', 'ELOOP')) return null;
    throw err;
  }
}
