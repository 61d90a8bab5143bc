// What every `engram` subcommand is: a name, a line of help, and a run function over plain I/O (so tests
// run commands in-process and main.ts wires them to the real process).
import type { Env } from '../core/host/config';

export const EXIT_OK = 0;
/** The model or the API failed (the message is on stderr). */
export const EXIT_MODEL_ERROR = 1;
export const EXIT_USAGE = 2;
/** Interrupted with Ctrl-C (128 + SIGINT), as shells expect. */
export const EXIT_INTERRUPTED = 130;

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Resolves once what was written to stdout has left the process (a slow reader: a pipe); long outputs
   * wait on it between parts, so they are not all held in memory on their way out. Default: at once.
   */
  drained?(): Promise<void>;
  env: Env;
  /** The process's working directory (the default project). */
  cwd: string;
  /** Aborted on Ctrl-C: the run ends its turn cleanly and exits. */
  signal: AbortSignal;
  /** How the user started this command line, to be typed again in hints (`engram`, `node dist/cli.js`); default `engram`. */
  command?: string;
}

export interface Command {
  name: string;
  summary: string;
  run(argv: string[], io: CliIo): Promise<number>;
}
