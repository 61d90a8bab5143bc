import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { call, entry, EVERYTHING, FILESYSTEM, freePort, makeHub, tempDir } from './mcpTestSupport';

/** Starts server-everything in an HTTP mode on a free loopback port; resolves once it listens. */
async function startEverything(mode: 'streamableHttp' | 'sse'): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'pipe',
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (/listening on port|running on port/i.test(seen)) resolve();
    };
    child.stderr?.on('data', onData);
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server-everything ${mode} exited with ${code}: ${seen}`)));
  });
  return { child, port };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

describe('MCP hub over the network transports', () => {
  for (const [mode, type, suffix] of [
    ['streamableHttp', 'http', '/mcp'],
    ['sse', 'sse', '/sse'],
  ] as const) {
    it(`calls server-everything over ${type === 'http' ? 'Streamable HTTP' : 'SSE'}`, async () => {
      const { child, port } = await startEverything(mode);
      const t = makeHub([
        entry('remote', { type, url: `http://127.0.0.1:${port}${suffix}`, headers: { 'X-Test': '1' } }),
      ]);
      try {
        t.hub.start();
        await t.hub.whenSettled();
        const [s] = t.hub.status();
        assert.equal(s.state, 'ready', JSON.stringify(s.failure));
        const r = await call(t.hub, 'mcp__remote__echo', { message: `over ${type}` });
        assert.equal(r.isError, false);
        assert.match(r.content, new RegExp(`over ${type}`));
        // The server goes away: the call says so, the server is failed, its tools stay offered.
        await stop(child);
        const lost = await call(t.hub, 'mcp__remote__echo', { message: 'anyone?' });
        assert.equal(lost.isError, true);
        assert.match(lost.content, /stopped during the call: lost the connection/);
        assert.equal(t.hub.status()[0].state, 'failed');
        assert.ok(t.hub.tools().some((x) => x.name === 'mcp__remote__echo'));
      } finally {
        await t.hub.close();
        await stop(child);
      }
    });
  }

  it('says why a remote server cannot be reached', async () => {
    const port = await freePort();
    const t = makeHub([entry('gone', { type: 'http', url: `http://127.0.0.1:${port}/mcp?token=s3cret`, headers: {} })]);
    try {
      t.hub.start();
      await t.hub.whenSettled();
      const [s] = t.hub.status();
      assert.equal(s.state, 'failed');
      assert.match(s.failure?.message ?? '', new RegExp(`^could not connect to http://127.0.0.1:${port}/mcp: `));
      assert.equal(s.failure?.message.includes('s3cret'), false);
    } finally {
      await t.hub.close();
    }
  });
});

describe('MCP hub against server-filesystem over stdio', () => {
  it('reads a file in the allowed directory', async () => {
    const dir = fs.realpathSync(tempDir('fs'));
    fs.writeFileSync(path.join(dir, 'note.txt'), 'the answer is 42\n');
    const t = makeHub([entry('files', { type: 'stdio', command: process.execPath, args: [FILESYSTEM, dir], env: {} })]);
    try {
      t.hub.start();
      await t.hub.whenSettled();
      assert.equal(t.hub.status()[0].state, 'ready', JSON.stringify(t.hub.status()[0].failure));
      const names = t.hub.tools().map((x) => x.name);
      const read = names.includes('mcp__files__read_text_file')
        ? 'mcp__files__read_text_file'
        : 'mcp__files__read_file';
      const r = await call(t.hub, read, { path: path.join(dir, 'note.txt') });
      assert.equal(r.isError, false, r.content);
      assert.match(r.content, /the answer is 42/);
    } finally {
      await t.hub.close();
    }
  });
});
