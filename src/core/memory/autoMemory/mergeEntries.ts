// Merging memories, deterministically and locally (no model call): two or more entries of one type become
// one topic file, the first's (front matter and body as they were), with each other entry's body below it
// under its title as a heading; the person edits the result afterwards. Nothing is lost on the way: every
// merged entry, the first included, is pruned into the trash first (memoryTrash.ts), then the combined
// file is written where the first was and its index line goes back at the first's place. Undo prunes the
// combined file (so later edits to it stay in the trash too) and restores the originals byte for byte.
import path from 'node:path';
import type { Logger } from '../../ports';
import { readMemoryText, writeMemoryFile } from './memoryFiles';
import { formatIndexLine, linksTo, parseIndexLine, type IndexLine } from './memoryIndex';
import { MEMORY_INDEX_FILE, MemoryPathError, normaliseName, resolveMemoryFile } from './memoryPaths';
import { pruneEntry, restoreEntry, type PruneRecord } from './memoryTrash';
import { reinsertLines, setIndexEntry, withMemoryLock } from './memoryWriter';
import { parseTopicFile, type MemoryType } from './topicFile';
import { foldUsage } from './usageCounts';

export interface MergeResult {
  /** The combined topic file (the first entry's name), relative to the memory folder, and its path. */
  file: string;
  path: string;
  title: string;
  /** The other entries' files, now part of `file`. */
  merged: string[];
  /** The trash records of the originals, in the order they were pruned (undo goes backwards). */
  trashIds: string[];
}

interface Source {
  file: string;
  entry: IndexLine;
  text: string;
  body: string;
  type: MemoryType | null;
}

/** The combined text: the first file as it is, then each other body under `## <its title>`. */
export function mergedText(first: { text: string }, others: ReadonlyArray<{ title: string; body: string }>): string {
  const parts = [first.text.replace(/\s+$/, '')];
  for (const o of others) parts.push(`## ${o.title.replace(/\s+/g, ' ').trim()}\n\n${o.body.trim()}`);
  return `${parts.join('\n\n')}\n`;
}

/**
 * Merges the entries of `files` (index order of the list given: the first one keeps its name, title and
 * front matter). Refuses, changing nothing, unless there are two or more distinct indexed topic files of
 * one type.
 */
export async function mergeEntries(
  dir: string,
  files: readonly string[],
  opts: { now?: Date; logger?: Logger } = {},
): Promise<MergeResult> {
  const names = [...new Set(files.map(normaliseName))];
  if (names.length < 2) throw new MemoryPathError('Pick two or more memories to merge.');
  const sources = await readSources(dir, names);
  const types = new Set(sources.map((s) => s.type));
  if (types.size > 1) {
    throw new MemoryPathError(
      `Only memories of one type can be merged; these are ${[...types].map((t) => t ?? 'untyped').join(' and ')}.`,
    );
  }
  const [first, ...others] = sources;
  const text = mergedText(
    first,
    others.map((o) => ({ title: o.entry.title, body: o.body })),
  );
  const hooks = [first.entry.hook, ...others.map((o) => o.entry.hook)].filter((h) => h.trim() !== '');
  const line = formatIndexLine({ title: first.entry.title, file: first.file, hook: hooks.join('; ') });

  // The others first, then the first: its record's line position is then where its line goes back.
  const records: PruneRecord[] = [];
  try {
    for (const s of [...others, first]) records.push(await pruneEntry(dir, s.file, opts.now));
  } catch (e) {
    await restoreAll(dir, records);
    throw e;
  }
  const firstRecord = records[records.length - 1];
  const abs = resolveMemoryFile(dir, first.file);
  try {
    await withMemoryLock(dir, async () => {
      await writeMemoryFile(dir, abs, text);
      const at = firstRecord.removed.lines[0]?.index;
      if (at !== undefined) await reinsertLines(dir, { lines: [{ index: at, text: `${line}${eolOf(firstRecord)}` }] });
    });
    if (firstRecord.removed.lines.length === 0)
      await setIndexEntry(dir, { title: first.entry.title, file: first.file, hook: hooks.join('; ') });
  } catch (e) {
    // The originals are whole in the trash: put them back rather than leave half a merge.
    await pruneEntry(dir, first.file).catch(() => undefined);
    await restoreAll(dir, records);
    throw e;
  }
  await foldUsage(
    dir,
    first.file,
    others.map((o) => o.file),
    opts.logger,
  ).catch((e: unknown) => opts.logger?.warn(`Could not move the use counts of merged memories: ${String(e)}`));
  return {
    file: first.file,
    path: abs,
    title: first.entry.title,
    merged: others.map((o) => o.file),
    trashIds: records.map((r) => r.id),
  };
}

/** Takes a merge back: the combined file goes to the trash, the originals come back as they were. */
export async function undoMerge(dir: string, merge: Pick<MergeResult, 'file' | 'trashIds'>): Promise<void> {
  await pruneEntry(dir, merge.file);
  for (const id of [...merge.trashIds].reverse()) await restoreEntry(dir, id);
}

async function restoreAll(dir: string, records: readonly PruneRecord[]): Promise<void> {
  for (const r of [...records].reverse()) await restoreEntry(dir, r.id).catch(() => undefined);
}

async function readSources(dir: string, names: readonly string[]): Promise<Source[]> {
  let index = '';
  try {
    index = await readMemoryText(dir, path.join(dir, MEMORY_INDEX_FILE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const lines = index.split(/\r?\n/).map(parseIndexLine);
  const out: Source[] = [];
  for (const file of names) {
    const entry = lines.find((l): l is IndexLine => l !== undefined && linksTo(l, file));
    if (!entry) throw new MemoryPathError(`${file} has no line in ${MEMORY_INDEX_FILE}, so it cannot be merged.`);
    let text: string;
    try {
      text = await readMemoryText(dir, resolveMemoryFile(dir, file));
    } catch (e) {
      throw new MemoryPathError(`${file} cannot be read, so it cannot be merged: ${(e as Error).message}`);
    }
    const parsed = parseTopicFile(text);
    if (parsed.binary) throw new MemoryPathError(`${file} is not a text file, so it cannot be merged.`);
    out.push({ file, entry, text, body: parsed.body, type: parsed.type });
  }
  return out;
}

function eolOf(record: PruneRecord): string {
  return record.removed.lines[0]?.text.endsWith('\r\n') ? '\r\n' : '\n';
}
