// Issue #20, part 2, end to end: `engram -p` against a server that takes every request and never
// answers. The run says each retry on stderr (without -v too), and ends with exit 1 and the stall
// message naming the URL within the stall limit x (retries + 1) plus the waits, instead of hanging.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runEngram } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs('all');
let root: string;
let workspace: string;
let settings: string;

before(() => {
  root = tempDir('engram-stall-');
  workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
  settings = path.join(root, 'settings.json');
  fs.writeFileSync(settings, JSON.stringify({ 'engram.network.stallSeconds': 0.5, 'engram.network.maxRetries': 1 }));
});

const hang = { content: [{ type: 'text' as const, text: 'never sent' }], hang: true };

describe('engram -p against a silent server', () => {
  it('retries once, says so, and fails naming the URL', async () => {
    server.enqueue(hang, hang);
    const started = Date.now();
    const run = await runEngram(['-p', 'hello?', '--cwd', workspace, '--settings', settings], {
      home: root,
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ENGRAM_DATA_DIR: path.join(root, 'data') },
    });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(run.code, 1, run.stderr);
    const url = `${server.url}/v1/messages`;
    // The retry, in one line, without -v.
    assert.match(
      run.stderr,
      new RegExp(`engram: No data from ${url} for 0\\.5 s: .*Retrying in \\d\\.\\d s \\(attempt 1/1\\)\\.\n`),
    );
    // The end: what happened, where, and how often it was tried.
    assert.match(run.stderr, new RegExp(`engram: No data from ${url} for 0\\.5 s: .*Gave up after 2 attempts`));
    assert.equal(server.requests.filter((r) => r.path === '/v1/messages').length, 2);
    // 2 x 0.5 s of silence and one wait of at most 1.25 s, plus starting the process (tsx) and the session.
    assert.ok(seconds < 20, `took ${seconds} s`);
  });
});
