// Test helpers for the tools: a ToolContext for a folder, files written into it, and what is in it.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { ReadFileState } from '../../../src/core/tools/readFileState';
import type { ToolContext } from '../../../src/core/tools/tool';

export function makeCtx(cwd: string, extra: Partial<ToolContext> = {}): ToolContext {
  return { cwd, signal: new AbortController().signal, readFiles: new ReadFileState(), ...extra };
}

export async function write(dir: string, rel: string, content: string | Buffer): Promise<string> {
  const abs = path.join(dir, rel);
  await fsp.mkdir(path.dirname(abs), { recursive: true });
  await fsp.writeFile(abs, content);
  return abs;
}

/** Sets a file's mtime to `secondsAgo` in the past, to control mtime ordering and staleness. */
export async function age(abs: string, secondsAgo: number): Promise<void> {
  const t = new Date(Date.now() - secondsAgo * 1000);
  await fsp.utimes(abs, t, t);
}

export async function listAll(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out.push(path.relative(dir, path.join(e.parentPath, e.name)));
  }
  return out.sort();
}
