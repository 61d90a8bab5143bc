import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { McpHubEvent } from '../../../src/core/mcp/types';
import { call, entry, EVERYTHING, makeHub, type TestHub } from './mcpTestSupport';

describe('MCP hub against server-everything over stdio', () => {
  let t: TestHub;
  const events: McpHubEvent[] = [];
  before(async () => {
    t = makeHub([
      entry('everything', { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: {} }),
    ]);
    t.hub.onEvent((e) => events.push(e));
    t.hub.start();
    await t.hub.whenSettled();
  });
  after(async () => {
    await t.hub.close();
  });

  it('lists the tools under mcp__<server>__<tool> names, each with its server and raw name', () => {
    const [status] = t.hub.status();
    assert.equal(status.state, 'ready', JSON.stringify(status.failure));
    assert.equal(status.serverInfo?.name !== undefined, true);
    const names = t.hub.tools().map((x) => x.name);
    assert.ok(names.includes('mcp__everything__echo'), names.join(','));
    assert.ok(names.includes('mcp__everything__get-sum'));
    const echo = t.hub.tools().find((x) => x.name === 'mcp__everything__echo');
    // echo is annotated read-only: no checkpoint before it (issue 33), yet it still asks like any MCP call.
    assert.deepEqual(echo?.mcp, { server: 'everything', tool: 'echo', readOnlyHint: true });
    assert.equal(echo?.readOnly, false);
    assert.equal(echo?.schema.input_schema.type, 'object');
    assert.ok(status.tools.every((x) => x.tokens > 0 || x.rejected));
    assert.ok(t.hub.definitionTokens() > 0);
    const changed = events.find((e) => e.type === 'toolsChanged');
    assert.ok(changed && changed.type === 'toolsChanged' && changed.added.includes('mcp__everything__echo'));
  });

  it('echoes, adds and summarizes a call as server · tool with its arguments', async () => {
    const echo = await call(t.hub, 'mcp__everything__echo', { message: 'hello there' });
    assert.equal(echo.isError, false);
    assert.match(echo.content, /hello there/);
    const sum = await call(t.hub, 'mcp__everything__get-sum', { a: 2, b: 40 });
    assert.match(sum.content, /42/);
    const tool = t.hub.tools().find((x) => x.name === 'mcp__everything__get-sum');
    assert.equal(tool?.summarize({ a: 2, b: 40 }), 'everything · get-sum {"a":2,"b":40}');
  });

  it('returns the image as an image block, with the text form for the chat', async () => {
    const r = await call(t.hub, 'mcp__everything__get-tiny-image');
    assert.ok(r.blocks, 'blocks set');
    const image = r.blocks?.find((b) => b.type === 'image');
    assert.equal(image?.type === 'image' && image.source.media_type, 'image/png');
    assert.match(r.content, /\[image: image\/png/);
    assert.match(r.content, /MCP logo/);
  });

  it('returns structured content once, and resource links as lines', async () => {
    const s = await call(t.hub, 'mcp__everything__get-structured-content', { location: 'New York' });
    assert.equal(s.isError, false);
    assert.match(s.content, /temperature/);
    // The server sends the same JSON as text and as structuredContent: it appears once.
    assert.equal(s.content.split('temperature').length - 1, 1, s.content);
    const links = await call(t.hub, 'mcp__everything__get-resource-links', { count: 2 });
    assert.match(links.content, /Resource link: .+ <demo:\/\/resource\//);
  });

  it('maps a server error to an error result', async () => {
    const r = await call(t.hub, 'mcp__everything__get-sum', { a: 'not a number' });
    assert.equal(r.isError, true);
    assert.ok(r.content.length > 0);
  });

  it('cancels the long-running tool when the turn is stopped, promptly', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = call(
      t.hub,
      'mcp__everything__trigger-long-running-operation',
      { duration: 20, steps: 20 },
      controller.signal,
    );
    setTimeout(() => controller.abort(), 300);
    const r = await pending;
    assert.equal(r.isError, true);
    assert.match(r.content, /Cancelled/);
    assert.ok(Date.now() - started < 5000, 'ended promptly');
    // The connection is still usable after the cancel.
    const echo = await call(t.hub, 'mcp__everything__echo', { message: 'after' });
    assert.match(echo.content, /after/);
  });
});
