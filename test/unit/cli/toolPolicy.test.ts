// The headless tool rule.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { headlessToolGate, unknownToolNames } from '../../../src/cli/toolPolicy';
import { createDefaultTools } from '../../../src/core/tools/defaultTools';
import type { Tool } from '../../../src/core/tools/tool';
import { useTempDirs } from '../support/tempDirs';

const tools = createDefaultTools();
const byName = (n: string): Tool => tools.find((t) => t.name === n) as Tool;
const call = { toolUseId: 't', summary: '', signal: new AbortController().signal };

describe('headlessToolGate', () => {
  it('without a list: read-only tools and read-only Bash run, the rest is denied with a reason', async () => {
    const gate = headlessToolGate(undefined);
    assert.deepEqual(await gate(byName('Read'), { file_path: 'a' }, call), { allow: true });
    assert.deepEqual(await gate(byName('Bash'), { command: 'ls -la | head -5' }, call), { allow: true });
    const bash = await gate(byName('Bash'), { command: 'rm -rf build' }, call);
    assert.equal(bash.allow, false);
    assert.match(!bash.allow ? bash.reason : '', /headless/);
    assert.equal((await gate(byName('Edit'), {}, call)).allow, false);
  });

  it('with a list: exactly the listed tools, read-only ones included, names case-insensitive', async () => {
    const gate = headlessToolGate(['bash', 'Edit']);
    assert.equal((await gate(byName('Bash'), { command: 'rm x' }, call)).allow, true);
    assert.equal((await gate(byName('Edit'), {}, call)).allow, true);
    const read = await gate(byName('Read'), {}, call);
    assert.equal(read.allow, false);
    assert.match(!read.allow ? read.reason : '', /allowed: bash, Edit/);
  });

  it('names the unknown tools of a list', () => {
    assert.deepEqual(unknownToolNames(['Read', 'Teleport', 'grep'], tools), ['Teleport']);
  });
});

describe('headlessToolGate write scope (issue #13)', () => {
  const tempDir = useTempDirs();

  it('lets Write/Edit write only in the workspace, --add-dir folders and the memory folder, links resolved', async () => {
    const root = tempDir('engram-scope-');
    const cwd = path.join(root, 'ws');
    const extra = path.join(root, 'extra');
    const memoryDir = path.join(root, 'data', 'memory');
    for (const d of [cwd, extra, memoryDir, path.join(root, 'elsewhere')]) fs.mkdirSync(d, { recursive: true });
    fs.symlinkSync(path.join(root, 'elsewhere'), path.join(cwd, 'link'));
    const gate = headlessToolGate(['Write', 'Edit'], { cwd, addDirs: [extra], memoryDir });
    const verdict = async (tool: string, file: string): Promise<boolean> =>
      (await gate(byName(tool), { file_path: file }, call)).allow;
    assert.equal(await verdict('Write', 'a.txt'), true);
    assert.equal(await verdict('Edit', path.join(extra, 'b.txt')), true);
    assert.equal(await verdict('Write', path.join(memoryDir, 'user_x.md')), true);
    assert.equal(await verdict('Edit', path.join(memoryDir, 'MEMORY.md')), true);
    assert.equal(await verdict('Write', '../escape.txt'), false);
    assert.equal(await verdict('Write', path.join(root, 'abs.txt')), false);
    assert.equal(await verdict('Write', 'link/through.txt'), false, 'a symlink out of the workspace');
    assert.equal(await verdict('Write', `${extra}/../escape.txt`), false);
    assert.equal(
      await verdict('Write', path.join(memoryDir, 'script.sh')),
      false,
      'only Markdown in the memory folder',
    );
    const denied = await gate(byName('Write'), { file_path: '/etc/x' }, call);
    assert.match(!denied.allow ? denied.reason : '', /--add-dir/);
  });
});
