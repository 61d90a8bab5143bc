// What is at a path, following links: a directory, a regular file, or (for both answers) nothing readable.

import { promises as fsp } from 'node:fs';
import path from 'node:path';

export async function isDirectory(p: string): Promise<boolean> {
  return (await fsp.stat(p).catch(() => null))?.isDirectory() ?? false;
}

export async function isFile(p: string): Promise<boolean> {
  return (await fsp.stat(p).catch(() => null))?.isFile() ?? false;
}

/**
 * What stops `dir` from being (or becoming) a folder: the nearest part of it that exists and is not a
 * folder (`dir` itself, or a parent), else undefined. mkdir says only EEXIST or ENOTDIR.
 */
export async function fileInTheWay(dir: string): Promise<string | undefined> {
  let at = path.resolve(dir);
  for (;;) {
    const st = await fsp.stat(at).catch(() => null);
    if (st) return st.isDirectory() ? undefined : at;
    const up = path.dirname(at);
    if (up === at) return undefined;
    at = up;
  }
}
