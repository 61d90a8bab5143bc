// How often each topic file was used: recalled into a turn, or read by the main agent. Kept per memory
// folder in `<memory>/.usage.json` (a dot file: the index scan, recall and team sync all skip hidden
// files, so the team folder's counts stay on this machine). The counts only order suggestions (prune
// the least used first), so a lost increment between two windows is harmless; a file someone broke is
// read as empty, logged once, and replaced on the next write. MEMORY.md is never touched here.
import path from 'node:path';
import { z } from 'zod';
import { isErrno } from '../../fs/errno';
import { silentLogger, type Logger } from '../../ports';
import { readMemoryText, writeMemoryFile } from './memoryFiles';
import { normaliseName } from './memoryPaths';
import { withMemoryLock } from './memoryWriter';

export const USAGE_FILE = '.usage.json';
/** Beyond this many files the ones used longest ago are forgotten, so the file stays small. */
const MAX_TRACKED = 2_000;

export type UseKind = 'recall' | 'read';

export interface EntryUsage {
  recalls: number;
  reads: number;
  /** ISO time of the newest use. */
  lastUsed: string;
  /**
   * Words of messages the person said this memory was not relevant to (the words it matched then):
   * recall leaves it out of a message it would match through these words only.
   */
  notRelevant?: string[][];
  /** Turns that recalled it and acted in line with it (issue 32): absent in files written before. */
  used?: number;
  /** The evidence of the newest such turns: the memory's words or references found in the reply or tool calls. */
  usedEvidence?: string[][];
  /** Later user messages that corrected it. */
  corrected?: number;
  /** The newest corrections: when, and the person's message (clipped). */
  corrections?: Array<{ at: string; message: string }>;
}

/** How many pieces of evidence and corrections are kept per memory (the counts go on). */
const MAX_KEPT = 5;

const Count = z.number().int().nonnegative();
const UsageEntry = z.object({
  recalls: Count,
  reads: Count,
  lastUsed: z.string().datetime(),
  notRelevant: z.array(z.array(z.string())).optional(),
  used: Count.optional(),
  usedEvidence: z.array(z.array(z.string())).optional(),
  corrected: Count.optional(),
  corrections: z.array(z.object({ at: z.string(), message: z.string() })).optional(),
});
const UsageFile = z.object({ version: z.literal(1), entries: z.record(z.string(), UsageEntry) });

/** Recalls and reads together: what "used 7×" counts. */
export function usesOf(u: EntryUsage | undefined): number {
  return u ? u.recalls + u.reads : 0;
}

function usagePath(dir: string): string {
  return path.join(dir, USAGE_FILE);
}

/** The counts of a memory folder by topic file (relative name); empty when there are none or the file is broken. */
export async function readUsage(dir: string, logger: Logger = silentLogger): Promise<Record<string, EntryUsage>> {
  let text: string;
  try {
    text = await readMemoryText(dir, usagePath(dir));
  } catch (e) {
    if (!isErrno(e, 'ENOENT'))
      logger.warn(
        `Memory use counts ${usagePath(dir)} could not be read (${(e as Error).message}); counting starts over.`,
      );
    return {};
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    logger.warn(`Memory use counts ${usagePath(dir)} are not JSON (${(e as Error).message}); counting starts over.`);
    return {};
  }
  const parsed = UsageFile.safeParse(raw);
  if (!parsed.success) {
    const problem = parsed.error.issues[0]?.message ?? 'unknown problem';
    logger.warn(`Memory use counts ${usagePath(dir)} are malformed (${problem}); counting starts over.`);
    return {};
  }
  return parsed.data.entries;
}

/** Changes the counts through `edit`, one change at a time per folder (in this process), written atomically. */
async function editUsage(
  dir: string,
  logger: Logger,
  edit: (entries: Record<string, EntryUsage>) => void,
): Promise<void> {
  // Its own lock key: a count never waits for (or holds up) an index write.
  await withMemoryLock(usagePath(dir), async () => {
    const entries = await readUsage(dir, logger);
    edit(entries);
    await writeMemoryFile(
      dir,
      usagePath(dir),
      `${JSON.stringify({ version: 1, entries: trimmed(entries) }, null, 1)}\n`,
    );
  });
}

/** Counts one use of each file (names relative to `dir`); never throws (a count is not worth a failed turn). */
export async function recordUse(
  dir: string,
  files: readonly string[],
  kind: UseKind,
  opts: { now?: Date; logger?: Logger } = {},
): Promise<void> {
  const logger = opts.logger ?? silentLogger;
  const names = [...new Set(files.map(normaliseName).filter((f) => f !== ''))];
  if (names.length === 0) return;
  const at = (opts.now ?? new Date()).toISOString();
  try {
    await editUsage(dir, logger, (entries) => {
      for (const name of names) {
        const u = entries[name] ?? { recalls: 0, reads: 0, lastUsed: at };
        entries[name] = {
          ...u,
          recalls: u.recalls + (kind === 'recall' ? 1 : 0),
          reads: u.reads + (kind === 'read' ? 1 : 0),
          lastUsed: at > u.lastUsed ? at : u.lastUsed,
        };
      }
    });
  } catch (e) {
    logger.warn(`Could not count the use of ${names.join(', ')}: ${(e as Error).message}`);
  }
}

/** What a turn showed about a recalled memory: acted on (with the evidence), or corrected by the person. */
export type UseOutcome = { used: readonly string[] } | { corrected: string };

/** Counts one turn's outcome for `file` (relative to `dir`); never throws, like recordUse. */
export async function recordOutcome(
  dir: string,
  file: string,
  outcome: UseOutcome,
  opts: { now?: Date; logger?: Logger } = {},
): Promise<void> {
  const logger = opts.logger ?? silentLogger;
  const name = normaliseName(file);
  const at = (opts.now ?? new Date()).toISOString();
  try {
    await editUsage(dir, logger, (entries) => {
      const u = entries[name] ?? { recalls: 0, reads: 0, lastUsed: at };
      entries[name] =
        'used' in outcome
          ? {
              ...u,
              used: (u.used ?? 0) + 1,
              usedEvidence: [...(u.usedEvidence ?? []), [...outcome.used]].slice(-MAX_KEPT),
              lastUsed: at > u.lastUsed ? at : u.lastUsed,
            }
          : {
              ...u,
              corrected: (u.corrected ?? 0) + 1,
              corrections: [...(u.corrections ?? []), { at, message: outcome.corrected }].slice(-MAX_KEPT),
            };
    });
  } catch (e) {
    logger.warn(`Could not count the outcome for ${name}: ${(e as Error).message}`);
  }
}

/**
 * Records (or with `undo` takes back) that `file` was not relevant to a message it matched through
 * `words`. Unlike a count, this is the person's word: a failure is thrown for the caller to show.
 */
export async function setNotRelevant(
  dir: string,
  file: string,
  words: readonly string[],
  undo = false,
  logger: Logger = silentLogger,
): Promise<void> {
  const name = normaliseName(file);
  const key = sameWords(words);
  await editUsage(dir, logger, (entries) => {
    const u = entries[name] ?? { recalls: 0, reads: 0, lastUsed: new Date().toISOString() };
    const kept = (u.notRelevant ?? []).filter((w) => sameWords(w) !== key);
    const notRelevant = undo ? kept : [...kept, [...words]];
    const { notRelevant: _old, ...rest } = u;
    entries[name] = notRelevant.length > 0 ? { ...rest, notRelevant } : rest;
  });
}

function sameWords(words: readonly string[]): string {
  return [...new Set(words.map((w) => w.toLowerCase()))].sort().join('\0');
}

/** After a merge: the merged files' counts go to the file that holds them now. */
export async function foldUsage(
  dir: string,
  into: string,
  from: readonly string[],
  logger: Logger = silentLogger,
): Promise<void> {
  const target = normaliseName(into);
  await editUsage(dir, logger, (entries) => {
    let sum = entries[target];
    for (const name of from.map(normaliseName)) {
      const u = entries[name];
      if (!u || name === target) continue;
      sum = sum
        ? {
            recalls: sum.recalls + u.recalls,
            reads: sum.reads + u.reads,
            lastUsed: u.lastUsed > sum.lastUsed ? u.lastUsed : sum.lastUsed,
            ...optionalSum('used', sum.used, u.used),
            ...optionalSum('corrected', sum.corrected, u.corrected),
          }
        : { ...u };
      delete entries[name];
    }
    if (sum) entries[target] = sum;
  });
}

/** `{[key]: a + b}` when either was counted, else nothing (old files stay as they were). */
function optionalSum<K extends string>(
  key: K,
  a: number | undefined,
  b: number | undefined,
): Partial<Record<K, number>> {
  return a === undefined && b === undefined ? {} : ({ [key]: (a ?? 0) + (b ?? 0) } as Record<K, number>);
}

function trimmed(entries: Record<string, EntryUsage>): Record<string, EntryUsage> {
  const names = Object.keys(entries);
  if (names.length <= MAX_TRACKED) return entries;
  const keep = names.sort((a, b) => (entries[a].lastUsed < entries[b].lastUsed ? 1 : -1)).slice(0, MAX_TRACKED);
  return Object.fromEntries(keep.sort().map((n) => [n, entries[n]]));
}
