// Shared by the commands that read transcripts (`compact`, `gauge`, `-p --resume`): argument checks with
// words a person can act on, and the lines the reader skipped or repaired, one per line on stderr.
// (Their core entry points load the exact tokenizer: they report token counts.)
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import {
  acquireWriterLock,
  describeHolder,
  formatWait,
  type WriterLock,
  DEFAULT_WRITER_WAIT_MS,
} from '../core/host/sessions';
import { formatProblem, type TranscriptProblem } from '../core/host/transcripts';
import { UsageError } from './args';
import type { CliIo } from './command';

export async function transcriptArg(positionals: string[], cwd: string, command: string): Promise<string> {
  if (positionals.length === 0) throw new UsageError(`A transcript file is required: engram ${command} FILE.jsonl`);
  if (positionals.length > 1) throw new UsageError(`Unexpected argument: ${positionals[1]}`);
  const file = path.resolve(cwd, positionals[0]);
  try {
    if (!(await fsp.stat(file)).isFile()) throw new Error('not a file');
  } catch {
    throw new UsageError(`Not a readable file: ${file}`);
  }
  return file;
}

export function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number, not ${value}`);
  return n;
}

/** `engram: FILE:LINE: skipped: reason` for each problem (text output; JSON carries them as "problems"). */
export function reportProblems(io: Pick<CliIo, 'stderr'>, problems: readonly TranscriptProblem[]): void {
  for (const p of problems) io.stderr(`engram: ${formatProblem(p)}\n`);
}

/** A command that appends to a transcript does it as the session's one writer: it waits for a run holding it. */
export function holdTranscript(file: string, io: Pick<CliIo, 'stderr' | 'signal'>): Promise<WriterLock> {
  return acquireWriterLock(file, {
    waitMs: DEFAULT_WRITER_WAIT_MS,
    signal: io.signal,
    onWait: (holder) =>
      io.stderr(
        `engram: ${describeHolder(holder)} is writing ${file}; ` +
          `waiting for it to finish (at most ${formatWait(DEFAULT_WRITER_WAIT_MS)}).\n`,
      ),
  });
}
