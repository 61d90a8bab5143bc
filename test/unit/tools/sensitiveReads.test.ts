// Issue #13, class 4: no tool reads a process's environment, command line or memory under /proc, where
// the parent's API key can be read even though Bash children run without it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { bashTool } from '../../../src/core/tools/bashTool';
import { grepTool } from '../../../src/core/tools/grepTool';
import { readTool } from '../../../src/core/tools/readTool';
import { useTempDirs } from '../support/tempDirs';
import { makeCtx } from './toolTestKit';

const skip = process.platform !== 'linux' ? 'needs /proc' : false;
const tempDir = useTempDirs();

describe('tools and /proc/<pid>/environ, cmdline, mem', { skip }, () => {
  it('Read refuses them, also through a symlink', async () => {
    const dir = tempDir('engram-proc-');
    fs.symlinkSync(`/proc/${process.pid}`, path.join(dir, 'me'));
    const ctx = makeCtx(dir);
    for (const file of [
      `/proc/${process.pid}/environ`,
      '/proc/self/environ',
      '/proc/self/cmdline',
      '/proc/self/mem',
      'me/environ',
      `/proc/self/task/${process.pid}/environ`,
    ]) {
      const r = await readTool().run({ file_path: file }, ctx);
      assert.equal(r.isError, true, `${file}: ${r.content}`);
      assert.match(r.content, /environment|command line|memory/, file);
    }
    assert.equal((await readTool().run({ file_path: '/proc/self/status' }, ctx)).isError, false);
  });

  it('Grep refuses them as a target, and folder searches under /proc', { timeout: 20_000 }, async () => {
    const dir = tempDir('engram-proc-');
    fs.symlinkSync(`/proc/${process.pid}`, path.join(dir, 'me'));
    const ctx = makeCtx(dir);
    const direct = await grepTool().run({ pattern: 'PATH', path: '/proc/self/environ', output_mode: 'content' }, ctx);
    assert.equal(direct.isError, true, direct.content);
    const viaLink = await grepTool().run({ pattern: 'PATH=', path: 'me/environ', output_mode: 'content' }, ctx);
    assert.equal(viaLink.isError, true, viaLink.content);
    // A folder search under /proc is refused outright: besides the environments, files like pagemap
    // are endless, so the search would never finish.
    const tree = await grepTool().run(
      { pattern: 'PATH=', path: `/proc/${process.pid}`, output_mode: 'files_with_matches' },
      ctx,
    );
    assert.equal(tree.isError, true, tree.content);
    assert.match(tree.content, /\/proc/);
  });

  it('Bash refuses commands that name them', async () => {
    const ctx = makeCtx(tempDir('engram-proc-'));
    for (const command of [
      'cat /proc/$PPID/environ',
      "tr '\\0' '\\n' < /proc/self/environ",
      'xxd /proc/1/cmdline',
      'strings /proc/$$/mem',
    ]) {
      const r = await bashTool().run({ command }, ctx);
      assert.equal(r.isError, true, `${command}: ${r.content}`);
      assert.match(r.content, /environment|command line|memory/, command);
    }
  });
});
