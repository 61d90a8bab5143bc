// The headless tool rule.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { headlessToolGate, unknownToolNames } from '../../../src/cli/toolPolicy';
import { createDefaultTools } from '../../../src/core/tools/defaultTools';
import type { Tool } from '../../../src/core/tools/tool';

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
