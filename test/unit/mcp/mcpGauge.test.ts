// What an MCP server's tools cost, as the gauge shows it in a live session: once server-everything is up,
// its tool definitions are a category of their own ("mcp tools"), the built-in tools and the prompt's
// parts keep their sizes, the API's count of the new prompt rescales them, and the parts still add up.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { gaugeState } from '../../../src/core/inspection/contextSnapshot';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { startTestServer } from '../../../src/testServer/anthropicTestServer';
import { entry, EVERYTHING, makeHub, tempDir, openHubSession } from './mcpTestSupport';

describe('the gauge of a session with MCP servers', () => {
  it('counts the servers\' tool definitions as "mcp tools" once they are offered', async () => {
    const root = fs.realpathSync(tempDir('gauge'));
    const cwd = path.join(root, 'ws');
    fs.mkdirSync(cwd, { recursive: true });
    fs.writeFileSync(path.join(cwd, 'CLAUDE.md'), 'Use tabs.\n'.repeat(40));
    const server = await startTestServer();
    const t = makeHub([
      entry('everything', { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: {} }),
    ]);
    const store = new SettingsStore({ 'memory.extraction.enabled': false, 'sessionNotes.enabled': false });
    try {
      const session = await openHubSession(t.hub, server.url, root, { settings: store });
      const categories = (): Map<string, number> =>
        new Map(
          gaugeState(session.compaction.gauge, session.agent, store.settings).breakdown.map((c) => [
            c.category,
            c.tokens,
          ]),
        );
      await t.hub.whenSettled();
      assert.ok(t.hub.tools().length > 3, 'the server is up');
      assert.ok(await session.promptCounted, 'the API counted the prompt with the MCP tools');
      const state = gaugeState(session.compaction.gauge, session.agent, store.settings);
      const by = categories();
      const mcp = by.get('mcp tools') ?? 0;
      assert.ok(mcp > 0, JSON.stringify(state.breakdown));
      assert.ok((by.get('tools') ?? 0) > 0, 'the built-in tools stay in their own category');
      assert.ok((by.get('instructions') ?? 0) > 0, 'the prompt keeps its parts when the tool list changes');
      assert.equal(
        state.breakdown.reduce((n, c) => n + c.tokens, 0),
        state.usedTokens,
        'the parts add up to the gauge',
      );
      // The test server's count of the same request (system prompt, every tool, one message).
      const counted = server.counts.at(-1);
      assert.ok(counted, 'count_tokens was asked');
      const offered = (counted.body.tools as Array<{ name: string }>).map((x) => x.name);
      assert.ok(offered.some((n) => n.startsWith('mcp__everything__')));

      // Turning the server off takes its category away again.
      await t.hub.close();
      session.compaction.gauge.setSystem(session.agent.systemPrompt, session.agent.offeredTools);
      assert.equal(categories().has('mcp tools'), false);
      session.dispose();
    } finally {
      await t.hub.close();
      await server.close();
    }
  });
});
