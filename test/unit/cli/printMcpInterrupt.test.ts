// Ctrl-C in `engram -p` with MCP servers: while the model answers and while a server is still starting,
// the run ends with exit 130 and takes its servers with it (Linux: live processes are read from /proc).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { everythingConfig, mcpConfig, serversWith, startEngram } from '../support/mcpCli';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs('all');
let root: string;
let workspace: string;

before(() => {
  root = tempDir('engram-cli-mcp-sigint-');
  workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
});

function engram(args: string[], dataDir: string) {
  return startEngram(['-p', 'hi', '--cwd', workspace, ...args], root, {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'k',
    ENGRAM_DATA_DIR: dataDir,
  });
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('Ctrl-C', { skip: process.platform !== 'linux' ? 'needs /proc' : false }, () => {
  it('during the model call ends the run and its servers', async () => {
    const marker = `everything-${process.pid}-sigint`;
    server.enqueue({ content: [{ type: 'text', text: 'never sent' }], hang: true });
    const first = server.requests.length;
    const run = engram(['--mcp-config', everythingConfig(marker)], path.join(root, 'data-model'));
    await until('the model request', () => server.requests.length > first);
    assert.ok(serversWith(marker).length > 0, 'the server runs during the turn');
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 130, run.stderr());
    assert.deepEqual(serversWith(marker), [], 'the server ended with the run');
  });

  it('while a server is still starting: no model call, and no wait for the startup timeout', async () => {
    const marker = `silent-${process.pid}-sigint`;
    // Never answers initialize; the default startup timeout (30 s) would hold the run that long.
    const silent = mcpConfig('silent', process.execPath, ['-e', 'setInterval(() => {}, 1000)', marker]);
    const first = server.requests.length;
    const dataDir = path.join(root, 'data-starting');
    const run = engram(['--mcp-config', silent], dataDir);
    // The prompt is in the history once the session is open: the run now waits for its servers.
    await until('the session to open', () => fs.existsSync(path.join(dataDir, 'history.jsonl')));
    assert.ok(serversWith(marker).length > 0, 'the server is starting');
    const sent = Date.now();
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 130, run.stderr());
    assert.ok(Date.now() - sent < 20_000, 'it did not wait for the server');
    assert.match(run.stderr(), /interrupted/);
    assert.equal(server.requests.length, first, 'no model request');
    assert.deepEqual(serversWith(marker), [], 'the server ended with the run');
  });
});
