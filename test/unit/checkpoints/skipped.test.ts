// What checkpoints leave out and say so (issue 33): .gitignore'd paths, heavy folders, files over the size
// limit (also one that grows past it during a turn); a workspace that is not a git repository; a workspace
// with too many files, and no git on PATH, turn checkpoints off with a plain reason; the person's own
// repository (status, stash, refs, index) is never touched.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openCheckpoints } from '../../../src/core/checkpoints/checkpointStore';
import { silentLogger } from '../../../src/core/ports';
import { useTempDirs } from '../support/tempDirs';
import { open, read, turn, userRepo, writeFiles } from './support';

const tempDir = useTempDirs('each');

describe('checkpoints leave out', () => {
  it('ignored paths, heavy folders and too-big files, reporting each', async () => {
    const ws = tempDir();
    writeFiles(ws, {
      '.gitignore': 'dist/\n*.log\n',
      'src/a.ts': 'a\n',
      'dist/out.js': 'built\n',
      'debug.log': 'log\n',
      'node_modules/pkg/index.js': 'module.exports = 1;\n',
      'web/node_modules/x/y.js': 'nested\n',
      'web/index.html': '<p>\n',
      '.venv/lib/site.py': 'x\n',
    });
    const store = await open(tempDir(), ws, 's', { maxFileBytes: 1000 });
    const t1 = await turn(store, 1, () => {
      writeFiles(ws, { 'big.bin': 'x'.repeat(5000), 'src/a.ts': 'a1\n', 'dist/more.js': 'more\n' });
    });
    assert.deepEqual(t1.files, [{ path: 'src/a.ts', change: 'modified' }]);
    const skipped = Object.fromEntries(t1.skipped.map((s) => [s.path, [s.reason, s.bytes]]));
    assert.deepEqual(skipped['big.bin'], ['too-big', 5000]);
    for (const p of ['dist/', 'debug.log', 'node_modules/', 'web/node_modules/', '.venv/'])
      assert.deepEqual(skipped[p], ['excluded', undefined], p);
    assert.equal(await store.readFile(t1.after as string, 'node_modules/pkg/index.js'), undefined);
    // A file that grows past the limit in a turn is reported as skipped, not as deleted, and a rewind
    // never overwrites it (no copy of it could be kept).
    const t2 = await turn(store, 2, () => fs.writeFileSync(path.join(ws, 'src/a.ts'), 'y'.repeat(4000)));
    assert.deepEqual(t2.files, []);
    assert.deepEqual(
      t2.skipped.find((s) => s.path === 'src/a.ts'),
      { path: 'src/a.ts', reason: 'too-big', bytes: 4000 },
    );
    const plan = await store.planCodeRewind(0);
    assert.match(plan.files.find((f) => f.path === 'src/a.ts')?.conflict ?? '', /over the checkpoint size limit/);
    const r = await store.applyCodeRewind(plan, { force: true });
    assert.match(
      r.failed.find((f) => f.path === 'src/a.ts')?.message ?? '',
      /over the checkpoint size limit.*nothing is lost/,
    );
    assert.equal(read(ws, 'src/a.ts')?.length, 4000);
    await store.dispose();
  });

  it('works in a folder that is not a git repository, and never touches a repository the person has', async () => {
    const plain = tempDir();
    writeFiles(plain, { 'a.txt': 'a\n' });
    const s1 = await open(tempDir(), plain);
    const t = await turn(s1, 1, () => fs.writeFileSync(path.join(plain, 'a.txt'), 'b\n'));
    assert.deepEqual(t.files, [{ path: 'a.txt', change: 'modified' }]);
    assert.equal(fs.existsSync(path.join(plain, '.git')), false);
    await s1.dispose();

    const ws = tempDir();
    writeFiles(ws, { 'a.txt': 'a\n', 'b.txt': 'b\n', '.git-keep': '' });
    userRepo(ws);
    fs.writeFileSync(path.join(ws, '.git', 'info', 'exclude'), 'secret-notes/\n');
    writeFiles(ws, { 'b.txt': 'b changed, not staged\n', 'secret-notes/n.txt': 'private\n' });
    // GIT_OPTIONAL_LOCKS=0: the look itself must not refresh the index it compares.
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: ws, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } }).toString();
    const look = () => ({
      status: git('status', '--porcelain'),
      stash: git('stash', 'list'),
      refs: git('for-each-ref'),
      index: crypto
        .createHash('sha1')
        .update(fs.readFileSync(path.join(ws, '.git', 'index')))
        .digest('hex'),
      indexMtime: fs.statSync(path.join(ws, '.git', 'index')).mtimeMs,
      objects: fs
        .readdirSync(path.join(ws, '.git', 'objects'))
        .sort()
        .join(),
    });
    const before = look();
    const store = await open(tempDir(), ws);
    const t1 = await turn(store, 1, () => writeFiles(ws, { 'a.txt': 'agent\n', 'c.txt': 'new\n' }));
    assert.ok(
      t1.skipped.some((s) => s.path === 'secret-notes/' && s.reason === 'excluded'),
      'info/exclude is honoured',
    );
    await store.applyCodeRewind(await store.planCodeRewind(0));
    assert.equal(read(ws, 'a.txt'), 'a\n');
    await store.dispose();
    assert.deepEqual(look(), before);
  });

  it("honours the place-free patterns of the repository's info/exclude in a workspace inside it", async () => {
    const repo = tempDir();
    writeFiles(repo, { 'app/a.txt': 'a\n' });
    userRepo(repo);
    fs.writeFileSync(path.join(repo, '.git', 'info', 'exclude'), '*.secret\n/app/b.txt\n');
    const ws = path.join(repo, 'app');
    const store = await open(tempDir(), ws);
    const t = await turn(store, 1, () => writeFiles(ws, { 'k.secret': 'x\n', 'b.txt': 'b\n' }));
    assert.deepEqual(t.files, [{ path: 'b.txt', change: 'added' }], 'an anchored pattern is the top folder’s');
    assert.deepEqual(t.skipped, [{ path: 'k.secret', reason: 'excluded' }]);
    await store.dispose();
  });

  it('leaves out its own data folder when it lies inside the workspace', async () => {
    const ws = tempDir();
    writeFiles(ws, { 'a.txt': 'a\n' });
    const store = await open(path.join(ws, '.engram-data'), ws);
    const t = await turn(store, 1, () => writeFiles(ws, { 'a.txt': 'b\n' }));
    assert.deepEqual(t.files, [{ path: 'a.txt', change: 'modified' }]);
    assert.deepEqual(t.skipped, [{ path: '.engram-data/', reason: 'excluded' }]);
    await store.dispose();
  });

  it('turns off with a plain reason for too many files or no git', async () => {
    const ws = tempDir();
    writeFiles(ws, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, `${i}\n`])));
    const tooMany = await openCheckpoints({
      dataDir: tempDir(),
      workspace: ws,
      sessionId: 's',
      maxFileBytes: 1e6,
      logger: silentLogger,
      maxFiles: 20,
    });
    assert.equal(tooMany.available, false);
    assert.match(!tooMany.available ? tooMany.reason : '', /more than 20 files/);
    const notAFolder = path.join(tempDir(), 'data');
    fs.writeFileSync(notAFolder, '');
    const broken = await openCheckpoints({
      dataDir: notAFolder,
      workspace: ws,
      sessionId: 's',
      maxFileBytes: 1e6,
      logger: silentLogger,
    });
    assert.match(!broken.available ? broken.reason : '', /^Checkpoints could not open their repository .*ENOTDIR/);
    const path0 = process.env.PATH;
    process.env.PATH = tempDir();
    try {
      const noGit = await openCheckpoints({
        dataDir: tempDir(),
        workspace: ws,
        sessionId: 's',
        maxFileBytes: 1e6,
        logger: silentLogger,
      });
      assert.deepEqual(noGit, { available: false, reason: 'Checkpoints need git, which was not found on PATH.' });
    } finally {
      process.env.PATH = path0;
    }
  });
});
