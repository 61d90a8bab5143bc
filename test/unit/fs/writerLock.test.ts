// One writer at a time (issue #20): a second holder waits and is told who it waits for, gives up after
// its bound naming the holder, and takes over a lock whose process is gone or that nobody refreshed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { acquireWriterLock, LockBusyError, STALE_MS, type LockHolder } from '../../../src/core/fs/writerLock';
import { SessionChangedError, TranscriptGuard } from '../../../src/core/session/transcriptGuard';
import { TranscriptWriter } from '../../../src/core/conversation/transcriptWriter';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs('each');

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

function writeLock(file: string, holder: Partial<LockHolder>): void {
  fs.writeFileSync(
    `${file}.lock`,
    JSON.stringify({ pid: 1, hostname: os.hostname(), since: new Date().toISOString(), token: 'x', ...holder }),
  );
}

describe('acquireWriterLock', () => {
  it('makes a second holder wait until the first lets go, telling it who holds the lock', async () => {
    const file = path.join(tempDir(), 's.jsonl');
    const first = await acquireWriterLock(file, { waitMs: 1000 });
    const told: Array<LockHolder | undefined> = [];
    let secondHas = false;
    const second = acquireWriterLock(file, { waitMs: 5000, pollMs: 10, onWait: (h) => told.push(h) }).then((lock) => {
      secondHas = true;
      return lock;
    });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(secondHas, false, 'still waiting');
    assert.equal(told.length, 1);
    assert.equal(told[0]?.pid, process.pid);
    await first.release();
    const lock = await second;
    assert.equal(secondHas, true);
    await lock.release();
    assert.equal(fs.existsSync(`${file}.lock`), false, 'released locks leave no file');
  });

  it('gives up after its bound with a message naming the holder and the lock file', async () => {
    const file = path.join(tempDir(), 's.jsonl');
    const first = await acquireWriterLock(file, { waitMs: 1000 });
    await assert.rejects(acquireWriterLock(file, { waitMs: 150, pollMs: 10 }), (e: unknown) => {
      assert.ok(e instanceof LockBusyError);
      assert.match(
        e.message,
        new RegExp(
          `Another Engram process \\(pid ${process.pid}, since .*\\) is writing ${file.replace(/[.\\]/g, '\\$&')}; gave up after waiting 0 s`,
        ),
      );
      assert.match(e.message, /remove .*s\.jsonl\.lock if that process is gone/);
      return true;
    });
    await first.release();
  });

  it('takes over a lock whose process is gone (a crash), and one nobody refreshed for long', async () => {
    const dir = tempDir();
    const crashed = path.join(dir, 'a.jsonl');
    writeLock(crashed, { pid: deadPid() });
    const told: unknown[] = [];
    const a = await acquireWriterLock(crashed, { waitMs: 100, onWait: (h) => told.push(h) });
    assert.deepEqual(told, [], 'no wait for a dead holder');
    await a.release();

    const silent = path.join(dir, 'b.jsonl');
    writeLock(silent, { pid: process.pid, hostname: 'elsewhere' });
    const old = new Date(Date.now() - STALE_MS - 1000);
    fs.utimesSync(`${silent}.lock`, old, old);
    const b = await acquireWriterLock(silent, { waitMs: 100 });
    await b.release();
  });

  it('is let go of when its process exits without releasing it', () => {
    const file = path.join(tempDir(), 'c.jsonl');
    const script = `import('${path.resolve('src/core/fs/writerLock.ts')}').then(async (m) => { await (m.acquireWriterLock ? m : m.default).acquireWriterLock(${JSON.stringify(file)}, { waitMs: 100 }); process.exit(0); })`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(fs.existsSync(`${file}.lock`), false);
  });
});

describe('TranscriptGuard, a turn at a time', () => {
  it('refuses a turn once another writer appended to the transcript since it was read', async () => {
    const file = path.join(tempDir(), 's.jsonl');
    const guard = await TranscriptGuard.beforeRead(file, { mode: 'turn' });
    const writer = new TranscriptWriter({ file, sessionId: 's', cwd: '/p', version: '0' });
    guard.watch(writer);
    await guard.asWriter(() => writer.appendUserPrompt('mine'));
    await guard.asWriter(() => writer.appendUserPrompt('mine again'));
    fs.appendFileSync(file, '{"type":"user","uuid":"theirs"}\n');
    await assert.rejects(
      guard.asWriter(() => writer.appendUserPrompt('lost?')),
      SessionChangedError,
    );
    assert.equal(
      fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length,
      3,
      'nothing written after the refusal',
    );
    assert.equal(fs.existsSync(`${file}.lock`), false, 'the lock is let go of after a refused turn');
  });

  it('holds the lock from before the read until released, for a run', async () => {
    const file = path.join(tempDir(), 's.jsonl');
    const guard = await TranscriptGuard.beforeRead(file, { mode: 'run' });
    await assert.rejects(acquireWriterLock(file, { waitMs: 50, pollMs: 10 }), LockBusyError);
    await guard.release();
    await (await acquireWriterLock(file, { waitMs: 50 })).release();
  });
});
