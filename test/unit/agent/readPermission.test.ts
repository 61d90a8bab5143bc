import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SessionPermissions } from '../../../src/core/agent/permissions';
import type { PermissionRequest } from '../../../src/core/ports';
import { readTool } from '../../../src/core/tools/readTool';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs();

function call(summary: string) {
  return { toolUseId: 'toolu_1', summary, signal: new AbortController().signal };
}

describe('SessionPermissions: reads outside the workspace', () => {
  it('asks before a Read outside the workspace, not inside it or in the free folders, and says why', async () => {
    const ws = tempDir('engram-ws-');
    const memory = tempDir('engram-mem-');
    const asked: PermissionRequest[] = [];
    const answers = ['deny', 'allowOnce'] as const;
    let next = 0;
    const permissions = new SessionPermissions({
      ask: async (r) => {
        asked.push(r);
        return answers[next++];
      },
    });
    permissions.confineReads({ cwd: ws, free: [memory] });
    const read = readTool() as never;
    assert.deepEqual(await permissions.gate(read, { file_path: 'README.md' }, call('Read README.md')), { allow: true });
    assert.deepEqual(
      await permissions.gate(read, { file_path: path.join(memory, 'MEMORY.md') }, call('Read MEMORY.md')),
      { allow: true },
    );
    assert.equal(asked.length, 0);
    const denied = await permissions.gate(read, { file_path: '/etc/hosts' }, call('Read /etc/hosts'));
    assert.equal(denied.allow, false);
    assert.equal(asked[0].summary, 'Read /etc/hosts\n(outside the workspace: /etc/hosts)');
    assert.deepEqual(await permissions.gate(read, { file_path: '/etc/hosts' }, call('Read /etc/hosts')), {
      allow: true,
    });
    assert.equal(asked.length, 2);
  });

  it('without a scope (engram -p keeps its own rule) every read-only call runs', async () => {
    const permissions = new SessionPermissions({
      ask: async () => {
        throw new Error('asked');
      },
    });
    assert.deepEqual(
      await permissions.gate(readTool() as never, { file_path: '/etc/hosts' }, call('Read /etc/hosts')),
      { allow: true },
    );
  });
});
