// What follows a summarising compaction on the main thread (DESIGN 5): the pins first (pinnedBlock.ts),
// then recently read or edited files go back into the context as they are on disk now, and the agent
// forgets that it read the others.
import { promises as fsp } from 'node:fs';
import type { Pin } from '../conversation/pinLines';
import type { ReadFileState } from '../tools/readFileState';
import { buildReattachment, recentPaths, type ReattachInputs } from './reattach';
import { carryPins, type PinsCarried } from './pinnedBlock';
import type { CompactionSettings } from './settings';

export interface ReattachResult {
  text: string;
  /** Files put back whole: the agent may still edit them without reading them again. */
  whole: string[];
  /** What the pins cost and how many the budget cut; undefined when there are no pins. */
  pins: PinsCarried | undefined;
}

export async function reattachRecent(
  readFiles: ReadFileState,
  s: CompactionSettings,
  opts: {
    readFile?(path: string): Promise<string | undefined>;
    context?: Pick<ReattachInputs, 'instructions' | 'memoryIndex'>;
    countTokens(text: string): number;
    pins?: readonly Pin[];
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
  const pinned = pinsText(opts.pins ?? [], s, opts.countTokens);
  return {
    text: [pinned.text, built.text].filter((t) => t !== '').join('\n\n'),
    whole: built.files.filter((f) => f.complete).map((f) => f.path),
    pins: pinned.carried,
  };
}

/** The pins' block alone (the reactive stage re-attaches no files, but the pins still go along). */
export function pinsText(
  pins: readonly Pin[],
  s: CompactionSettings,
  countTokens: (text: string) => number,
): { text: string; carried: PinsCarried | undefined } {
  if (pins.length === 0) return { text: '', carried: undefined };
  const c = carryPins(pins, s.pinBudgetTokens, countTokens);
  return { text: c.text, carried: { count: c.carried.length, tokens: c.tokens, cut: c.cut.length } };
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
