// What is at a path, following links: a directory, a regular file, or (for both answers) nothing readable.

import { promises as fsp } from 'node:fs';

export async function isDirectory(p: string): Promise<boolean> {
  return (await fsp.stat(p).catch(() => null))?.isDirectory() ?? false;
}

export async function isFile(p: string): Promise<boolean> {
  return (await fsp.stat(p).catch(() => null))?.isFile() ?? false;
}
