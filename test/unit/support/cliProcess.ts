// Runs the `engram` command line as a child process (TypeScript through tsx), with HOME and TMPDIR in a
// test folder and nothing of the developer's environment but PATH, so a test sees what a user would.
import { execFile } from 'node:child_process';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runEngram(args: string[], opts: { home: string; env?: Record<string, string> }): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '', HOME: opts.home, TMPDIR: opts.home, ...opts.env },
    }, (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }));
  });
}
