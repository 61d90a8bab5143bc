// Runs the `engram` command line as a child process (TypeScript through tsx), with HOME and TMPDIR in a
// test folder and nothing of the developer's environment but PATH, so a test sees what a user would;
// or in this process, with the environment given.
import { execFile } from 'node:child_process';
import type { CliIo } from '../../../src/cli/command';
import { runCli } from '../../../src/cli/dispatcher';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runEngram(args: string[], opts: { home: string; env?: Record<string, string> }): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      {
        cwd: process.cwd(),
        env: { PATH: process.env.PATH ?? '', HOME: opts.home, TMPDIR: opts.home, ...opts.env },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The same command run in this process (no model startup cost; a test can mock what it reaches). */
export async function runEngramInProcess(
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: opts.env,
    cwd: opts.cwd,
    signal: new AbortController().signal,
  };
  return { code: await runCli(args, io), stdout, stderr };
}
