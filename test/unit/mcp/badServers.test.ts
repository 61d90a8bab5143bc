import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { McpHubEvent, McpServerFailure } from '../../../src/core/mcp/types';
import { writeTrickyServer } from './badServers';
import { call, entry, isAlive, makeHub, nodeServer, script, tempDir, type TestHub } from './mcpTestSupport';

async function failureOf(t: TestHub): Promise<McpServerFailure> {
  t.hub.start();
  await t.hub.whenSettled();
  const [s] = t.hub.status();
  assert.equal(s.state, 'failed');
  assert.ok(s.failure);
  return s.failure;
}

describe('MCP servers that fail to start', () => {
  const dir = tempDir('bad');
  const hubs: TestHub[] = [];
  const hub = (...args: Parameters<typeof makeHub>): TestHub => {
    const t = makeHub(...args);
    hubs.push(t);
    return t;
  };
  after(async () => {
    await Promise.all(hubs.map((t) => t.hub.close()));
  });

  it('says a command is not executable', async () => {
    const file = script(dir, 'noexec.sh', '#!/bin/sh\necho hi\n');
    fs.chmodSync(file, 0o644);
    const t = hub([entry('noexec', { type: 'stdio', command: file, args: [], env: {} })]);
    const events: McpHubEvent[] = [];
    t.hub.onEvent((e) => events.push(e));
    const f = await failureOf(t);
    assert.match(f.message, /is not executable/);
    assert.ok(events.some((e) => e.type === 'serverFailed' && e.server === 'noexec'));
  });

  it('says a command was not found', async () => {
    const t = hub([entry('missing', { type: 'stdio', command: path.join(dir, 'nope'), args: [], env: {} })]);
    assert.match((await failureOf(t)).message, /was not found/);
  });

  it('gives the exit code and the last stderr lines of a server that exits at once, secrets redacted', async () => {
    const token = `ghp_${'a1B2'.repeat(9)}`;
    const file = script(
      dir,
      'exits.cjs',
      `console.error('first line');console.error('bad token ${token}');console.error('GITHUB_TOKEN is not set');process.exit(1);`,
    );
    const t = hub([nodeServer('exits', file)]);
    const events: McpHubEvent[] = [];
    t.hub.onEvent((e) => events.push(e));
    const f = await failureOf(t);
    assert.equal(f.message, 'exited with code 1 before answering initialize');
    assert.equal(f.exitCode, 1);
    assert.equal(f.stderr.length, 3);
    assert.equal(f.stderr[0], 'first line');
    assert.match(f.stderr[1], /^bad token \[REDACTED/);
    assert.equal(f.stderr[2], 'GITHUB_TOKEN is not set');
    const told = events.find((e) => e.type === 'serverFailed');
    assert.equal(JSON.stringify(told).includes(token), false);
    assert.ok(t.warnings.every((w) => !w.includes(token)));
  });

  it('says a server wrote something that is not JSON-RPC on stdout', async () => {
    const file = script(
      dir,
      'garbage.cjs',
      "console.log('Server starting on port 8080...');setInterval(() => {}, 1000);",
    );
    const f = await failureOf(hub([nodeServer('garbage', file)], { startupTimeoutMs: 1500 }));
    assert.match(f.message, /wrote something that is not JSON-RPC on stdout \("Server starting on port 8080\.\.\."\)/);
  });

  it('gives up on a server that never answers initialize, and ends it', async () => {
    const file = script(
      dir,
      'silent.cjs',
      "require('fs').writeFileSync(process.argv[2], String(process.pid));setInterval(() => {}, 1000);",
    );
    const pidFile = path.join(dir, 'silent.pid');
    const f = await failureOf(hub([nodeServer('silent', file, [pidFile])], { startupTimeoutMs: 1000 }));
    assert.equal(f.message, 'did not answer initialize within 1 s');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    for (let i = 0; i < 50 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(isAlive(pid), false, 'the silent child was ended');
  });
});

describe('MCP server with tricky tools', () => {
  let t: TestHub;
  let dir: string;
  before(async () => {
    dir = tempDir('tricky');
    t = makeHub([nodeServer('tricky', writeTrickyServer(dir))], { maxOutputTokens: 25_000 });
    t.hub.start();
    await t.hub.whenSettled();
    assert.equal(t.hub.status()[0].state, 'ready', JSON.stringify(t.hub.status()[0].failure));
  });
  after(async () => {
    await t.hub.close();
  });

  it('leaves out a tool whose schema the API rejects, with a message, and keeps the rest', () => {
    const names = t.hub.tools().map((x) => x.name);
    assert.ok(!names.includes('mcp__tricky__either'));
    const info = t.hub.status()[0].tools.find((x) => x.rawName === 'either');
    assert.match(info?.rejected ?? '', /"oneOf" at the top level/);
    assert.ok(t.warnings.some((w) => w.includes('"either" is left out')));
    // A schema without a type gets type object and is kept.
    const untyped = t.hub.tools().find((x) => x.name === 'mcp__tricky__untyped');
    assert.equal(untyped?.schema.input_schema.type, 'object');
  });

  it('sanitizes odd names, caps long ones distinctly, calls by the raw name and caps descriptions', async () => {
    const names = t.hub.tools().map((x) => x.name);
    assert.ok(names.includes('mcp__tricky__get_weather_'));
    const long = names.filter((n) => n.startsWith('mcp__tricky__xxx'));
    assert.equal(long.length, 2);
    assert.ok(long.every((n) => n.length === 64 && /^[a-zA-Z0-9_-]+$/.test(n)));
    assert.notEqual(long[0], long[1]);
    const r = await call(t.hub, 'mcp__tricky__get_weather_');
    assert.equal(r.content, 'ok get weather!');
    const d = t.hub.tools().find((x) => x.name === 'mcp__tricky__long')?.schema.description ?? '';
    assert.ok(d.length < 2200 && /description cut: 2952 more characters/.test(d), d.slice(-80));
  });

  it('follows notifications/tools/list_changed: the new tool joins and toolsChanged says so', async () => {
    const events: McpHubEvent[] = [];
    const off = t.hub.onEvent((e) => events.push(e));
    try {
      await call(t.hub, 'mcp__tricky__grow');
      for (let i = 0; i < 50 && !t.hub.tools().some((x) => x.name === 'mcp__tricky__extra'); i++)
        await new Promise((res) => setTimeout(res, 50));
      assert.ok(t.hub.tools().some((x) => x.name === 'mcp__tricky__extra'));
      assert.ok(events.some((e) => e.type === 'toolsChanged' && e.added.includes('mcp__tricky__extra')));
    } finally {
      off();
    }
  });

  it('cuts a 10 MB result with a note saying how much was left out', async () => {
    const r = await call(t.hub, 'mcp__tricky__big');
    assert.equal(r.isError, false);
    assert.ok(r.content.length < 120_000, `kept ${r.content.length} chars`);
    assert.match(
      r.content,
      /\[Output cut at about 25,000 tokens: [\d,]+ more characters \(about [\d,]+ tokens\) were left out/,
    );
  });

  it('cancels a call when the turn stops: the server hears notifications/cancelled', async () => {
    const controller = new AbortController();
    const pending = call(t.hub, 'mcp__tricky__slow', {}, controller.signal);
    setTimeout(() => controller.abort(), 200);
    const r = await pending;
    assert.equal(r.isError, true);
    const marker = path.join(dir, 'cancelled.txt');
    for (let i = 0; i < 50 && !fs.existsSync(marker); i++) await new Promise((res) => setTimeout(res, 50));
    assert.match(fs.readFileSync(marker, 'utf8'), /^cancelled/);
  });

  it('says so when a call times out', async () => {
    const short = makeHub([nodeServer('tricky', writeTrickyServer(tempDir('timeout')))], { callTimeoutMs: 300 });
    try {
      short.hub.start();
      await short.hub.whenSettled();
      const r = await call(short.hub, 'mcp__tricky__slow');
      assert.equal(r.isError, true);
      assert.match(r.content, /did not answer within 0.3 s; the call was cancelled/);
    } finally {
      await short.hub.close();
    }
  });

  it('reports a server killed mid-call, keeps its tools, and restarts it on use after the backoff', async () => {
    const before = t.hub.tools().map((x) => x.name);
    const pid = Number((await call(t.hub, 'mcp__tricky__pid')).content);
    const r = await call(t.hub, 'mcp__tricky__crash');
    assert.equal(r.isError, true);
    assert.match(r.content, /stopped during the call: exited with code 3/);
    const s = t.hub.status()[0];
    assert.equal(s.state, 'failed');
    assert.deepEqual(s.failure?.stderr, ['about to crash']);
    assert.deepEqual(
      t.hub.tools().map((x) => x.name),
      before,
      'tools stay offered',
    );
    const soon = await call(t.hub, 'mcp__tricky__pid');
    assert.match(soon.content, /will be started again when a tool of it is used in 1 s or later/);
    await new Promise((res) => setTimeout(res, 1100));
    const again = await call(t.hub, 'mcp__tricky__pid');
    assert.equal(again.isError, false, again.content);
    assert.notEqual(Number(again.content), pid);
    assert.equal(t.hub.status()[0].state, 'ready');
  });
});
