// What session-memory compaction needs from the session notes (src/core/memory/sessionNotes owns
// them): their text, the message they cover up to, a way to wait for an update that is running, and
// whether the text says anything beyond the template. The notes feature supplies the real source; the
// file source below reads what is on disk (the CLI, tests, and sessions written by Claude Code).
import { promises as fsp } from 'node:fs';
import path from 'node:path';

export interface NotesSnapshot {
  text: string;
  /** The last message the notes cover: a transcript line uuid or an assistant message.id. */
  lastSummarizedMessageId?: string;
}

export interface NotesSource {
  /** The notes as they are now; undefined when there are none yet. */
  read(): Promise<NotesSnapshot | undefined>;
  /** Resolves when a running update ends, or after `timeoutMs`; at once when none runs. */
  waitForUpdate(timeoutMs: number): Promise<unknown>;
  /** True for notes with nothing in them but the template (headings and their italic guidance). */
  isEmpty(text: string): boolean;
  /**
   * Brings the notes up to date now, covering the conversation up to `cover.messageId` (a model call,
   * reading the cached prefix). Only live notes can; compaction calls it when the notes lag too far
   * behind to replace the old messages well.
   */
  catchUp?(cover: { messageId: string; contextTokens: number }): Promise<unknown>;
}

/**
 * Template-only check for when the notes feature's own is not plugged in: what remains after removing
 * headings, the italic guidance lines under them, and blank lines. Any other line is content.
 */
export function looksTemplateOnly(text: string): boolean {
  return text.split(/\r?\n/).every((raw) => {
    const line = raw.trim();
    return line === '' || line.startsWith('#') || /^_.*_$/.test(line) || /^\*[^*].*\*$/.test(line);
  });
}

/** `<dir of the transcript>/<sessionId>/session-memory/` (DESIGN 3). */
export function sessionMemoryDir(transcriptFile: string): string {
  const sessionId = path.basename(transcriptFile).replace(/\.jsonl$/, '');
  return path.join(path.dirname(transcriptFile), sessionId, 'session-memory');
}

export interface FileNotesOptions {
  summaryFile: string;
  /** JSON with `lastSummarizedMessageId`; default: state.json next to the summary. */
  stateFile?: string;
  isEmpty?: (text: string) => boolean;
}

/** Notes read from disk; nothing ever runs, so there is never an update to wait for. */
export function fileNotesSource(opts: FileNotesOptions): NotesSource {
  const stateFile = opts.stateFile ?? path.join(path.dirname(opts.summaryFile), 'state.json');
  return {
    async read() {
      let text: string;
      try {
        text = await fsp.readFile(opts.summaryFile, 'utf8');
      } catch {
        return undefined;
      }
      const cursor = await readCursor(stateFile);
      return cursor === undefined ? { text } : { text, lastSummarizedMessageId: cursor };
    },
    waitForUpdate: async () => undefined,
    isEmpty: opts.isEmpty ?? looksTemplateOnly,
  };
}

async function readCursor(file: string): Promise<string | undefined> {
  try {
    const state = JSON.parse(await fsp.readFile(file, 'utf8')) as { lastSummarizedMessageId?: unknown };
    return typeof state.lastSummarizedMessageId === 'string' && state.lastSummarizedMessageId !== ''
      ? state.lastSummarizedMessageId
      : undefined;
  } catch {
    return undefined; // no state yet, or unreadable: the notes are taken to cover everything
  }
}

/** Notes held in memory (tests, benchmarks, and an adapter over any other store). */
export function staticNotesSource(
  snapshot: NotesSnapshot | undefined,
  isEmpty: (text: string) => boolean = looksTemplateOnly,
): NotesSource {
  return { read: async () => snapshot, waitForUpdate: async () => undefined, isEmpty };
}
