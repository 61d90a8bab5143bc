// Throwaway folders for unit tests, under the OS temp dir.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach } from 'node:test';

/**
 * A new empty folder. Its real path: on macOS os.tmpdir() is behind a symlink, and the code under test
 * reports (and the path guard compares) real paths.
 */
export function tempDir(prefix = 'engram-test-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/**
 * A tempDir() whose folders are removed after each test (`'each'`) or after the file's (or suite's)
 * last test (`'all'`). Call it where the hooks belong, at the top of the file or in a describe();
 * node:test runs hooks in the order they were registered, so register it after anything that must
 * finish with the folders first (a background agent writing into them).
 */
export function useTempDirs(scope: 'each' | 'all' = 'each'): (prefix?: string) => string {
  const made: string[] = [];
  (scope === 'each' ? afterEach : after)(() => {
    // A child process still letting go of a folder (ENOTEMPTY, EBUSY) gets a few retries.
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });
  return (prefix) => {
    const dir = tempDir(prefix);
    made.push(dir);
    return dir;
  };
}

/** Runs `fn` with a new folder and removes the folder afterwards, however `fn` ends. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>, prefix?: string): Promise<T> {
  const dir = tempDir(prefix);
  try {
    return await fn(dir);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
