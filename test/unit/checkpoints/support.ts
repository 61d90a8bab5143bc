// Helpers for the checkpoint tests: a workspace with files, a store opened on it, git run on the side.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CheckpointStore, openCheckpoints } from '../../../src/core/checkpoints/checkpointStore';
import type { Logger } from '../../../src/core/ports';

/** A logger that keeps what it was told. */
export function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info() {}, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) };
}

/** Writes files (path -> text) under a folder, making folders as needed. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

export function read(dir: string, rel: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dir, rel), 'utf8');
  } catch {
    return undefined;
  }
}

export async function open(
  dataDir: string,
  workspace: string,
  sessionId = 'session-1',
  extra: { maxFileBytes?: number; maxFiles?: number; logger?: Logger } = {},
): Promise<CheckpointStore> {
  const store = await openCheckpoints({
    dataDir,
    workspace,
    sessionId,
    maxFileBytes: extra.maxFileBytes ?? 10 * 1024 * 1024,
    logger: extra.logger ?? recordingLogger(),
    ...(extra.maxFiles ? { maxFiles: extra.maxFiles } : {}),
  });
  assert.ok(store instanceof CheckpointStore, 'checkpoints are available');
  return store;
}

/** One agent turn: the changes happen between beforeChange and endTurn, as a tool's would. */
export async function turn(store: CheckpointStore, n: number, change: () => void, uuid?: string) {
  store.beginTurn(n, uuid);
  await store.beforeChange();
  change();
  const line = await store.endTurn();
  assert.ok(line);
  return line;
}

/** The person's repository, made with their own git (a plain `git init`, one commit). */
export function userRepo(dir: string): void {
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Me',
        GIT_AUTHOR_EMAIL: 'me@x',
        GIT_COMMITTER_NAME: 'Me',
        GIT_COMMITTER_EMAIL: 'me@x',
      },
    });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
}
