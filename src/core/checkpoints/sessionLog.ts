// A session's checkpoint log: one TurnCheckpoint per line in `<repo>/engram/sessions/<sessionId>.jsonl`,
// appended as each turn ends. Each line also keeps, per changed file, its `mode oid` before and after the
// turn, so a rewind is planned from the log and one look at the workspace. A line that cannot be read is
// skipped with a warning; the others stay usable.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { isErrno } from '../fs/errno';
import type { Logger } from '../ports';
import type { TurnCheckpoint } from './types';

/** A log line: the contract's TurnCheckpoint plus the `mode oid` of each changed file (unset: no file). */
export interface LogLine extends TurnCheckpoint {
  readonly blobs?: Readonly<Record<string, readonly [string | null, string | null]>>;
  /**
   * Set on the line a code rewind (or its undo) writes, naming its journal: what it changed counts as the
   * agent's in later plans, so rewinding again (back or forward) does not take it for the person's work.
   * Such lines are not turns: list() leaves them out.
   */
  readonly rewind?: string;
}

function isLogLine(v: unknown): v is LogLine {
  if (!v || typeof v !== 'object') return false;
  const l = v as Partial<LogLine>;
  return (
    typeof l.sessionId === 'string' &&
    typeof l.turn === 'number' &&
    typeof l.at === 'number' &&
    Array.isArray(l.files) &&
    Array.isArray(l.skipped)
  );
}

/** The lines of a log, oldest first (no file: none). */
export async function readLog(file: string, logger: Logger): Promise<LogLine[]> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return [];
    throw e;
  }
  const lines: LogLine[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (!raw.trim()) continue;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      // reported below
    }
    if (isLogLine(v)) lines.push(v);
    else logger.warn(`Checkpoints: line ${i + 1} of ${file} is not a checkpoint; it is skipped.`);
  }
  return lines;
}

/** Appends one line (one write, O_APPEND; a torn earlier line is closed off first). */
export async function appendLog(file: string, line: LogLine): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  let prefix = '';
  const handle = await fsp.open(file, 'a+');
  try {
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    await handle.appendFile(`${prefix}${JSON.stringify(line)}\n`);
  } finally {
    await handle.close();
  }
}

/** The contract's view of a line (the blobs stay inside the store). */
export function publicTurn(line: LogLine): TurnCheckpoint {
  const { blobs: _blobs, rewind: _rewind, ...turn } = line;
  return turn;
}

/** The log of another session of the same workspace (a journal names its session). */
export function logOf(ownLog: string, sessionId: string): string {
  return path.join(path.dirname(ownLog), `${sessionId}.jsonl`);
}
