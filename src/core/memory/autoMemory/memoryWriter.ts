// Writes auto memory: a topic file and its index line, each replaced atomically (temp file + rename), the
// topic file first so an index line never points at a file that is not there yet, and the line right
// after it in the same locked step (for a file an agent wrote, as soon as its Write returns: recordTopicFile),
// so a crash leaves a file without its line only for that moment; the next session finds such a file and
// indexes it (unindexedRecovery.ts). The other order would leave a line to a file that never came, or
// half came. A new line goes where the index still loads (indexPlacement.ts). An existing entry is
// updated in place instead of duplicated. Every name goes through resolveMemoryFile (no `..`, absolute
// paths, control characters, or symlinks out of the folder). Writes to one folder run one at a time in
// this process, so two writers cannot lose each other's index line. Files are opened through
// memoryFiles.ts, which refuses a symlink out of the folder at open time (the index too). Reading and
// rewriting MEMORY.md's lines is indexLines.ts; this file takes the lock and decides what changes.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import {
  editIndex,
  eolOf,
  linksToName,
  readIndex,
  stripEol,
  upsertLine,
  writeStamped,
  type StampedState,
} from './indexLines';
import { insertWhereLoaded, loadsAt } from './indexPlacement';
import { assertInsideMemory, readMemoryFile, readMemoryText, writeMemoryFile } from './memoryFiles';
import { formatIndexLine, linksTo, parseIndexLine, type IndexLine } from './memoryIndex';
import { MemoryPathError, normaliseName, resolveMemoryFile } from './memoryPaths';
import { formatTopicFile, isMemoryType, parseTopicFile, setFrontMatterKeys, type MemoryType } from './topicFile';

/**
 * Which conversation and message a memory came from (recorded in its front matter). A memory another
 * agent wrote (through `engram mcp` or VS Code's language model tools) has no Engram session: its ids
 * are empty and left out of the file, and `originClient` names the client (the MCP client's
 * `clientInfo.name`), `originVia` the door it came through.
 */
export interface MemoryProvenance {
  originSessionId: string;
  originMessageId: string;
  originClient?: string;
  originVia?: MemoryDoor;
}

/** How another agent reached memory: Engram's MCP server, or VS Code's language model tools. */
export type MemoryDoor = 'mcp' | 'vscode-lm';

/** The client that wrote a memory, from its front matter keys (`originClient`, `originVia`); undefined for Engram's own. */
export function clientProvenance(data: Record<string, unknown>): { client: string; via: MemoryDoor } | undefined {
  const client = typeof data.originClient === 'string' ? data.originClient.trim() : '';
  if (!client) return undefined;
  return { client, via: data.originVia === 'vscode-lm' ? 'vscode-lm' : 'mcp' };
}

/** The origin of a file found without its index line after a crash: no session can be named for it. */
export const RECOVERED_ORIGIN = 'recovered';

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
    const text = formatTopicFile(
      {
        name: input.name ?? path.basename(file, '.md'),
        description: input.description,
        type: input.type,
        ...provenanceFields(input.provenance),
      },
      input.body,
    );
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
  const entry = await withMemoryLock(dir, () => indexUnlocked(dir, abs, normaliseName(file)));
  return entry && { title: entry.title, added: entry.added };
}

export interface IndexedEntry {
  title: string;
  added: boolean;
  /** The line as added, and MEMORY.md's state after it. */
  line?: string;
  index?: StampedState;
}

/** What recordTopicFile wrote: the provenance (the file's new state) and the index line. */
export type Recorded = Partial<IndexedEntry> & { stamped?: StampedState };

type Origin = MemoryProvenance | { originSessionId: typeof RECOVERED_ORIGIN };

/**
 * A topic file that is on disk now (an agent's Write, an accepted review): its provenance when it has
 * none, then its index line when it has none, in one locked step, so the moment in which a crash leaves
 * it unindexed is as short as it can be. The lock is taken before this returns, so a later locked call
 * (the next memory write's permission check waits for one) runs after it; `provenance` may be a
 * function, asked once the lock is held. `index: false` stamps only (the agent's own index edit is
 * about to run). `onRecorded` runs before the lock is let go, so whoever takes it next sees what it
 * did. Undefined when the file cannot be read.
 */
export async function recordTopicFile(
  dir: string,
  file: string,
  provenance: Origin | (() => Promise<Origin>),
  opts: { index?: boolean; onRecorded?: (recorded: Recorded) => void } = {},
): Promise<Recorded | undefined> {
  const abs = resolveMemoryFile(dir, file);
  return withMemoryLock(dir, async () => {
    const stamped = await stampUnlocked(dir, abs, typeof provenance === 'function' ? await provenance() : provenance);
    const entry = opts.index === false ? {} : await indexUnlocked(dir, abs, normaliseName(file));
    const recorded = entry && { ...entry, ...(stamped ? { stamped } : {}) };
    if (recorded) opts.onRecorded?.(recorded);
    return recorded;
  });
}

async function indexUnlocked(dir: string, abs: string, name: string): Promise<IndexedEntry | undefined> {
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
  const index = await editIndex(dir, (lines) => upsertLine(lines, name, line));
  return { title, added: true, line, ...(index ? { index } : {}) };
}

/**
 * After a turn that saved `file`: one index line for it, where it loads. A line Engram added while the
 * agent was at work (`provisional`) gives way to one the agent wrote itself, and a line past the load
 * cap (an agent appends at the end of an oversized index) moves up to where it loads. Returns
 * MEMORY.md's new state when it changed.
 */
export async function settleIndexEntry(
  dir: string,
  file: string,
  provisional?: string,
): Promise<StampedState | undefined> {
  resolveMemoryFile(dir, file);
  const name = normaliseName(file);
  return withMemoryLock(dir, () =>
    editIndex(dir, (given) => {
      let lines = given;
      const linked = lines.flatMap((l, i) => (linksToName(l, name) ? [i] : []));
      const own =
        provisional === undefined || linked.length < 2 ? -1 : (linked.find((i) => lines[i] === provisional) ?? -1);
      if (own !== -1) lines = lines.filter((_, i) => i !== own);
      const at = lines.findIndex((l) => linksToName(l, name));
      if (at === -1 || loadsAt(lines, at)) return lines;
      return insertWhereLoaded(
        lines.filter((_, i) => i !== at),
        lines[at],
      );
    }),
  );
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
  await editIndex(
    dir,
    (lines) =>
      lines.filter((text, index) => {
        const e = parseIndexLine(stripEol(text));
        if (e && linksTo(e, name)) {
          removed.lines.push({ index, text });
          return false;
        }
        return true;
      }),
    { raw: true },
  );
  return removed;
}

/** Puts removed lines back at their old positions (clamped when the index got shorter since). */
export async function reinsertLines(dir: string, removed: RemovedLines): Promise<void> {
  await editIndex(
    dir,
    (lines) => {
      const out = lines.slice();
      for (const { index, text } of [...removed.lines].sort((a, b) => a.index - b.index)) {
        const at = Math.min(index, out.length);
        if (at > 0 && !/\n$/.test(out[at - 1])) out[at - 1] += eolOf(out);
        out.splice(at, 0, at < out.length && !/\n$/.test(text) ? text + eolOf(out) : text);
      }
      return out;
    },
    { raw: true },
  );
}

/** Changes an entry's title, hook and/or file name (the file is moved; the line keeps its place). */
export async function renameEntry(
  dir: string,
  file: string,
  change: { title?: string; hook?: string; file?: string },
): Promise<IndexLine> {
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
      const at = lines.findIndex((l) => linksToName(l, from));
      const rest = lines.filter((l, i) => i === at || !linksToName(l, from));
      if (at === -1) return insertWhereLoaded(rest, line);
      return rest.map((l) => (linksToName(l, from) ? line : l));
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
export async function stampProvenance(
  dir: string,
  file: string,
  provenance: MemoryProvenance,
): Promise<StampedState | undefined> {
  const abs = resolveMemoryFile(dir, file);
  return withMemoryLock(dir, () => stampUnlocked(dir, abs, provenance));
}

async function stampUnlocked(
  dir: string,
  abs: string,
  provenance: Partial<MemoryProvenance>,
): Promise<StampedState | undefined> {
  let text: string;
  try {
    const buf = (await readMemoryFile(dir, abs)).data;
    if (parseTopicFile(buf).binary) return undefined;
    text = buf.toString('utf8');
  } catch (e) {
    if (e instanceof MemoryPathError) throw e;
    return undefined;
  }
  const next = setFrontMatterKeys(text, provenanceFields(provenance), { onlyIfMissing: true });
  if (next === text) return undefined;
  return writeStamped(dir, abs, next);
}

/** The provenance as front matter keys: only those with a value (a client's write names no session). */
export function provenanceFields(provenance: Partial<MemoryProvenance>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(provenance).filter((kv): kv is [string, string] => typeof kv[1] === 'string' && kv[1] !== ''),
  );
}

async function exists(p: string): Promise<boolean> {
  try {
    await fsp.lstat(p);
    return true;
  } catch {
    return false;
  }
}
