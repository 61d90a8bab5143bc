// Writes a code rewind, or undoes one, under a journal: `<repo>/engram/rewinds/<id>.json` lists every
// file with the state it had and the state it gets (content kept in the shadow repository) BEFORE any file
// is touched, and is marked done at the end. A crash in between leaves each file old or new (temp file +
// rename), and the next store to open finishes the journal (roll forward; a file changed since is left).
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomicWrite';
import type { Logger } from '../ports';
import { diskState, readBlobs, removeState, storeBlob, writeState } from './fileState';
import type { RepoPaths } from './repository';
import { blockedReason, formatBytes, oidOf } from './rewindPlan';
import { appendLog, type LogLine, logOf } from './sessionLog';
import type { ShadowGit } from './shadowGit';
import type { CodeRewindPlan, CodeRewindResult } from './types';

interface JournalEntry {
  path: string;
  /** `mode oid` before (null: no file) and after (null: removed). */
  before: string | null;
  after: string | null;
  /** For a removal: the snapshot whose folders stay (the others, left empty, are removed). */
  keepDirsFrom?: string;
}

interface Journal {
  id: string;
  kind: 'rewind' | 'undo';
  sessionId: string;
  state: 'applying' | 'done';
  pid: number;
  hostname: string;
  at: string;
  /** The snapshot of the workspace the rewind started from (for a rewind). */
  now?: string;
  /** For an undo: the rewind it undid. */
  undoes?: string;
  entries: JournalEntry[];
  result?: Omit<CodeRewindResult, 'id'>;
}

/** One file an operation wants to change. */
interface Want {
  path: string;
  /** The oid the file should have now (undefined: no file). */
  expect: string | undefined;
  /** `mode oid` to write, null to remove. */
  write: string | null;
  conflict?: string;
  keepDirsFrom?: string;
}

type Force = boolean | readonly string[] | undefined;

const isForced = (force: Force, p: string): boolean => force === true || (Array.isArray(force) && force.includes(p));

function journalFile(paths: RepoPaths, id: string): string {
  if (!/^[a-z0-9-]+$/.test(id)) throw new Error(`"${id}" does not name a rewind.`);
  return path.join(paths.rewinds, `${id}.json`);
}

async function saveJournal(paths: RepoPaths, j: Journal): Promise<void> {
  await writeFileAtomic(journalFile(paths, j.id), `${JSON.stringify(j, null, 1)}\n`);
}

/** Changes the files one by one; a file that fails is reported and the others go on. */
async function perform(
  git: ShadowGit,
  entries: readonly JournalEntry[],
  maxBytes: number,
  onlyFrom: 'before' | 'any',
): Promise<Omit<CodeRewindResult, 'id' | 'conflicts'>> {
  const contents = await readBlobs(
    git,
    entries.map((e) => oidOf(e.after)).filter((o): o is string => o !== undefined),
  );
  const written: string[] = [];
  const deleted: string[] = [];
  const failed: Array<{ path: string; message: string }> = [];
  for (const e of entries) {
    const abs = path.join(git.workspace, e.path);
    try {
      const blocked = await blockedReason(git.workspace, e.path);
      if (blocked) throw new Error(blocked);
      const { state } = await diskState(abs, maxBytes);
      if (state === e.after) {
        (e.after === null ? deleted : written).push(e.path);
        continue;
      }
      if (onlyFrom === 'before' && state !== e.before) throw new Error('changed since the rewind began; left as it is');
      if (e.after === null) {
        await removeState(git, abs, e.keepDirsFrom);
        deleted.push(e.path);
        continue;
      }
      const data = contents.get(oidOf(e.after) as string);
      if (!data) throw new Error('its earlier content is missing from the checkpoints');
      await writeState(abs, e.after.slice(0, 6), data);
      written.push(e.path);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      failed.push({
        path: e.path,
        message: /EACCES|EPERM|EROFS/.test(message) ? `cannot be written: ${message}` : message,
      });
    }
  }
  return { written, deleted, failed };
}

/** Checks each wanted file against the disk, keeps what it holds now, journals, writes. */
async function run(
  git: ShadowGit,
  paths: RepoPaths,
  maxBytes: number,
  base: Pick<Journal, 'kind' | 'sessionId' | 'now' | 'undoes'>,
  wants: readonly Want[],
  force: Force,
): Promise<CodeRewindResult> {
  const conflicts: string[] = [];
  const failed: Array<{ path: string; message: string }> = [];
  const entries: JournalEntry[] = [];
  for (const w of wants) {
    const forced = isForced(force, w.path);
    if (w.conflict && !forced) {
      conflicts.push(w.path);
      continue;
    }
    const blocked = await blockedReason(git.workspace, w.path);
    if (blocked) {
      failed.push({ path: w.path, message: blocked });
      continue;
    }
    const abs = path.join(git.workspace, w.path);
    const disk = await diskState(abs, maxBytes).catch((e: Error) => e);
    if (disk instanceof Error || disk.state === 'too-big') {
      const why = disk instanceof Error ? disk.message : `is ${formatBytes(disk.size)}, over the checkpoint size limit`;
      failed.push({ path: w.path, message: `${why}; left as it is so nothing is lost` });
      continue;
    }
    if (oidOf(disk.state) !== w.expect && !forced) {
      conflicts.push(w.path); // changed since the preview
      continue;
    }
    if (disk.state === w.write) continue;
    if (disk.data && oidOf(disk.state) !== w.expect) await storeBlob(git, disk.data);
    entries.push({
      path: w.path,
      before: disk.state,
      after: w.write,
      ...(w.keepDirsFrom ? { keepDirsFrom: w.keepDirsFrom } : {}),
    });
  }
  const journal: Journal = {
    id: `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`,
    ...base,
    state: 'applying',
    pid: process.pid,
    hostname: os.hostname(),
    at: new Date().toISOString(),
    entries,
  };
  await saveJournal(paths, journal);
  const done = await perform(git, entries, maxBytes, 'any');
  const result = { ...done, conflicts, failed: [...failed, ...done.failed] };
  await logRewind(paths, journal, done);
  await saveJournal(paths, { ...journal, state: 'done', result });
  return { id: journal.id, ...result };
}

/** The rewind's line in its session's log: what it changed, so later plans count it as the agent's. */
async function logRewind(
  paths: RepoPaths,
  j: Journal,
  done: { readonly written: readonly string[]; readonly deleted: readonly string[] },
): Promise<void> {
  const changed = new Set([...done.written, ...done.deleted]);
  const entries = j.entries.filter((e) => changed.has(e.path));
  if (!entries.length) return;
  await appendLog(logOf(paths.log, j.sessionId), {
    sessionId: j.sessionId,
    turn: 0,
    at: Date.now(),
    rewind: j.id,
    files: entries.map((e) => ({
      path: e.path,
      change: e.before === null ? 'added' : e.after === null ? 'deleted' : 'modified',
    })),
    skipped: [],
    blobs: Object.fromEntries(entries.map((e) => [e.path, [e.before, e.after] as const])),
  });
}

/** The `mode oid` a log recorded for a path with this oid (the mode a restored file gets). */
function modeFromLog(lines: readonly LogLine[], p: string, oid: string): string {
  for (const line of lines) for (const s of line.blobs?.[p] ?? []) if (s && oidOf(s) === oid) return s;
  return `100644 ${oid}`;
}

export function applyRewind(
  git: ShadowGit,
  paths: RepoPaths,
  maxBytes: number,
  plan: CodeRewindPlan,
  lines: readonly LogLine[],
  force: Force,
): Promise<CodeRewindResult> {
  const wants = plan.files.map((f): Want => {
    const created = lines.findLast((l) => l.blobs?.[f.path]?.[0] === null);
    return {
      path: f.path,
      expect: f.now,
      write: f.target ? modeFromLog(lines, f.path, f.target) : null,
      ...(f.conflict ? { conflict: f.conflict } : {}),
      ...(created?.before ? { keepDirsFrom: created.before } : {}),
    };
  });
  return run(git, paths, maxBytes, { kind: 'rewind', sessionId: plan.sessionId, now: plan.now }, wants, force);
}

async function readJournal(paths: RepoPaths, id: string): Promise<Journal> {
  const text = await fsp.readFile(journalFile(paths, id), 'utf8').catch(() => {
    throw new Error(`There is no rewind "${id}" in this workspace's checkpoints.`);
  });
  return JSON.parse(text) as Journal;
}

export async function undoRewind(
  git: ShadowGit,
  paths: RepoPaths,
  maxBytes: number,
  id: string,
  force: Force,
): Promise<CodeRewindResult> {
  const j = await readJournal(paths, id);
  if (j.state !== 'done') throw new Error(`The rewind ${id} has not finished; it cannot be undone yet.`);
  const done = new Set([...(j.result?.written ?? []), ...(j.result?.deleted ?? [])]);
  const wants = j.entries
    .filter((e) => done.has(e.path))
    .map(
      (e): Want => ({
        path: e.path,
        expect: oidOf(e.after),
        write: e.before,
        ...(e.before === null && j.now ? { keepDirsFrom: j.now } : {}),
      }),
    );
  return run(git, paths, maxBytes, { kind: 'undo', sessionId: j.sessionId, undoes: j.id }, wants, force);
}

/** A rewind takes seconds: a journal this old is not being applied any more, whatever its pid says. */
const stale = (at: string): boolean => Date.now() - Date.parse(at) > 10 * 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Finishes the rewinds a crash interrupted (journals still `applying` whose process is gone): each file
 * still as it was gets its new state, a file already new is left, one changed since is reported. Returns
 * what it did in one sentence, or undefined when there was nothing to finish.
 */
export async function recoverJournals(
  git: ShadowGit,
  paths: RepoPaths,
  maxBytes: number,
  logger: Logger,
): Promise<string | undefined> {
  const names = await fsp.readdir(paths.rewinds).catch(() => [] as string[]);
  const said: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    let j: Journal;
    try {
      j = JSON.parse(await fsp.readFile(path.join(paths.rewinds, name), 'utf8')) as Journal;
    } catch {
      logger.warn(`Checkpoints: the rewind journal ${name} cannot be read; it is left as it is.`);
      continue;
    }
    if (j.state !== 'applying' || (j.hostname === os.hostname() && alive(j.pid) && !stale(j.at))) continue;
    const done = await perform(git, j.entries, maxBytes, 'before');
    await logRewind(paths, j, done);
    await saveJournal(paths, { ...j, state: 'done', result: { ...done, conflicts: [] } });
    const what = j.kind === 'undo' ? 'An undo of a rewind' : 'A rewind';
    said.push(
      `${what} stopped halfway (${j.at}) and was finished: ${done.written.length} written, ${done.deleted.length} ` +
        `deleted${done.failed.length ? `, ${done.failed.length} left as they are (${done.failed.map((f) => f.path).join(', ')})` : ''}.`,
    );
  }
  if (said.length) logger.warn(`Checkpoints: ${said.join(' ')}`);
  return said.length ? said.join(' ') : undefined;
}
