// The prompt history: one line of `<dataDir>/history.jsonl` per user prompt, across every project and
// session (what the prompt history and the session pickers read). Apart from the transcripts because
// it is one shared file with its own line shape; it shares their per-file append queue.
import { promises as fsp } from 'node:fs';
import { enqueue } from './appendQueue';
import { historyPath } from './projectKey';

export interface HistoryEntry {
  display: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  project: string;
  sessionId: string;
}

/** Appends one prompt to history.jsonl, in the line shape Claude Code writes. */
export async function appendHistory(dataDir: string, entry: HistoryEntry): Promise<void> {
  const file = historyPath(dataDir);
  const line = {
    display: entry.display,
    pastedContents: {},
    timestamp: entry.timestamp,
    project: entry.project,
    sessionId: entry.sessionId,
  };
  await enqueue(file, async () => {
    await fsp.mkdir(dataDir, { recursive: true });
    await fsp.appendFile(file, JSON.stringify(line) + '\n', 'utf8');
  });
}
