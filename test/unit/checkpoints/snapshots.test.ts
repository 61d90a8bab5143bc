// Checkpoints per turn (issue 33): each turn's before and after snapshots in the shadow repository, the
// files it changed (Write-like and Bash-like changes), the log across turns and across a reopened store.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { useTempDirs } from '../support/tempDirs';
import { open, read, turn, writeFiles } from './support';

const tempDir = useTempDirs('each');

describe('checkpoint snapshots', () => {
  it('records what each turn created, changed and deleted, and keeps the contents', async () => {
    const ws = tempDir();
    const data = tempDir();
    writeFiles(ws, { 'a.txt': 'one\n', 'src/b.ts': 'export const b = 1;\n', 'gone.txt': 'bye\n' });
    const store = await open(data, ws);
    const t1 = await turn(store, 1, () => {
      fs.writeFileSync(path.join(ws, 'a.txt'), 'one changed\n');
      fs.writeFileSync(path.join(ws, 'src/new file é.ts'), 'new\n');
      fs.rmSync(path.join(ws, 'gone.txt'));
    });
    assert.deepEqual(t1.files, [
      { path: 'a.txt', change: 'modified' },
      { path: 'gone.txt', change: 'deleted' },
      { path: 'src/new file é.ts', change: 'added' },
    ]);
    assert.ok(t1.before && t1.after && t1.before !== t1.after);
    assert.equal((await store.readFile(t1.before, 'a.txt'))?.toString(), 'one\n');
    assert.equal((await store.readFile(t1.after, 'a.txt'))?.toString(), 'one changed\n');
    assert.equal(await store.readFile(t1.after, 'gone.txt'), undefined);
    const t2 = await turn(store, 2, () => {});
    assert.deepEqual(t2.files, []);
    store.beginTurn(3, 'uuid-3');
    const t3 = await store.endTurn(); // no tool ran: a line without snapshots
    assert.deepEqual(t3, { sessionId: 'session-1', turn: 3, promptUuid: 'uuid-3', at: t3?.at, files: [], skipped: [] });
    await store.dispose();
    const again = await open(data, ws);
    const turns = await again.list();
    assert.deepEqual(
      turns.map((t) => [t.turn, t.files.length]),
      [
        [1, 3],
        [2, 0],
        [3, 0],
      ],
    );
    assert.equal(read(ws, 'a.txt'), 'one changed\n');
    await again.dispose();
  });
});
