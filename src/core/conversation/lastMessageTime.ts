// When a session was last used: the timestamp of its last message, read from the end of the transcript.
// The file's mtime says when anything last touched the file (a copy, a backup, a lock, a repair), which
// is not when the conversation happened; Earlier sessions shows and sorts by this instead.
import { promises as fsp } from 'node:fs';

/** Read this much of the end first, then four times as much, up to the cap (a last line can be a long tool result). */
const FIRST_WINDOW = 64 * 1024;
const MAX_WINDOW = 4 * 1024 * 1024;

/** The timestamp of the last user or assistant line, or undefined when the end holds none. */
export async function lastMessageTime(file: string): Promise<Date | undefined> {
  const handle = await fsp.open(file, 'r');
  try {
    const { size } = await handle.stat();
    for (let window = FIRST_WINDOW; ; window *= 4) {
      const length = Math.min(size, window);
      const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
      // Outside the whole file the first line may be cut: it is left out.
      const lines = buffer.toString('utf8').split('\n');
      const found = newestTimestamp(length < size ? lines.slice(1) : lines);
      if (found || length === size || window >= MAX_WINDOW) return found;
    }
  } finally {
    await handle.close();
  }
}

function newestTimestamp(lines: string[]): Date | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (!line) continue;
    try {
      const parsed = JSON.parse(line) as { type?: unknown; timestamp?: unknown };
      if ((parsed.type !== 'user' && parsed.type !== 'assistant') || typeof parsed.timestamp !== 'string') continue;
      const at = new Date(parsed.timestamp);
      if (Number.isFinite(at.getTime())) return at;
    } catch {
      // a torn or damaged line: the one before it may do
    }
  }
  return undefined;
}
