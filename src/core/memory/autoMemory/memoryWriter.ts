// Writes auto memory: a topic file and its index line, each replaced atomically (temp file + rename), the
// topic file first so an index line never points at a file that is not there yet. An existing entry is
// updated in place instead of duplicated. Every name goes through resolveMemoryFile (no `..`, absolute
// paths, control characters, or symlinks out of the folder). Writes to one folder run one at a time in
// this process, so two writers cannot lose each other's index line. Files are opened through
// memoryFiles.ts, which refuses a symlink out of the folder at open time (the index too).
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { sha1 } from '../../fs/fileText';
import { assertInsideMemory, readMemoryFile, readMemoryText, writeMemoryFile } from './memoryFiles';
import { formatIndexLine, linksTo, parseIndexLine, type IndexLine } from './memoryIndex';
import { MEMORY_INDEX_FILE, MemoryPathError, normaliseName, resolveMemoryFile } from './memoryPaths';
import { formatTopicFile, isMemoryType, parseTopicFile, setFrontMatterKeys, type MemoryType } from './topicFile';

/** Which conversation and message a memory came from (recorded in its front matter). */
export interface MemoryProvenance {
  originSessionId: string;
  originMessageId: string;
}

export interface WriteMemoryInput {
  /** Relative to the memory folder, e.g. `feedback_testing.md`. */
  file: string;
  /** The index line's link text. */
  title: string;
  /** The index line's one-line hook. */
  hook: string;
  /** Front matter `name`; default: the file name without `.md`. */
  name?: string;
  description: string;
  type: MemoryType;
  body: string;
  provenance: MemoryProvenance;
}

export interface WriteMemoryResult {
  path: string;
  file: string;
  created: boolean;
  indexLine: string;
}

const locks = new Map<string, Promise<unknown>>();

/** Runs `fn` after every earlier locked call on the same folder has finished. */
export function withMemoryLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const key = path.resolve(dir);
  const prev = locks.get(key) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const settled = run.catch(() => undefined);
  locks.set(key, settled);
  void settled.then(() => {
    if (locks.get(key) === settled) locks.delete(key);
  });
  return run;
}

export async function writeMemory(dir: string, input: WriteMemoryInput): Promise<WriteMemoryResult> {
  if (!isMemoryType(input.type)) throw new Error(`Unknown memory type ${JSON.stringify(input.type)}.`);
  const abs = resolveMemoryFile(dir, input.file);
  const file = normaliseName(input.file);
  return withMemoryLock(dir, async () => {
    const created = !(await exists(abs));
    const text = formatTopicFile({
      name: input.name ?? path.basename(file, '.md'),
      description: input.description,
      type: input.type,
      originSessionId: input.provenance.originSessionId,
      originMessageId: input.provenance.originMessageId,
    }, input.body);
    assertInsideMemory(dir, abs); // before mkdir, which would follow a linked folder out
    await fsp.mkdir(path.dirname(abs), { recursive: true });
    await writeMemoryFile(dir, abs, text);
    const indexLine = formatIndexLine({ title: input.title, file, hook: input.hook });
    await editIndex(dir, (lines) => upsertLine(lines, file, indexLine));
    return { path: abs, file, created, indexLine };
  });
}

/** Adds or replaces the index line of `entry.file`; returns the line as written. */
export async function setIndexEntry(dir: string, entry: IndexLine): Promise<string> {
  resolveMemoryFile(dir, entry.file);
  const file = normaliseName(entry.file);
  const line = formatIndexLine({ ...entry, file });
  return withMemoryLock(dir, async () => {
    await editIndex(dir, (lines) => upsertLine(lines, file, line));
    return line;
  });
}

/**
 * Gives a topic file an index line when it has none (a writer that forgot it), from its front matter.
 * Returns the entry's title, or undefined when the file cannot be read.
 */
export async function ensureIndexed(dir: string, file: string): Promise<{ title: string; added: boolean } | undefined> {
  const abs = resolveMemoryFile(dir, file);
  const name = normaliseName(file);
  return withMemoryLock(dir, async () => {
    const existing = (await readIndex(dir)).lines.map(parseIndexLine).find((e) => e && linksTo(e, name));
    if (existing) return { title: existing.title, added: false };
    let parsed;
    try {
      parsed = parseTopicFile((await readMemoryFile(dir, abs)).data);
    } catch (e) {
      if (e instanceof MemoryPathError) throw e;
      return undefined;
    }
    if (parsed.binary) return undefined;
    const title = parsed.name?.trim() || path.basename(name, '.md').replace(/[_-]+/g, ' ');
    const line = formatIndexLine({ title, file: name, hook: parsed.description ?? '' });
    await editIndex(dir, (lines) => upsertLine(lines, name, line));
    return { title, added: true };
  });
}

/** Lines removed from the index, with their positions, so they can be put back exactly. */
export interface RemovedLines {
  /** Each element is a whole line with its line ending (the last line of a file may have none). */
  lines: Array<{ index: number; text: string }>;
}

/** Removes every index line that links to `file`; the topic file is left alone. */
export async function removeEntry(dir: string, file: string): Promise<RemovedLines> {
  const name = normaliseName(file);
  return withMemoryLock(dir, () => removeLines(dir, name));
}

export async function removeLines(dir: string, name: string): Promise<RemovedLines> {
  const removed: RemovedLines = { lines: [] };
  await editIndex(dir, (lines) => lines.filter((text, index) => {
    const e = parseIndexLine(stripEol(text));
    if (e && linksTo(e, name)) {
      removed.lines.push({ index, text });
      return false;
    }
    return true;
  }), { raw: true });
  return removed;
}

/** Puts removed lines back at their old positions (clamped when the index got shorter since). */
export async function reinsertLines(dir: string, removed: RemovedLines): Promise<void> {
  await editIndex(dir, (lines) => {
    const out = lines.slice();
    for (const { index, text } of [...removed.lines].sort((a, b) => a.index - b.index)) {
      const at = Math.min(index, out.length);
      if (at > 0 && !/\n$/.test(out[at - 1])) out[at - 1] += eolOf(out);
      out.splice(at, 0, at < out.length && !/\n$/.test(text) ? text + eolOf(out) : text);
    }
    return out;
  }, { raw: true });
}

/** Changes an entry's title, hook and/or file name (the file is moved; the line keeps its place). */
export async function renameEntry(dir: string, file: string, change: { title?: string; hook?: string; file?: string }): Promise<IndexLine> {
  const fromAbs = resolveMemoryFile(dir, file);
  const toAbs = resolveMemoryFile(dir, change.file ?? file);
  const from = normaliseName(file);
  const to = normaliseName(change.file ?? file);
  return withMemoryLock(dir, async () => {
    if (to !== from) {
      if (await exists(toAbs)) throw new MemoryPathError(`Cannot rename ${from} to ${to}: ${to} already exists.`);
      // Checked again now: a folder on either path may have become a link since the names were checked.
      assertInsideMemory(dir, fromAbs);
      assertInsideMemory(dir, toAbs);
      await fsp.mkdir(path.dirname(toAbs), { recursive: true });
      await fsp.rename(fromAbs, toAbs);
    }
    const current = (await readIndex(dir)).lines.map(parseIndexLine).find((e) => e && linksTo(e, from));
    const entry: IndexLine = {
      title: change.title ?? current?.title ?? path.basename(to, '.md'),
      hook: change.hook ?? current?.hook ?? '',
      file: to,
    };
    const line = formatIndexLine(entry);
    await editIndex(dir, (lines) => {
      const at = lines.findIndex((l) => matches(l, from));
      const rest = lines.filter((l, i) => i === at || !matches(l, from));
      if (at === -1) return [...rest, line];
      return rest.map((l) => (matches(l, from) ? line : l));
    });
    return entry;
  });
}

/** Sets the topic file's `type` (where it already is: top level, or under `metadata:`). */
export async function changeType(dir: string, file: string, type: MemoryType): Promise<void> {
  if (!isMemoryType(type)) return Promise.reject(new Error(`Unknown memory type ${JSON.stringify(type)}.`));
  const abs = resolveMemoryFile(dir, file);
  return withMemoryLock(dir, async () => {
    const text = await readMemoryText(dir, abs);
    await writeMemoryFile(dir, abs, setFrontMatterKeys(text, { type }, { nestedType: true }));
  });
}

/**
 * Records where a memory came from, if the file does not say yet (a file rewritten by an agent loses
 * it and gets the new origin). Returns the file's new state when it changed.
 */
export async function stampProvenance(dir: string, file: string, provenance: MemoryProvenance): Promise<{ mtimeMs: number; contentHash: string } | undefined> {
  const abs = resolveMemoryFile(dir, file);
  return withMemoryLock(dir, async () => {
    let text: string;
    try {
      const buf = (await readMemoryFile(dir, abs)).data;
      if (parseTopicFile(buf).binary) return undefined;
      text = buf.toString('utf8');
    } catch (e) {
      if (e instanceof MemoryPathError) throw e;
      return undefined;
    }
    const next = setFrontMatterKeys(text, { originSessionId: provenance.originSessionId, originMessageId: provenance.originMessageId }, { onlyIfMissing: true });
    if (next === text) return undefined;
    return { mtimeMs: await writeMemoryFile(dir, abs, next), contentHash: sha1(Buffer.from(next, 'utf8')) };
  });
}

// ---- MEMORY.md as a list of lines ----

interface IndexText {
  /** Lines with their endings, except that `lines` mode strips them (see editIndex). */
  lines: string[];
  exists: boolean;
}

async function readIndex(dir: string): Promise<IndexText> {
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

function stripEol(line: string): string {
  return line.replace(/\r?\n$/, '');
}

function eolOf(lines: string[]): string {
  return lines.some((l) => l.endsWith('\r\n')) ? '\r\n' : '\n';
}

function matches(line: string, name: string): boolean {
  const e = parseIndexLine(stripEol(line));
  return e !== undefined && linksTo(e, name);
}

/** Replaces the first line for `name` (and drops later duplicates) or appends one. */
function upsertLine(lines: string[], name: string, line: string): string[] {
  const at = lines.findIndex((l) => matches(l, name));
  if (at === -1) return [...lines, line];
  return lines.filter((l, i) => i === at || !matches(l, name)).map((l) => (matches(l, name) ? line : l));
}

/**
 * Rewrites MEMORY.md through `edit`, atomically, keeping its line endings. In the default mode `edit`
 * sees lines without endings; with `raw` it sees splitKeepEol's elements and must keep their endings.
 */
async function editIndex(dir: string, edit: (lines: string[]) => string[], opts: { raw?: boolean } = {}): Promise<void> {
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
  if (next === text) return;
  await fsp.mkdir(dir, { recursive: true });
  await writeMemoryFile(dir, file, next);
}

async function exists(p: string): Promise<boolean> {
  try {
    await fsp.lstat(p);
    return true;
  } catch {
    return false;
  }
}
