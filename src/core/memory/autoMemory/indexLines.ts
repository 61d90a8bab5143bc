// MEMORY.md as a list of lines: read it, rewrite it atomically through an edit of its lines (keeping
// its line endings), and find or replace the line that links to a topic file. Apart from the memory
// writer's operations (memoryWriter.ts), which take the folder's lock and call these inside it: nothing
// here locks, so every caller must hold withMemoryLock for the folder.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { sha1 } from '../../fs/fileText';
import { insertWhereLoaded } from './indexPlacement';
import { readMemoryText, writeMemoryFile } from './memoryFiles';
import { linksTo, parseIndexLine } from './memoryIndex';
import { MEMORY_INDEX_FILE } from './memoryPaths';

/** A file's state right after Engram wrote it, so a watcher can tell that write from a later one. */
export interface StampedState {
  mtimeMs: number;
  contentHash: string;
}

/** Writes `text` atomically inside the memory folder and returns the state it left the file in. */
export async function writeStamped(dir: string, abs: string, text: string): Promise<StampedState> {
  return { mtimeMs: await writeMemoryFile(dir, abs, text), contentHash: sha1(Buffer.from(text, 'utf8')) };
}

interface IndexText {
  /** Lines with their endings, except that `lines` mode strips them (see editIndex). */
  lines: string[];
  exists: boolean;
}

/** MEMORY.md's lines (none when it does not exist yet), for finding an entry without editing. */
export async function readIndex(dir: string): Promise<IndexText> {
  try {
    const text = await readMemoryText(dir, path.join(dir, MEMORY_INDEX_FILE));
    return { lines: text.split(/\r?\n/), exists: true };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], exists: false };
    throw e;
  }
}

/** Each line with its ending; the last element has none (and is '' when the text ends with one). */
function splitKeepEol(text: string): string[] {
  const out = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return out;
}

export function stripEol(line: string): string {
  return line.replace(/\r?\n$/, '');
}

export function eolOf(lines: string[]): string {
  return lines.some((l) => l.endsWith('\r\n')) ? '\r\n' : '\n';
}

/** True when `line` is an index entry that links to the topic file `name`. */
export function linksToName(line: string, name: string): boolean {
  const e = parseIndexLine(stripEol(line));
  return e !== undefined && linksTo(e, name);
}

/** Replaces the first line for `name` (and drops later duplicates) or adds one where it loads. */
export function upsertLine(lines: string[], name: string, line: string): string[] {
  const at = lines.findIndex((l) => linksToName(l, name));
  if (at === -1) return insertWhereLoaded(lines, line);
  return lines.filter((l, i) => i === at || !linksToName(l, name)).map((l) => (linksToName(l, name) ? line : l));
}

/**
 * Rewrites MEMORY.md through `edit`, atomically, keeping its line endings. In the default mode `edit`
 * sees lines without endings; with `raw` it sees splitKeepEol's elements and must keep their endings.
 */
export async function editIndex(
  dir: string,
  edit: (lines: string[]) => string[],
  opts: { raw?: boolean } = {},
): Promise<StampedState | undefined> {
  const file = path.join(dir, MEMORY_INDEX_FILE);
  let text = '';
  try {
    text = await readMemoryText(dir, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  let next: string;
  if (opts.raw) {
    next = edit(splitKeepEol(text)).join('');
  } else {
    const eol = /\r\n/.test(text) ? '\r\n' : '\n';
    const lines = text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
    const out = edit(lines);
    next = out.length === 0 ? '' : out.join(eol) + eol;
  }
  if (next === text) return undefined;
  await fsp.mkdir(dir, { recursive: true });
  return writeStamped(dir, file, next);
}
