// Code rewinds (issue 33): going back to the state right after a turn, or before the first one; a file
// the person changed after the agent is a conflict left as it is (forced: restored, all or by path); a
// rewind is itself undone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { useTempDirs } from '../support/tempDirs';
import { open, read, turn, writeFiles } from './support';

const tempDir = useTempDirs('each');

/** Three turns: 1 writes a.txt and makes new/x.txt, 2 edits b.txt like `sed -i` and removes c.txt, 3 edits a.txt. */
async function threeTurns(ws: string, data: string) {
  writeFiles(ws, { 'a.txt': 'a0\n', 'b.txt': 'b0\n', 'c.txt': 'c0\n' });
  const store = await open(data, ws);
  await turn(
    store,
    1,
    () => {
      fs.writeFileSync(path.join(ws, 'a.txt'), 'a1\n');
      writeFiles(ws, { 'new/deep/x.txt': 'x1\n' });
    },
    'u1',
  );
  await turn(
    store,
    2,
    () => {
      fs.writeFileSync(path.join(ws, 'b.txt'), 'b2\n');
      fs.rmSync(path.join(ws, 'c.txt'));
    },
    'u2',
  );
  await turn(store, 3, () => fs.writeFileSync(path.join(ws, 'a.txt'), 'a3\n'), 'u3');
  return store;
}

describe('code rewind', () => {
  it('goes back to right after a turn, then to before the first, and undoes each', async () => {
    const ws = tempDir();
    const store = await threeTurns(ws, tempDir());
    const plan1 = await store.planCodeRewind(1);
    assert.deepEqual(plan1.turns, [2, 3]);
    assert.deepEqual(
      plan1.files.map((f) => [f.path, f.action, f.conflict]),
      [
        ['a.txt', 'restore', undefined],
        ['b.txt', 'restore', undefined],
        ['c.txt', 'recreate', undefined],
      ],
    );
    assert.equal((await store.readFile(plan1.now, 'a.txt'))?.toString(), 'a3\n');
    const r1 = await store.applyCodeRewind(plan1);
    assert.deepEqual([r1.written, r1.deleted, r1.conflicts, r1.failed], [['a.txt', 'b.txt', 'c.txt'], [], [], []]);
    assert.deepEqual(
      ['a.txt', 'b.txt', 'c.txt', 'new/deep/x.txt'].map((f) => read(ws, f)),
      ['a1\n', 'b0\n', 'c0\n', 'x1\n'],
    );
    const plan0 = await store.planCodeRewind(0);
    assert.deepEqual(plan0.turns, [1, 2, 3]);
    const r0 = await store.applyCodeRewind(plan0);
    assert.deepEqual(r0.deleted, ['new/deep/x.txt']);
    assert.equal(read(ws, 'a.txt'), 'a0\n');
    assert.equal(fs.existsSync(path.join(ws, 'new')), false, 'the folders the agent made are gone');
    const u0 = await store.undoCodeRewind(r0.id);
    assert.deepEqual([u0.conflicts, u0.failed], [[], []]);
    assert.deepEqual(
      ['a.txt', 'b.txt', 'c.txt', 'new/deep/x.txt'].map((f) => read(ws, f)),
      ['a1\n', 'b0\n', 'c0\n', 'x1\n'],
    );
    await store.undoCodeRewind(r1.id);
    assert.deepEqual(
      ['a.txt', 'b.txt', 'c.txt'].map((f) => read(ws, f)),
      ['a3\n', 'b2\n', undefined],
    );
    await store.dispose();
  });

  it('leaves a file the person changed after the agent, and restores it when forced (all or by path)', async () => {
    const ws = tempDir();
    const store = await threeTurns(ws, tempDir());
    fs.writeFileSync(path.join(ws, 'a.txt'), 'mine after turn 3\n'); // after the last turn
    const plan = await store.planCodeRewind(0);
    const byPath = Object.fromEntries(plan.files.map((f) => [f.path, f.conflict]));
    assert.equal(byPath['a.txt'], 'changed by you after turn 3');
    assert.equal(byPath['b.txt'], undefined);
    const r = await store.applyCodeRewind(plan);
    assert.deepEqual(r.conflicts, ['a.txt']);
    assert.equal(read(ws, 'a.txt'), 'mine after turn 3\n', 'left as it is');
    assert.equal(read(ws, 'b.txt'), 'b0\n', 'the others are rewound');
    const forced = await store.applyCodeRewind(await store.planCodeRewind(0), { force: ['a.txt'] });
    assert.deepEqual(forced.written, ['a.txt']);
    assert.equal(read(ws, 'a.txt'), 'a0\n');
    await store.undoCodeRewind(forced.id);
    assert.equal(read(ws, 'a.txt'), 'mine after turn 3\n', 'the undo brings the hand edit back');
    await store.dispose();
  });

  it('keeps a hand edit made between turns and names it as a conflict when a later turn built on it', async () => {
    const ws = tempDir();
    writeFiles(ws, { 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
    const store = await open(tempDir(), ws);
    await turn(store, 1, () => fs.writeFileSync(path.join(ws, 'a.txt'), 'a1\n'));
    fs.writeFileSync(path.join(ws, 'a.txt'), 'a1 + mine\n'); // between turn 1 and turn 2
    fs.writeFileSync(path.join(ws, 'b.txt'), 'b mine\n');
    await turn(store, 2, () => {
      fs.writeFileSync(path.join(ws, 'a.txt'), 'a2\n');
      fs.writeFileSync(path.join(ws, 'b.txt'), 'b2\n');
    });
    const toOne = await store.planCodeRewind(1);
    const b = toOne.files.find((f) => f.path === 'b.txt');
    assert.equal(b?.conflict, undefined);
    await store.applyCodeRewind(toOne);
    assert.equal(read(ws, 'b.txt'), 'b mine\n', 'back to the hand edit made before turn 2');
    assert.equal(read(ws, 'a.txt'), 'a1 + mine\n');
    const toZero = await store.planCodeRewind(0);
    assert.equal(toZero.files.find((f) => f.path === 'a.txt')?.conflict, 'changed by you between turn 1 and turn 2');
    const r = await store.applyCodeRewind(toZero, { force: true });
    assert.ok(r.written.includes('a.txt'));
    assert.equal(read(ws, 'a.txt'), 'a0\n');
    await store.dispose();
  });

  it('picks the turn by its prompt when two turns share a number, and says when a turn is unknown', async () => {
    const ws = tempDir();
    writeFiles(ws, { 'a.txt': 'a0\n' });
    const store = await open(tempDir(), ws);
    await turn(store, 1, () => fs.writeFileSync(path.join(ws, 'a.txt'), 'a1\n'), 'first');
    await turn(store, 2, () => fs.writeFileSync(path.join(ws, 'a.txt'), 'a2\n'), 'second');
    await turn(store, 2, () => fs.writeFileSync(path.join(ws, 'a.txt'), 'a2 again\n'), 'retried'); // a retry
    const plan = await store.planCodeRewind(2, 'second');
    assert.deepEqual(plan.turns, [2]);
    await store.applyCodeRewind(plan);
    assert.equal(read(ws, 'a.txt'), 'a2\n');
    await assert.rejects(store.planCodeRewind(7), /Turn 7 has no checkpoint in this session \(it has turns 1 to 2\)/);
    await assert.rejects(store.undoCodeRewind('nope'), /There is no rewind "nope"/);
    await store.dispose();
  });

  it('treats a file changed since the preview as a conflict', async () => {
    const ws = tempDir();
    const store = await threeTurns(ws, tempDir());
    const plan = await store.planCodeRewind(2);
    fs.writeFileSync(path.join(ws, 'a.txt'), 'typed while the preview was open\n');
    const r = await store.applyCodeRewind(plan);
    assert.deepEqual(r.conflicts, ['a.txt']);
    assert.equal(read(ws, 'a.txt'), 'typed while the preview was open\n');
    await store.dispose();
  });

  it('leaves a file changed since the rewind when undoing it, unless forced', async () => {
    const ws = tempDir();
    const store = await threeTurns(ws, tempDir());
    const r = await store.applyCodeRewind(await store.planCodeRewind(0));
    fs.writeFileSync(path.join(ws, 'b.txt'), 'mine, after the rewind\n');
    const undo = await store.undoCodeRewind(r.id);
    assert.deepEqual(undo.conflicts, ['b.txt']);
    assert.equal(read(ws, 'b.txt'), 'mine, after the rewind\n');
    assert.equal(read(ws, 'a.txt'), 'a3\n', 'the others are put back');
    const forced = await store.undoCodeRewind(r.id, { force: ['b.txt'] });
    assert.deepEqual(forced.written, ['b.txt']);
    assert.equal(read(ws, 'b.txt'), 'b2\n');
    await store.dispose();
  });
});
