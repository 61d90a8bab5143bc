// The hub's lifecycle around a real server: `${input:id}` answered before a start, a start refused and
// later allowed (refresh), a tool turned off, a restart asked for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { McpServerEntry, McpServerState } from '../../../src/core/mcp/types';
import { call, EVERYTHING, makeHub } from './mcpTestSupport';

function everything(name: string, env: Record<string, string> = {}): McpServerEntry {
  return {
    name,
    source: 'vscode',
    fingerprint: `fp-${name}`,
    transport: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env },
  };
}

describe('MCP hub lifecycle', () => {
  it('fills ${input:id} from the answers before starting, and says so when an input is not answered', async () => {
    const asked = {
      ...everything('asked', { API_KEY: 'key-${input:api-key}' }),
      inputs: [{ id: 'api-key', type: 'promptString' }],
    };
    const unanswered = {
      ...everything('unanswered', { API_KEY: '${input:api-key}' }),
      inputs: [{ id: 'api-key', type: 'promptString' }],
    };
    const t = makeHub([asked, unanswered], {
      resolveInputs: async (e) => (e.name === 'asked' ? { 'api-key': 'from-the-box' } : undefined),
    });
    try {
      t.hub.start();
      await t.hub.whenSettled();
      const env = await call(t.hub, 'mcp__asked__get-env');
      assert.match(env.content, /"API_KEY":\s*"key-from-the-box"/);
      const s = t.hub.status().find((x) => x.name === 'unanswered');
      assert.equal(s?.state, 'failed');
      assert.match(s?.failure?.message ?? '', /needs the input api-key, which was not answered/);
    } finally {
      await t.hub.close();
    }
  });

  it('starts a server once allowed, stops it when refused, re-reads turned-off tools, and restarts on request', async () => {
    let verdict: McpServerState | true = 'needsApproval';
    const off = new Set<string>();
    const t = makeHub([everything('ev')], {
      mayStart: () => verdict,
      isToolDisabled: (s, tool) => off.has(`${s}/${tool}`),
    });
    try {
      t.hub.start();
      await t.hub.whenSettled();
      assert.equal(t.hub.status()[0].state, 'needsApproval');
      verdict = true;
      t.hub.refresh();
      await t.hub.whenSettled();
      assert.equal(t.hub.status()[0].state, 'ready');
      assert.match((await call(t.hub, 'mcp__ev__echo', { message: 'on' })).content, /on/);
      off.add('ev/echo');
      t.hub.refresh();
      assert.equal(
        t.hub.tools().some((x) => x.name === 'mcp__ev__echo'),
        false,
      );
      assert.equal(t.hub.status()[0].tools.find((x) => x.rawName === 'echo')?.disabled, true);

      await t.hub.restart('ev');
      assert.equal(t.hub.status()[0].state, 'ready');
      verdict = 'disabled';
      t.hub.refresh();
      assert.equal(t.hub.status()[0].state, 'disabled');
      assert.deepEqual(t.hub.tools(), []);
    } finally {
      await t.hub.close();
    }
  });
});
