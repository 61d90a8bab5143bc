// Two windows on one workspace (issue 33): two sessions open the same shadow repository at once, take
// snapshots at the same moments, and each keeps its own index, ref and log; each rewinds only its own turns.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { lockPacking } from '../../../src/core/checkpoints/repository';
import { useTempDirs } from '../support/tempDirs';
import { open, read, turn, writeFiles } from './support';

const tempDir = useTempDirs('each');

describe('two sessions on one workspace', () => {
  it('keep their own checkpoints and rewinds, with snapshots taken at the same moments', async () => {
    const ws = tempDir();
    const data = tempDir();
    writeFiles(ws, { 'x.txt': 'x0\n', 'y.txt': 'y0\n', 'shared.txt': 's0\n' });
    const [a, b] = await Promise.all([open(data, ws, 'session-a'), open(data, ws, 'session-b')]);
    for (let n = 1; n <= 4; n++) {
      await turn(a, n, () => writeFiles(ws, { 'x.txt': `x${n}\n` }));
      await turn(b, n, () => writeFiles(ws, { 'y.txt': `y${n}\n` }));
    }
    // Both take snapshots at once, again and again: nothing is corrupted, nothing is lost.
    for (let n = 5; n <= 10; n++) {
      a.beginTurn(n);
      b.beginTurn(n);
      await Promise.all([a.beforeChange(), b.beforeChange()]);
      writeFiles(ws, { 'shared.txt': `s${n}\n` });
      const [la, lb] = await Promise.all([a.endTurn(), b.endTurn()]);
      assert.deepEqual(la?.files, [{ path: 'shared.txt', change: 'modified' }]);
      assert.deepEqual(lb?.files, [{ path: 'shared.txt', change: 'modified' }]);
    }
    const listA = await a.list();
    const listB = await b.list();
    assert.deepEqual(
      listA.slice(0, 4).map((t) => t.files.map((f) => f.path)),
      [['x.txt'], ['x.txt'], ['x.txt'], ['x.txt']],
    );
    assert.deepEqual(
      listB.slice(0, 4).map((t) => t.files.map((f) => f.path)),
      [['y.txt'], ['y.txt'], ['y.txt'], ['y.txt']],
    );
    assert.ok(listA.every((t) => t.sessionId === 'session-a') && listB.length === 10);

    const repo = path.join(
      data,
      'checkpoints',
      fs.readdirSync(path.join(data, 'checkpoints')).find((n) => n.startsWith('-')) as string,
    );
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        env: { ...process.env, GIT_DIR: repo },
        stdio: ['ignore', 'pipe', 'pipe'],
      }).toString();
    assert.match(
      git('for-each-ref', '--format=%(refname)'),
      /refs\/engram\/sessions\/session-a\nrefs\/engram\/sessions\/session-b/,
    );
    git('fsck', '--no-dangling'); // throws on a broken object or ref
    assert.deepEqual(fs.readdirSync(path.join(repo, 'engram', 'index')).sort(), ['session-a', 'session-b']);

    // Session a goes back to after its turn 2: only x.txt (and the shared file both changed since).
    const plan = await a.planCodeRewind(2);
    assert.deepEqual(
      plan.files.map((f) => f.path),
      ['shared.txt', 'x.txt'],
    );
    await a.applyCodeRewind(plan);
    assert.deepEqual([read(ws, 'x.txt'), read(ws, 'y.txt'), read(ws, 'shared.txt')], ['x2\n', 'y4\n', 's0\n']);
    // Session b goes back to before its first turn: y.txt (x.txt is a's; shared.txt is there already).
    const planB = await b.planCodeRewind(0);
    assert.deepEqual(
      planB.files.map((f) => [f.path, f.conflict]),
      [['y.txt', undefined]],
    );
    await b.applyCodeRewind(planB);
    assert.deepEqual([read(ws, 'x.txt'), read(ws, 'y.txt')], ['x2\n', 'y0\n']);
    await Promise.all([a.dispose(), b.dispose()]);
  });

  it('keep one chain when one session is open twice (the CLI while the window runs)', async () => {
    const ws = tempDir();
    const data = tempDir();
    writeFiles(ws, { 'a.txt': 'a0\n' });
    const window = await open(data, ws, 'same');
    const cli = await open(data, ws, 'same');
    await turn(window, 1, () => writeFiles(ws, { 'a.txt': 'a1\n' }));
    await turn(cli, 2, () => writeFiles(ws, { 'a.txt': 'a2\n' }));
    const t3 = await turn(window, 3, () => writeFiles(ws, { 'a.txt': 'a3\n' })); // its ref moved under it
    assert.deepEqual(t3.files, [{ path: 'a.txt', change: 'modified' }]);
    assert.deepEqual(
      (await cli.list()).map((t) => t.turn),
      [1, 2, 3],
    );
    await cli.applyCodeRewind(await cli.planCodeRewind(1));
    assert.equal(read(ws, 'a.txt'), 'a1\n');
    await Promise.all([window.dispose(), cli.dispose()]);
  });

  it('a session opening never waits for another window packing the repository', async () => {
    const ws = tempDir();
    const data = tempDir();
    writeFiles(ws, { 'a.txt': 'a0\n' });
    const first = await open(data, ws, 'session-a');
    const repo = path.join(data, 'checkpoints', fs.readdirSync(path.join(data, 'checkpoints'))[0] as string);
    // Another window is packing (it holds the packing lock for as long as a big pack takes).
    const packing = await lockPacking(repo);
    try {
      const second = await open(data, ws, 'session-b'); // would wait out the lock, then say it cannot open
      await turn(second, 1, () => writeFiles(ws, { 'a.txt': 'a1\n' }));
      await second.dispose();
    } finally {
      await packing.release();
    }
    await first.dispose();
  });
});
