// Faults around a code rewind (issue 33): a crash halfway (the next store finishes it), a read-only file
// and folder, a file replaced by a folder, a folder that leads outside the workspace through a link, a
// symbolic link restored as a link, and a log line that cannot be read.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { useTempDirs } from '../support/tempDirs';
import { open, read, recordingLogger, turn, writeFiles } from './support';

const tempDir = useTempDirs('each');
const isRoot = process.getuid?.() === 0;

describe('code rewind faults', () => {
  it('finishes a rewind that a crash stopped halfway when the next store opens', async () => {
    const ws = tempDir();
    const data = tempDir();
    const names = ['a', 'b', 'c', 'd'].map((n) => `${n}.txt`);
    writeFiles(ws, Object.fromEntries(names.map((n) => [n, `${n} old\n`])));
    const store = await open(data, ws);
    await turn(store, 1, () => writeFiles(ws, Object.fromEntries(names.map((n) => [n, `${n} agent\n`]))));
    const done = await store.applyCodeRewind(await store.planCodeRewind(0));
    await store.dispose();
    // As if the process died after the journal and two of the four files: the others are still new.
    const journal = path.join(
      fs.realpathSync(data),
      'checkpoints',
      fs.readdirSync(path.join(data, 'checkpoints')).find((n) => n.startsWith('-')) as string,
      'engram',
      'rewinds',
      `${done.id}.json`,
    );
    const j = JSON.parse(fs.readFileSync(journal, 'utf8'));
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout);
    fs.writeFileSync(journal, JSON.stringify({ ...j, state: 'applying', pid: dead, result: undefined }));
    writeFiles(ws, { 'c.txt': 'c.txt agent\n', 'd.txt': 'd.txt agent\n' });
    const logger = recordingLogger();
    const again = await open(data, ws, 'session-2', { logger });
    assert.match(again.recovered ?? '', /A rewind stopped halfway .* and was finished: 4 written, 0 deleted\./);
    assert.deepEqual(
      names.map((n) => read(ws, n)),
      names.map((n) => `${n} old\n`),
    );
    assert.equal(JSON.parse(fs.readFileSync(journal, 'utf8')).state, 'done');
    await again.dispose();
    const third = await open(data, ws, 'session-3');
    assert.equal(third.recovered, undefined, 'said once');
    await third.dispose();
  });

  it('restores a read-only file keeping its mode, and reports a file in a read-only folder', async () => {
    const ws = tempDir();
    writeFiles(ws, { 'ro.txt': 'ro old\n', 'locked/f.txt': 'f old\n', 'ok.txt': 'ok old\n' });
    const store = await open(tempDir(), ws);
    await turn(store, 1, () => {
      writeFiles(ws, { 'ro.txt': 'ro agent\n', 'locked/f.txt': 'f agent\n', 'ok.txt': 'ok agent\n' });
      fs.chmodSync(path.join(ws, 'ro.txt'), 0o444);
      fs.chmodSync(path.join(ws, 'locked'), 0o555);
    });
    try {
      const r = await store.applyCodeRewind(await store.planCodeRewind(0));
      assert.equal(read(ws, 'ro.txt'), 'ro old\n');
      assert.equal(fs.statSync(path.join(ws, 'ro.txt')).mode & 0o777, 0o444);
      assert.equal(read(ws, 'ok.txt'), 'ok old\n');
      if (!isRoot) {
        assert.deepEqual(
          r.failed.map((f) => f.path),
          ['locked/f.txt'],
        );
        assert.match(r.failed[0]?.message ?? '', /cannot be written: EACCES/);
        assert.equal(read(ws, 'locked/f.txt'), 'f agent\n');
      }
    } finally {
      fs.chmodSync(path.join(ws, 'locked'), 0o755);
    }
    await store.dispose();
  });

  it('never replaces a folder that took a file’s place, nor writes through a link that leads outside', async () => {
    const ws = tempDir();
    const outside = tempDir();
    writeFiles(outside, { 'f.txt': 'outside, not ours\n' });
    writeFiles(ws, { 'a.txt': 'a old\n', 'link-target.txt': 't\n', 'sub/f.txt': 'old\n' });
    fs.symlinkSync('link-target.txt', path.join(ws, 'l'));
    const store = await open(tempDir(), ws);
    await turn(store, 1, () => {
      writeFiles(ws, { 'a.txt': 'a agent\n', 'sub/f.txt': 'agent\n' });
      fs.rmSync(path.join(ws, 'l'));
      writeFiles(ws, { l: 'a file where the link was\n' });
    });
    fs.rmSync(path.join(ws, 'a.txt'));
    writeFiles(ws, { 'a.txt/inner.txt': 'my folder\n' }); // the person put a folder there
    fs.rmSync(path.join(ws, 'sub'), { recursive: true });
    fs.symlinkSync(outside, path.join(ws, 'sub')); // and a link to a folder outside
    const plan = await store.planCodeRewind(0);
    const conflicts = Object.fromEntries(plan.files.map((f) => [f.path, f.conflict]));
    assert.match(conflicts['a.txt'] ?? '', /is a folder now/);
    assert.match(conflicts['sub/f.txt'] ?? '', /its folder sub leads outside the workspace/);
    assert.equal(conflicts.l, undefined);
    const r = await store.applyCodeRewind(plan, { force: true });
    assert.deepEqual(r.failed.map((f) => f.path).sort(), ['a.txt', 'sub/f.txt']);
    assert.equal(read(outside, 'f.txt'), 'outside, not ours\n');
    assert.equal(read(ws, 'a.txt/inner.txt'), 'my folder\n');
    assert.equal(fs.readlinkSync(path.join(ws, 'l')), 'link-target.txt', 'the link is a link again');
    await store.dispose();
  });

  it('skips a log line that cannot be read, with a warning, and goes on', async () => {
    const ws = tempDir();
    const data = tempDir();
    writeFiles(ws, { 'a.txt': 'a0\n' });
    const logger = recordingLogger();
    const store = await open(data, ws, 's', { logger });
    await turn(store, 1, () => writeFiles(ws, { 'a.txt': 'a1\n' }));
    const key = fs.readdirSync(path.join(data, 'checkpoints')).find((n) => n.startsWith('-')) as string;
    fs.appendFileSync(path.join(data, 'checkpoints', key, 'engram', 'sessions', 's.jsonl'), '{"torn": tr');
    await turn(store, 2, () => writeFiles(ws, { 'a.txt': 'a2\n' }));
    assert.deepEqual(
      (await store.list()).map((t) => t.turn),
      [1, 2],
    );
    assert.ok(logger.warnings.some((w) => /line 2 of .*s\.jsonl is not a checkpoint; it is skipped/.test(w)));
    await store.applyCodeRewind(await store.planCodeRewind(0));
    assert.equal(read(ws, 'a.txt'), 'a0\n');
    await store.dispose();
  });

  it('tells the turn it is not covered when a snapshot fails, and still lists the turn', async () => {
    const ws = tempDir();
    const data = tempDir();
    writeFiles(ws, { 'a.txt': 'a0\n' });
    const logger = recordingLogger();
    const store = await open(data, ws, 's', { logger });
    await turn(store, 1, () => writeFiles(ws, { 'a.txt': 'a1\n' }));
    const key = fs.readdirSync(path.join(data, 'checkpoints')).find((n) => n.startsWith('-')) as string;
    fs.writeFileSync(path.join(data, 'checkpoints', key, 'engram', 'index', 's'), 'not an index');
    store.beginTurn(2);
    await assert.rejects(store.beforeChange(), /the snapshot before its first change failed \(the log says why\)/);
    assert.ok(logger.warnings.some((w) => /the before turn 2 snapshot failed: git .*index/.test(w)));
    const line = await store.endTurn();
    assert.deepEqual([line?.turn, line?.before, line?.files], [2, undefined, []]);
    assert.deepEqual(
      (await store.list()).map((t) => t.turn),
      [1, 2],
    );
    await store.dispose();
  });
});
