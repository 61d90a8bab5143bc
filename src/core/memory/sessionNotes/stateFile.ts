// The notes' sidecar, `session-memory/state.json`: which message the notes cover and where the trigger
// stands, so a reloaded window (or a resumed session) carries on instead of starting over. Claude Code
// keeps this in memory only; it is Engram's own file and Claude Code ignores it.
import { promises as fsp } from 'node:fs';
import { writeFileAtomic } from '../../fs/atomicWrite';
import type { TriggerState } from './trigger';

export interface NotesState extends TriggerState {
  version: 1;
  /**
   * API message id (`msg_...`) of the last assistant message the notes cover: every transcript line of
   * that response carries it as `message.id`. Session-memory compaction keeps what comes after it.
   */
  lastSummarizedMessageId?: string;
  /** ISO time the last successful update finished. */
  updatedAt?: string;
  /** Successful updates so far (the init included). */
  updates: number;
  /** The last update went over a cap and needed the condense run. */
  condensed: boolean;
  /** Condense runs so far. */
  condenseRuns: number;
  /** Why the last update failed, cleared by the next success. */
  lastError?: string;
}

export function initialNotesState(): NotesState {
  return {
    version: 1,
    initialized: false,
    tokensAtLastUpdate: 0,
    toolCallsSinceUpdate: 0,
    updates: 0,
    condensed: false,
    condenseRuns: 0,
  };
}

/**
 * Reads the sidecar; a missing or unreadable one gives the initial state. When the notes file exists
 * without a sidecar (written by Claude Code, or the sidecar was lost), the notes count as initialized and
 * the growth baseline starts at zero, so the first due response brings them up to date.
 */
export async function readNotesState(stateFile: string, summaryExists: boolean): Promise<NotesState> {
  const fresh = { ...initialNotesState(), initialized: summaryExists };
  let raw: unknown;
  try {
    raw = JSON.parse(await fsp.readFile(stateFile, 'utf8'));
  } catch {
    return fresh;
  }
  if (typeof raw !== 'object' || raw === null) return fresh;
  const r = raw as Record<string, unknown>;
  const num = (v: unknown, d: number): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const lastSummarizedMessageId = str(r.lastSummarizedMessageId);
  const updatedAt = str(r.updatedAt);
  const lastError = str(r.lastError);
  return {
    version: 1,
    // The notes file decides: without it there is nothing to update (the user deleted it: start over),
    // with it there is (whatever the sidecar says).
    initialized: summaryExists,
    tokensAtLastUpdate: num(r.tokensAtLastUpdate, 0),
    toolCallsSinceUpdate: num(r.toolCallsSinceUpdate, 0),
    ...(lastSummarizedMessageId ? { lastSummarizedMessageId } : {}),
    ...(updatedAt ? { updatedAt } : {}),
    updates: num(r.updates, 0),
    condensed: r.condensed === true,
    condenseRuns: num(r.condenseRuns, 0),
    ...(lastError ? { lastError } : {}),
  };
}

export async function writeNotesState(stateFile: string, state: NotesState): Promise<void> {
  await writeFileAtomic(stateFile, `${JSON.stringify(state, null, 2)}\n`);
}
