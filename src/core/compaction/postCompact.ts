// What follows a summarising compaction on the main thread (DESIGN 5): recently read or edited files
// go back into the context as they are on disk now, and the agent forgets that it read the others.
import { promises as fsp } from 'node:fs';
import type { ReadFileState } from '../tools/readFileState';
import { buildReattachment, recentPaths, type ReattachInputs } from './reattach';
import type { CompactionSettings } from './settings';

export interface ReattachResult {
  text: string;
  /** Files put back whole: the agent may still edit them without reading them again. */
  whole: string[];
}

export async function reattachRecent(
  readFiles: ReadFileState,
  s: CompactionSettings,
  opts: {
    readFile?(path: string): Promise<string | undefined>;
    context?: Pick<ReattachInputs, 'instructions' | 'memoryIndex'>;
    countTokens(text: string): number;
  },
): Promise<ReattachResult> {
  const read = opts.readFile ?? readUtf8;
  const files = await Promise.all(
    recentPaths(readFiles, s.reattachMaxFiles).map(async (p) => ({ path: p, content: await read(p) })),
  );
  const built = buildReattachment(
    { files, ...opts.context },
    { maxFiles: s.reattachMaxFiles, fileTokens: s.reattachFileTokens, totalTokens: s.reattachTotalTokens },
    opts.countTokens,
  );
  return { text: built.text, whole: built.files.filter((f) => f.complete).map((f) => f.path) };
}

/**
 * What the model saw of a file is gone with the summary, except the files re-attached whole: the Edit
 * tool then refuses an edit until the file is read again, instead of editing from a faded memory.
 */
export function forgetReads(readFiles: ReadFileState, keep: readonly string[]): void {
  const kept = new Set(keep);
  for (const { path } of readFiles.recent(Number.MAX_SAFE_INTEGER)) if (!kept.has(path)) readFiles.delete(path);
}

async function readUtf8(p: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(p, 'utf8');
  } catch {
    return undefined;
  }
}
