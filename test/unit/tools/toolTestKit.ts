// Test helpers for the tools: a real temp directory per test and a ToolContext pointing at it.
import { promises as fsp, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ReadFileState } from '../../../src/core/tools/readFileState';
import type { ToolContext } from '../../../src/core/tools/tool';

const created: string[] = [];
process.on('exit', () => {
  for (const d of created) rmSync(d, { recursive: true, force: true });
});

export async function tempDir(prefix = 'engram-tools-'): Promise<string> {
  // realpath: on macOS os.tmpdir() is behind a symlink, and tools report real paths.
  const dir = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

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
