// An MCP server's tools in a whole session, through the test server over real HTTP: offered after the
// built-ins with their checked definitions, called through the permission gate (the card names server and
// tool), the image result sent as blocks, the hub's events re-emitted, the hub closed with the session.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { PermissionRequest } from '../../../src/core/ports';
import type { SessionEvent } from '../../../src/core/session/sessionEvents';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { startTestServer } from '../../../src/testServer/anthropicTestServer';
import { writeTrickyServer } from './badServers';
import { entry, EVERYTHING, makeHub, nodeServer, tempDir, openHubSession } from './mcpTestSupport';

describe('a session with an MCP hub', () => {
  it('offers the server tools after the built-ins, asks before a call and sends the image as blocks', async () => {
    const root = fs.realpathSync(tempDir('session'));
    const cwd = path.join(root, 'ws');
    fs.mkdirSync(cwd, { recursive: true });
    const server = await startTestServer();
    const t = makeHub([
      entry('everything', { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: {} }),
    ]);
    const asked: PermissionRequest[] = [];
    const events: SessionEvent[] = [];
    try {
      const session = await openHubSession(t.hub, server.url, root, {
        prompt: {
          ask: async (req) => {
            asked.push(req);
            return 'allowOnce';
          },
        },
      });
      session.on((e) => events.push(e));
      assert.equal(session.mcp, t.hub);
      await t.hub.whenSettled();
      assert.ok(events.some((e) => e.type === 'mcp' && e.event.type === 'toolsChanged'));
      server.enqueue(
        {
          content: [
            {
              type: 'tool_use',
              id: 'toolu_01MCPAAAAAAAAAAAAAAAAAAA',
              name: 'mcp__everything__get-tiny-image',
              input: {},
            },
          ],
        },
        { content: [{ type: 'text', text: 'A tiny logo.' }] },
      );
      const result = await session.runTurn('Show me the image.');
      assert.equal(result.reason, 'end_turn', JSON.stringify(result.error));
      const [first, second] = server.requests;
      const names = (first.body.tools as Array<{ name: string }>).map((x) => x.name);
      assert.ok(names.indexOf('Read') < names.indexOf('mcp__everything__echo'), names.join(','));
      // A forked agent (notes, extraction) offers the very same tools, so it shares the cached prefix.
      const forked = session.agent.forkContext().tools.map((x) => x.schema);
      const sent = (first.body.tools as unknown as Array<Record<string, unknown>>).map(
        ({ cache_control: _, ...t }) => t,
      );
      assert.deepEqual(forked, sent);
      assert.equal(asked.length, 1);
      assert.equal(asked[0].toolName, 'mcp__everything__get-tiny-image');
      assert.match(asked[0].summary, /^everything · get-tiny-image/);
      const messages = second.body.messages as Array<{ role: string; content: unknown }>;
      const answer = JSON.stringify(messages.at(-1)?.content);
      assert.match(answer, /"type":"image"/);
      assert.match(answer, /"media_type":"image\/png"/);
      await session.finish();
      assert.equal(t.hub.status()[0].state, 'stopped');
    } finally {
      await t.hub.close();
      await server.close();
    }
  });

  it('never turns a server tool the API would reject into a 400 for the whole turn', async () => {
    const root = fs.realpathSync(tempDir('reject'));
    const cwd = path.join(root, 'ws');
    fs.mkdirSync(cwd, { recursive: true });
    const server = await startTestServer();
    const t = makeHub([nodeServer('tricky', writeTrickyServer(root))]);
    try {
      const session = await openHubSession(t.hub, server.url, root, { entrypoint: 'cli' });
      await t.hub.whenSettled();
      server.enqueue({ content: [{ type: 'text', text: 'Fine.' }] });
      const r = await session.runTurn('Hello.');
      assert.equal(r.reason, 'end_turn', JSON.stringify(r.error));
      const tools = server.requests[0].body.tools as Array<{ name: string; input_schema: { type?: string } }>;
      assert.equal(
        tools.some((x) => x.name === 'mcp__tricky__either'),
        false,
      );
      assert.equal(tools.find((x) => x.name === 'mcp__tricky__untyped')?.input_schema.type, 'object');
      session.dispose();
    } finally {
      await t.hub.close();
      await server.close();
    }
  });

  it('starts no server in an untrusted workspace and offers no tools', async () => {
    const root = fs.realpathSync(tempDir('untrusted'));
    const cwd = path.join(root, 'ws');
    fs.mkdirSync(cwd, { recursive: true });
    const server = await startTestServer();
    const t = makeHub([
      entry('everything', { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: {} }),
    ]);
    try {
      const session = await openHubSession(t.hub, server.url, root, {
        trusted: false,
        settings: new SettingsStore({}),
      });
      assert.deepEqual(session.agent.offeredTools, []);
      assert.equal(t.hub.status()[0].state, 'stopped');
      session.dispose();
    } finally {
      await t.hub.close();
      await server.close();
    }
  });
});
