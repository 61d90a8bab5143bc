// Which files the agent has seen, and in what state. Edit and Write refuse to touch a file the model has
// not read (it would be editing blind) or that changed on disk since (it would overwrite someone's work).
// Compaction also uses the most recent entries to re-attach recently read or edited files.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { sha1 } from '../fs/fileText';

export interface ReadFileRecord {
  /** mtime of the file when the agent last read or wrote it. */
  mtimeMs: number;
  /** sha1 of the whole content when the agent saw all of it; lets an mtime-only change (touch, checkout of
   *  identical content, Windows clock quirks) pass the staleness check. Absent after a partial read. */
  contentHash?: string;
  /** True when only a line range was read. */
  partial: boolean;
  /** When the agent last read or wrote the file (ms since epoch), for "recently touched" ordering. */
  touchedAt: number;
}

export class ReadFileState {
  private readonly records = new Map<string, ReadFileRecord>();

  get(absPath: string): ReadFileRecord | undefined {
    return this.records.get(key(absPath));
  }

  set(absPath: string, record: ReadFileRecord): void {
    const k = key(absPath);
    // Re-insert so Map iteration order stays "least recently touched first".
    this.records.delete(k);
    this.records.set(k, record);
  }

  delete(absPath: string): void {
    this.records.delete(key(absPath));
  }

  clear(): void {
    this.records.clear();
  }

  get size(): number {
    return this.records.size;
  }

  /** Paths touched most recently first, at most `limit`. */
  recent(limit: number): Array<{ path: string; record: ReadFileRecord }> {
    const all = [...this.records.entries()].map(([p, record]) => ({ path: p, record }));
    all.sort((a, b) => b.record.touchedAt - a.record.touchedAt);
    return all.slice(0, Math.max(0, limit));
  }
}

function key(absPath: string): string {
  const p = path.resolve(absPath);
  // Windows paths are case-insensitive; one file must map to one record.
  return process.platform === 'win32' ? p.toLowerCase() : p;
}

/**
 * Why a file must not be modified now, or null. A file that exists must have been read, and must not have
 * changed on disk since (mtime, or content when the mtime moved but the bytes did not).
 */
export async function staleReason(
  absPath: string,
  shown: string,
  readFiles: ReadFileState,
  current: { mtimeMs: number; content?: Buffer },
): Promise<string | null> {
  const rec = readFiles.get(absPath);
  if (!rec) {
    return `File ${shown} has not been read yet. Read it first, then retry.`;
  }
  if (rec.mtimeMs === current.mtimeMs) return null;
  if (rec.contentHash) {
    const content = current.content ?? (await fsp.readFile(absPath));
    if (sha1(content) === rec.contentHash) return null;
  }
  return (
    `File ${shown} was modified since it was last read (by the user or another process). ` +
    'Read it again, then retry.'
  );
}
