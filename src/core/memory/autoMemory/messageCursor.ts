// How far background extraction has read: `lastMemoryMessageUuid`, kept in a small JSON file per session.
// The agent's messages carry no ids, so each message gets a key: a hash of its content chained to the
// key of the message before it. Equal bytes in the same place give the same key, also after a resume
// (the transcript reader rebuilds the very messages that were sent), while a compaction that rewrote
// the history makes the old key disappear, which means "start from the beginning" (DESIGN 4). The
// transcript's own uuid of the same point is recorded too, for provenance and for the inspector.
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { ApiMessage } from '../../conversation/types';
import { writeFileAtomic } from '../../fs/atomicWrite';

const keyCache = new WeakMap<ApiMessage, { prev: string; key: string }>();

/** One key per message, chained; cached per message object so a long conversation is hashed once. */
export function messageKeys(messages: readonly ApiMessage[]): string[] {
  const keys: string[] = [];
  let prev = '';
  for (const m of messages) {
    const cached = keyCache.get(m);
    let key: string;
    if (cached && cached.prev === prev) {
      key = cached.key;
    } else {
      key = createHash('sha256').update(prev).update('\0').update(canonical(m)).digest('hex').slice(0, 32);
      keyCache.set(m, { prev, key });
    }
    keys.push(key);
    prev = key;
  }
  return keys;
}

/** JSON with sorted keys and without cache markers, so equal messages hash equal however built. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => k !== 'cache_control' && o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface MemoryCursor {
  /** The transcript uuid of the last message extraction has covered (the message key without a transcript). */
  lastMemoryMessageUuid: string;
  /** messageKeys() of that message, to find it in the live conversation. */
  messageKey: string;
  updatedAt: string;
}

/** Where the cursor is kept: `<projectDir>/<sessionId>/auto-memory.json`, next to the session's other files. */
export function cursorFileFor(transcriptPath: string): string {
  return path.join(transcriptPath.replace(/\.jsonl$/, ''), 'auto-memory.json');
}

export async function readCursor(file: string | undefined): Promise<MemoryCursor | undefined> {
  if (!file) return undefined;
  try {
    const o = JSON.parse(await fsp.readFile(file, 'utf8')) as Partial<MemoryCursor>;
    if (typeof o.lastMemoryMessageUuid === 'string' && typeof o.messageKey === 'string') {
      return {
        lastMemoryMessageUuid: o.lastMemoryMessageUuid,
        messageKey: o.messageKey,
        updatedAt: String(o.updatedAt ?? ''),
      };
    }
  } catch {
    // no cursor yet, or an unreadable one: extraction starts from the beginning
  }
  return undefined;
}

export async function writeCursor(file: string | undefined, cursor: MemoryCursor): Promise<void> {
  if (!file) return;
  await writeFileAtomic(file, `${JSON.stringify(cursor, null, 2)}\n`);
}

/**
 * Index of the first message after the cursor: 0 when there is no cursor or its message is gone.
 */
export function messagesAfter(
  keys: readonly string[],
  cursor: MemoryCursor | undefined,
): { start: number; found: boolean } {
  if (!cursor) return { start: 0, found: false };
  const at = keys.lastIndexOf(cursor.messageKey);
  return at === -1 ? { start: 0, found: false } : { start: at + 1, found: true };
}

/** Reading the end of a transcript is enough to know the newest lines. */
const TAIL_BYTES = 256 * 1024;

export interface TranscriptTail {
  /** The newest user or assistant line of the main conversation. */
  lastUuid?: string;
  /** The newest line holding a prompt the person typed. */
  promptUuid?: string;
}

/** uuids of the newest lines of a transcript (read after the agent flushed it). */
export async function readTranscriptTail(file: string | undefined): Promise<TranscriptTail> {
  if (!file) return {};
  let text: string;
  try {
    const fh = await fsp.open(file, 'r');
    try {
      const { size } = await fh.stat();
      const start = Math.max(0, size - TAIL_BYTES);
      const buf = Buffer.alloc(size - start);
      await fh.read(buf, 0, buf.length, start);
      text = buf.toString('utf8');
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    } finally {
      await fh.close();
    }
  } catch {
    return {};
  }
  const out: TranscriptTail = {};
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0 && !(out.lastUuid && out.promptUuid); i--) {
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(lines[i]) as Record<string, unknown>;
    } catch {
      continue;
    }
    if ((o.type !== 'user' && o.type !== 'assistant') || o.isSidechain === true || typeof o.uuid !== 'string') continue;
    out.lastUuid ??= o.uuid;
    if (o.type === 'user' && !out.promptUuid && isTypedPrompt(o)) out.promptUuid = o.uuid;
  }
  return out;
}

function isTypedPrompt(o: Record<string, unknown>): boolean {
  if (o.isMeta || o.isCompactSummary) return false;
  const content = (o.message as { content?: unknown } | undefined)?.content;
  if (typeof content === 'string') return true;
  return Array.isArray(content) && !content.some((b) => (b as { type?: string }).type === 'tool_result');
}
