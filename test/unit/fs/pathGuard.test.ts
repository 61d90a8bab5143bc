import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { confineTo, resolveReal } from '../../../src/core/fs/pathGuard';
import { writeTool } from '../../../src/core/tools/writeTool';
import { useTempDirs } from '../support/tempDirs';
import { makeCtx, write } from '../tools/toolTestKit';

const tempDir = useTempDirs();

async function layout() {
  const base = await tempDir('engram-guard-');
  const root = path.join(base, 'memory');
  const outside = path.join(base, 'outside');
  await fsp.mkdir(path.join(root, 'sub'), { recursive: true });
  await fsp.mkdir(outside);
  await write(outside, 'secret.md', 's');
  await fsp.symlink(outside, path.join(root, 'linkdir')); // dir link pointing out
  await fsp.symlink(path.join(outside, 'secret.md'), path.join(root, 'linkfile.md')); // file link pointing out
  await fsp.symlink(path.join(outside, 'not-yet.md'), path.join(root, 'dangling.md')); // dangling link out
  await fsp.symlink(path.join(root, 'sub'), path.join(root, 'innerlink')); // link that stays inside
  return { base, root, outside, guard: confineTo(root) };
}

describe('confineTo', () => {
  it('allows paths inside the root, existing or not', async () => {
    const { root, guard } = await layout();
    assert.equal(guard(path.join(root, 'MEMORY.md'), 'write'), null);
    assert.equal(guard(path.join(root, 'sub', 'new', 'deeper.md'), 'write'), null);
    assert.equal(guard(path.join(root, 'sub', '..', 'x.md'), 'write'), null);
    assert.equal(guard(path.join(root, 'innerlink', 'x.md'), 'write'), null);
    assert.equal(guard(root, 'write'), null);
  });

  it('denies `..` escapes and absolute paths outside', async () => {
    const { root, outside, guard } = await layout();
    assert.match(guard(path.join(root, '..', 'outside', 'x.md'), 'write') ?? '', /only paths inside/);
    assert.match(guard(`${root}/sub/../../outside/x.md`, 'write') ?? '', /Not allowed to write to/);
    assert.notEqual(guard(path.join(outside, 'x.md'), 'write'), null);
    assert.notEqual(guard('/etc/passwd', 'write'), null);
    assert.notEqual(guard(`${root}-sibling/x.md`, 'write'), null, 'a prefix match is not containment');
  });

  it('denies symlinked directories and files that point outside', async () => {
    const { root, guard } = await layout();
    assert.notEqual(guard(path.join(root, 'linkdir', 'secret.md'), 'write'), null);
    assert.notEqual(guard(path.join(root, 'linkfile.md'), 'write'), null);
    assert.notEqual(
      guard(path.join(root, 'dangling.md'), 'write'),
      null,
      'writing through a dangling link would create a file outside',
    );
  });

  it('denies a not-yet-existing file in a symlinked dir', async () => {
    const { root, guard } = await layout();
    assert.notEqual(guard(path.join(root, 'linkdir', 'new', 'file.md'), 'write'), null);
  });

  it('follows `..` after a symlink the way the kernel does', async () => {
    const { root, outside, base } = await layout();
    // memory/linkdir/.. is base (the link target's parent), not memory.
    assert.equal(resolveReal(`${root}/linkdir/../outside/secret.md`), path.join(outside, 'secret.md'));
    assert.equal(resolveReal(`${root}/linkdir/..`), base);
    // ...so this path, lexically outside-looking, really lands inside the root.
    assert.equal(confineTo(root)(`${root}/linkdir/../memory/x.md`, 'write'), null);
  });

  it('leaves reads alone unless asked to confine them', async () => {
    const { root, outside } = await layout();
    assert.equal(confineTo(root)(path.join(outside, 'secret.md'), 'read'), null);
    assert.notEqual(confineTo(root, { reads: true })(path.join(outside, 'secret.md'), 'read'), null);
    assert.match(
      confineTo(root, { reads: true })(path.join(outside, 'secret.md'), 'read') ?? '',
      /Not allowed to read/,
    );
  });

  it('survives symlink loops', async () => {
    const { root, guard } = await layout();
    await fsp.symlink(path.join(root, 'loopB'), path.join(root, 'loopA'));
    await fsp.symlink(path.join(root, 'loopA'), path.join(root, 'loopB'));
    assert.equal(resolveReal(path.join(root, 'loopA', 'x')), null);
    assert.notEqual(guard(path.join(root, 'loopA', 'x'), 'write'), null);
  });

  it('stops the Write tool from leaving the folder', async () => {
    const { root, outside } = await layout();
    const ctx = makeCtx(root, { pathGuard: confineTo(root) });
    const out = await writeTool().run({ file_path: 'linkdir/evil.md', content: 'x' }, ctx);
    assert.equal(out.isError, true);
    await assert.rejects(fsp.stat(path.join(outside, 'evil.md')));
    const ok = await writeTool().run({ file_path: 'topic.md', content: 'x' }, ctx);
    assert.equal(ok.isError, false, ok.content);
  });
});
