// The review queue of background extraction (setting `engram.memory.extraction.review`): what the memory
// agent wants to save waits in `<memory>/.pending/` until the user accepts, edits or rejects it. One
// item per target file, as two files: `<id>.md` holds the proposed topic file in full (what Accept
// writes, and what Edit opens in an editor) and `<id>.json` the record (which file it creates or
// changes, its content when proposed for the diff, by which session and message, when). The record is
// written last, so a listed item always has its content. The folder is hidden, and hidden folders are
// never indexed, recalled or loaded into a prompt (memoryIndex.ts skips them), so nothing pending
// reaches the model. Accept goes through the memory writer (atomic write, provenance, index line);
// Reject moves both files to `.pending/.rejected/`, from where Restore brings them back.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isErrno } from '../../fs/errno';
import { confineTo } from '../../fs/pathGuard';
import { assertInsideMemory, readMemoryText, writeMemoryFile } from './memoryFiles';
import { memoryHome, MemoryPathError, normaliseName, resolveMemoryFile } from './memoryPaths';
import { recordTopicFile, withMemoryLock } from './memoryWriter';
import { parseTopicFile, type MemoryType } from './topicFile';

export const PENDING_DIR_NAME = '.pending';
const REJECTED_DIR_NAME = '.rejected';
const PENDING_ID = /^[0-9A-Za-z][0-9A-Za-z-]{0,80}$/;

const PendingRecord = z.object({
  version: z.literal(1),
  id: z.string().regex(PENDING_ID),
  /** The target, relative to the memory folder (`team/x.md` for the team folder). */
  file: z.string().min(1),
  team: z.boolean(),
  /** `update`: the file existed when it was proposed, and `base` is what it held then. */
  action: z.enum(['create', 'update']),
  base: z.string().nullable(),
  sessionId: z.string(),
  messageId: z.string(),
  proposedAt: z.string(),
});
export type PendingRecord = z.infer<typeof PendingRecord>;

export interface PendingItem extends PendingRecord {
  /** The proposed topic file as it is on disk now (the user may have edited it). */
  content: string;
  /** Absolute path of the proposed content (`<id>.md`), for an editor. */
  contentPath: string;
}

export interface PendingList {
  /** Oldest first. */
  items: PendingItem[];
  /** Records that could not be read or are not valid; they are left where they are. */
  problems: string[];
}

export interface Proposal {
  /** Relative to the memory folder. */
  file: string;
  content: string;
  sessionId: string;
  messageId: string;
}

/** `<memory>/.pending`, refused when it is a link out of the memory folder. */
export function pendingDir(memoryDir: string): string {
  const p = path.join(memoryDir, PENDING_DIR_NAME);
  if (confineTo(memoryDir)(p, 'write'))
    throw new MemoryPathError(`The review queue ${p} resolves outside the memory folder.`);
  return p;
}

export async function listPending(memoryDir: string): Promise<PendingList> {
  const dir = pendingDir(memoryDir);
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (e) {
    if (isErrno(e, 'ENOENT', 'ENOTDIR')) return { items: [], problems: [] };
    throw e;
  }
  const items: PendingItem[] = [];
  const problems: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    try {
      items.push(await readItem(memoryDir, dir, name.slice(0, -'.json'.length)));
    } catch (e) {
      problems.push(`${PENDING_DIR_NAME}/${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  items.sort((a, b) => (a.proposedAt < b.proposedAt ? -1 : a.proposedAt > b.proposedAt ? 1 : 0));
  return { items, problems };
}

/** The item waiting for `file` (relative to the memory folder), if any. */
export async function pendingFor(memoryDir: string, file: string): Promise<PendingItem | undefined> {
  const name = normaliseName(file);
  return (await listPending(memoryDir)).items.find((i) => i.file === name);
}

/**
 * Queues a proposal. A second proposal for the same file replaces the first one's content (and keeps
 * its base, so the diff still shows everything that would change).
 */
export async function proposeMemory(
  memoryDir: string,
  proposal: Proposal,
  now: Date = new Date(),
): Promise<PendingItem> {
  const file = normaliseName(proposal.file);
  const home = memoryHome(memoryDir, file);
  const target = resolveMemoryFile(home.dir, home.file);
  return withMemoryLock(pendingLockKey(memoryDir), async () => {
    const dir = pendingDir(memoryDir);
    const earlier = (await listPending(memoryDir)).items.find((i) => i.file === file);
    const current = earlier ? undefined : await readIfThere(home.dir, target);
    const record: PendingRecord = earlier
      ? {
          ...pick(earlier),
          sessionId: proposal.sessionId,
          messageId: proposal.messageId,
          proposedAt: now.toISOString(),
        }
      : {
          version: 1,
          id: newId(now),
          file,
          team: home.team,
          action: current === undefined ? 'create' : 'update',
          base: current ?? null,
          sessionId: proposal.sessionId,
          messageId: proposal.messageId,
          proposedAt: now.toISOString(),
        };
    assertInsideMemory(memoryDir, dir);
    await fsp.mkdir(dir, { recursive: true });
    await writeMemoryFile(memoryDir, path.join(dir, `${record.id}.md`), proposal.content);
    await writeMemoryFile(memoryDir, path.join(dir, `${record.id}.json`), `${JSON.stringify(record, null, 2)}\n`);
    return { ...record, content: proposal.content, contentPath: path.join(dir, `${record.id}.md`) };
  });
}

export interface AcceptResult {
  file: string;
  title: string;
  team: boolean;
  type: MemoryType;
}

/**
 * Writes the item's content (as it is on disk now, so an edit counts) to its topic file with its
 * provenance and index line, then drops it from the queue. Content that is no topic file (no type in
 * its front matter) is refused with the reason, and the item stays.
 */
export async function acceptPending(memoryDir: string, id: string): Promise<AcceptResult> {
  const item = await withMemoryLock(pendingLockKey(memoryDir), () =>
    readItem(memoryDir, pendingDir(memoryDir), checkedId(id)),
  );
  const parsed = parseTopicFile(item.content);
  if (parsed.binary) throw new MemoryPathError(`${item.file} was not saved: the proposed content is not text.`);
  if (!parsed.type)
    throw new MemoryPathError(
      `${item.file} was not saved: its front matter needs a type (user, feedback, project or reference). ` +
        'Edit it, or reject it.',
    );
  const home = memoryHome(memoryDir, item.file);
  const abs = resolveMemoryFile(home.dir, home.file);
  await withMemoryLock(home.dir, async () => {
    assertInsideMemory(home.dir, path.dirname(abs));
    await fsp.mkdir(path.dirname(abs), { recursive: true });
    await writeMemoryFile(home.dir, abs, item.content);
  });
  // Queued at once behind the write: provenance and index line follow it in one step.
  const entry = await recordTopicFile(home.dir, home.file, {
    originSessionId: item.sessionId,
    originMessageId: item.messageId,
  });
  await withMemoryLock(pendingLockKey(memoryDir), () => removeItem(memoryDir, item.id));
  return { file: item.file, title: entry?.title ?? item.file, team: home.team, type: parsed.type };
}

/** Takes the item out of the queue into `.pending/.rejected/`, from where restorePending brings it back. */
export async function rejectPending(memoryDir: string, id: string): Promise<PendingRecord> {
  return withMemoryLock(pendingLockKey(memoryDir), async () => {
    const dir = pendingDir(memoryDir);
    const item = await readItem(memoryDir, dir, checkedId(id));
    const rejected = path.join(dir, REJECTED_DIR_NAME);
    assertInsideMemory(memoryDir, dir);
    await fsp.mkdir(rejected, { recursive: true });
    assertInsideMemory(memoryDir, rejected);
    // The record first: an interrupted move leaves content without a record, which listPending ignores.
    await fsp.rename(path.join(dir, `${item.id}.json`), path.join(rejected, `${item.id}.json`));
    await fsp.rename(path.join(dir, `${item.id}.md`), path.join(rejected, `${item.id}.md`));
    return pick(item);
  });
}

/** Undoes rejectPending; refused when the queue meanwhile got another proposal for the same file. */
export async function restorePending(memoryDir: string, id: string): Promise<PendingRecord> {
  return withMemoryLock(pendingLockKey(memoryDir), async () => {
    const dir = pendingDir(memoryDir);
    const rejected = path.join(dir, REJECTED_DIR_NAME);
    const record = parseRecord(await readMemoryText(memoryDir, path.join(rejected, `${checkedId(id)}.json`)), id);
    if ((await listPending(memoryDir)).items.some((i) => i.file === record.file)) {
      throw new MemoryPathError(`Cannot restore the proposal for ${record.file}: a newer one waits for review.`);
    }
    await fsp.rename(path.join(rejected, `${record.id}.md`), path.join(dir, `${record.id}.md`));
    await fsp.rename(path.join(rejected, `${record.id}.json`), path.join(dir, `${record.id}.json`));
    return record;
  });
}

// ---- helpers ----

async function readItem(memoryDir: string, dir: string, id: string): Promise<PendingItem> {
  if (!PENDING_ID.test(id)) throw new MemoryPathError(`not a review queue id: ${JSON.stringify(id)}`);
  let text: string;
  try {
    text = await readMemoryText(memoryDir, path.join(dir, `${id}.json`));
  } catch (e) {
    if (isErrno(e, 'ENOENT'))
      throw new MemoryPathError(`Nothing waits for review under ${id}: it was accepted or rejected already.`);
    throw e;
  }
  const record = parseRecord(text, id);
  // The target is checked again: a record is a file anyone could have edited.
  const home = memoryHome(memoryDir, record.file);
  resolveMemoryFile(home.dir, home.file);
  const contentPath = path.join(dir, `${id}.md`);
  const content = await readMemoryText(memoryDir, contentPath);
  return { ...record, content, contentPath };
}

function parseRecord(text: string, id: string): PendingRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('the record is not valid JSON');
  }
  const parsed = PendingRecord.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`);
    throw new Error(`the record is not a review queue item (${issues.join('; ')})`);
  }
  if (parsed.data.id !== id) throw new Error(`the record names id ${parsed.data.id}, not ${id}`);
  return { ...parsed.data, file: normaliseName(parsed.data.file) };
}

async function removeItem(memoryDir: string, id: string): Promise<void> {
  const dir = pendingDir(memoryDir);
  await fsp.rm(path.join(dir, `${id}.json`), { force: true });
  await fsp.rm(path.join(dir, `${id}.md`), { force: true });
}

async function readIfThere(dir: string, abs: string): Promise<string | undefined> {
  try {
    return await readMemoryText(dir, abs);
  } catch (e) {
    if (isErrno(e, 'ENOENT', 'ENOTDIR')) return undefined;
    throw e;
  }
}

function checkedId(id: string): string {
  if (!PENDING_ID.test(id)) throw new MemoryPathError(`Not a review queue id: ${JSON.stringify(id)}.`);
  return id;
}

function pick(item: PendingRecord): PendingRecord {
  const { version, id, file, team, action, base, sessionId, messageId, proposedAt } = item;
  return { version, id, file, team, action, base, sessionId, messageId, proposedAt };
}

function newId(now: Date): string {
  return `${now.toISOString().replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
}

/** The queue has its own lock (not the folder's): accepting takes the folder's lock while it holds none. */
function pendingLockKey(memoryDir: string): string {
  return path.join(memoryDir, PENDING_DIR_NAME);
}
