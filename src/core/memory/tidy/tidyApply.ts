// Applying a reviewed tidy: the accepted changes of a proposal (tidyPropose.ts), topic files and
// MEMORY.md together, as one step that can be undone. Under the memory folder's lock: every file's text
// must still be what the proposal showed (else nothing is written and the person is told to ask again);
// the old bytes and the new texts are staged in `memory/.tidy/<id>/` with a journal, then the journal
// says "committing", then each new text is renamed into place (a removed file is unlinked), then the
// journal says "applied". A failure in between puts every file back from the staged old bytes; a crash
// in between is put back by recoverTidy when the folder is next opened. Undo writes the old bytes back
// (byte for byte) when the files are still as the tidy left them. Every name goes through
// resolveMemoryFile and every write through memoryFiles.ts: nothing is read or written outside the folder.
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { confineTo } from '../../fs/pathGuard';
import { stripEol } from '../autoMemory/indexLines';
import { assertInsideMemory, readMemoryFile, writeMemoryFile } from '../autoMemory/memoryFiles';
import { linksTo, parseIndexLine } from '../autoMemory/memoryIndex';
import { MEMORY_INDEX_FILE, MemoryPathError, resolveMemoryFile } from '../autoMemory/memoryPaths';
import { withMemoryLock } from '../autoMemory/memoryWriter';
import type { TidyFileDiff, TidyProposal } from './tidyTypes';

/** Where tidies are staged and kept for undo, inside the memory folder. */
export const TIDY_DIR_NAME = '.tidy';
const JOURNAL = 'journal.json';
const TIDY_ID = /^[0-9A-Za-z][0-9A-Za-z-]{0,80}$/;

/** The journal of one tidy: which files it changed, and how far it got. */
export interface TidyRecord {
  id: string;
  appliedAt: string;
  state: 'staged' | 'committing' | 'applied';
  /** The accepted changes' ids and reasons, for the person. */
  changes: Array<{ id: string; kind: string; reason: string }>;
  /** Each file (MEMORY.md too) and the hash of what the tidy wrote (none: removed). */
  files: Array<{ file: string; newHash: string | null }>;
}

/** Test hook: runs before the n-th file is put in place (a crash there is what recoverTidy handles). */
export type BeforeRename = (file: string, n: number) => void | Promise<void>;

/**
 * What the accepted changes of `proposal` do to each file, MEMORY.md included (its lines for removed
 * files go), computed from the files as they are now. Throws MemoryPathError when a file changed since
 * the proposal or an id is not in it.
 */
export async function tidyDiffs(
  dir: string,
  proposal: TidyProposal,
  accepted: readonly string[],
): Promise<TidyFileDiff[]> {
  const ids = new Set(accepted);
  const unknown = [...ids].filter((id) => !proposal.changes.some((c) => c.id === id));
  if (unknown.length > 0) throw new MemoryPathError(`No change ${unknown.join(', ')} in this tidy proposal.`);
  const out: TidyFileDiff[] = [];
  for (const change of proposal.changes.filter((c) => ids.has(c.id))) {
    for (const f of change.files) {
      const now = await readOrNull(dir, resolveMemoryFile(dir, f.file));
      if (now !== f.before)
        throw new MemoryPathError(`${f.file} changed since the tidy was proposed; ask for a new tidy.`);
      out.push({ file: f.file, before: f.before, after: f.after });
    }
  }
  const removed = out.filter((d) => d.after === null).map((d) => d.file);
  if (removed.length > 0) {
    const before = (await readOrNull(dir, path.join(dir, MEMORY_INDEX_FILE))) ?? '';
    const after = withoutLines(before, removed);
    if (after !== before) out.push({ file: MEMORY_INDEX_FILE, before, after });
  }
  return out;
}

/** The index text without the lines that link to `removed` (other bytes kept). */
function withoutLines(text: string, removed: readonly string[]): string {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  return lines
    .filter((l) => {
      const e = parseIndexLine(stripEol(l));
      return !(e && removed.some((name) => linksTo(e, name)));
    })
    .join('');
}

/** Applies the accepted changes of `proposal` as one step; returns its record (its id undoes it). */
export async function applyTidy(
  dir: string,
  proposal: TidyProposal,
  accepted: readonly string[],
  opts: { now?: Date; beforeRename?: BeforeRename } = {},
): Promise<TidyRecord> {
  if (accepted.length === 0) throw new MemoryPathError('No change was accepted; nothing was applied.');
  return withMemoryLock(dir, async () => {
    const diffs = await tidyDiffs(dir, proposal, accepted);
    const appliedAt = (opts.now ?? new Date()).toISOString();
    const record: TidyRecord = {
      id: `${appliedAt.replace(/[-:.]/g, '')}-${proposal.id.slice(-6)}`,
      appliedAt,
      state: 'staged',
      changes: proposal.changes
        .filter((c) => accepted.includes(c.id))
        .map((c) => ({ id: c.id, kind: c.kind, reason: c.reason })),
      files: diffs.map((d) => ({ file: d.file, newHash: d.after === null ? null : hash(d.after) })),
    };
    const stage = tidyDir(dir, record.id);
    await fsp.mkdir(stage, { recursive: true });
    for (const [n, d] of diffs.entries()) {
      const abs = targetOf(dir, d.file);
      await fsp.writeFile(path.join(stage, `${n}.old`), (await readMemoryFile(dir, abs)).data);
      if (d.after !== null) await fsp.writeFile(path.join(stage, `${n}.new`), d.after);
    }
    await writeJournal(dir, record);
    await writeJournal(dir, { ...record, state: 'committing' });
    try {
      for (const [n, d] of diffs.entries()) {
        await opts.beforeRename?.(d.file, n);
        const abs = targetOf(dir, d.file);
        assertInsideMemory(dir, abs);
        if (d.after === null) await fsp.rm(abs, { force: true });
        else await fsp.rename(path.join(stage, `${n}.new`), abs);
      }
    } catch (e) {
      await rollBack(dir, { ...record, state: 'committing' });
      throw e;
    }
    const applied: TidyRecord = { ...record, state: 'applied' };
    await writeJournal(dir, applied);
    return applied;
  });
}

/**
 * Takes an applied tidy back: every file it changed gets its old bytes, a file it removed comes back.
 * Refuses, changing nothing, when a file was changed since the tidy (that edit would be lost).
 */
export async function undoTidy(dir: string, id: string): Promise<TidyRecord> {
  if (!TIDY_ID.test(id)) return Promise.reject(new MemoryPathError(`Not a tidy id: ${JSON.stringify(id)}.`));
  return withMemoryLock(dir, async () => {
    const record = await readJournal(dir, id);
    if (record.state !== 'applied')
      throw new MemoryPathError(`Tidy ${id} was not applied, so there is nothing to undo.`);
    for (const f of record.files) {
      const now = await readOrNull(dir, targetOf(dir, f.file));
      const asLeft = f.newHash === null ? now === null : now !== null && hash(now) === f.newHash;
      if (!asLeft)
        throw new MemoryPathError(`${f.file} was changed after the tidy; undo it by hand or edit the memory instead.`);
    }
    await rollBack(dir, record);
    return record;
  });
}

/** Applied tidies that can be undone, newest first. */
export async function listTidies(dir: string): Promise<TidyRecord[]> {
  const out: TidyRecord[] = [];
  for (const id of await tidyIds(dir)) {
    const r = await readJournal(dir, id).catch(() => undefined);
    if (r?.state === 'applied') out.push(r);
  }
  return out.sort((a, b) => (a.appliedAt < b.appliedAt ? 1 : a.appliedAt > b.appliedAt ? -1 : 0));
}

/**
 * Finishes what a crash left: a tidy stopped while committing is rolled back (every file gets its old
 * bytes), one stopped while staging is dropped (nothing had changed). Returns a sentence per tidy.
 */
export async function recoverTidy(dir: string): Promise<string[]> {
  const said: string[] = [];
  for (const id of await tidyIds(dir)) {
    await withMemoryLock(dir, async () => {
      const record = await readJournal(dir, id).catch(() => undefined);
      if (record?.state === 'applied') return;
      if (record?.state === 'committing') {
        await rollBack(dir, record);
        said.push(
          `A memory tidy (${id}) was interrupted while it was applied; the memory folder was put back as before.`,
        );
        return;
      }
      await fsp.rm(tidyDir(dir, id), { recursive: true, force: true });
    });
  }
  return said;
}

/** Puts every file of `record` back from its staged old bytes, then drops the record. */
async function rollBack(dir: string, record: TidyRecord): Promise<void> {
  const stage = tidyDir(dir, record.id);
  for (const [n, f] of record.files.entries()) {
    const abs = targetOf(dir, f.file);
    const old = await fsp.readFile(path.join(stage, `${n}.old`)).catch(() => undefined);
    if (old === undefined) continue; // not staged yet: the file was never touched
    assertInsideMemory(dir, abs);
    await writeMemoryFile(dir, abs, old);
  }
  await fsp.rm(stage, { recursive: true, force: true });
}

async function tidyIds(dir: string): Promise<string[]> {
  try {
    return (await fsp.readdir(path.join(dir, TIDY_DIR_NAME))).filter((i) => TIDY_ID.test(i));
  } catch {
    return [];
  }
}

async function writeJournal(dir: string, record: TidyRecord): Promise<void> {
  await writeMemoryFile(dir, path.join(tidyDir(dir, record.id), JOURNAL), `${JSON.stringify(record, null, 2)}\n`);
}

async function readJournal(dir: string, id: string): Promise<TidyRecord> {
  const data = (await readMemoryFile(dir, path.join(tidyDir(dir, id), JOURNAL))).data;
  return JSON.parse(data.toString('utf8')) as TidyRecord;
}

function targetOf(dir: string, file: string): string {
  return file === MEMORY_INDEX_FILE ? path.join(dir, MEMORY_INDEX_FILE) : resolveMemoryFile(dir, file);
}

function tidyDir(dir: string, id: string): string {
  const p = path.join(dir, TIDY_DIR_NAME, id);
  if (confineTo(dir)(p, 'write')) throw new MemoryPathError(`The tidy folder ${p} resolves outside the memory folder.`);
  return p;
}

async function readOrNull(dir: string, abs: string): Promise<string | null> {
  try {
    return (await readMemoryFile(dir, abs)).data.toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
