// The command line's next step (issue: "what a newcomer still trips on", item 5): `engram -p` in text mode
// says the session id the README's next command (--resume ID) needs; no API key points to the offline
// demo model; a connection error names the URL it tried; inspect says "1 entry"; gauge explains its
// per-call figures and groups the digits of its numbers. Its hints name the command the user ran: a clone
// has no `engram` on PATH, so there they say `node dist/cli.js` (issue 31).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sessionTranscriptPath } from '../../../src/core/conversation/projectKey';
import { autoMemoryDir } from '../../../src/core/memory/autoMemory/memoryPaths';
import { topicText, writeFile } from '../inspection/inspectorFixtures';
import { CC_FIXTURES } from '../conversation/testSupport';
import { invokedAs } from '../../../src/cli/cliText';
import { runEngram, runEngramInProcess, type CliRun } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs('each');

function where(): { cwd: string; dataDir: string } {
  const root = tempDir('engram-next-');
  const cwd = path.join(root, 'ws');
  fs.mkdirSync(cwd);
  return { cwd, dataDir: path.join(root, 'data') };
}

function engram(
  args: string[],
  at: { cwd: string; dataDir: string },
  env: Record<string, string> = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key' },
): Promise<CliRun> {
  return runEngramInProcess(args, { cwd: at.cwd, env: { ENGRAM_DATA_DIR: at.dataDir, ...env } });
}

/** A port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

describe("the command line's next step", () => {
  it('-p in text mode says the session id and how to continue it (stderr: stdout is the answer alone)', async () => {
    const at = where();
    server.enqueue({ content: [{ type: 'text', text: 'Noted.' }] });
    const first = await engram(['-p', 'remember that I prefer tabs'], at);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, 'Noted.\n');
    const m = /^engram: session (\S+); continue it with: engram -p "\.\.\." --resume \1$/m.exec(first.stderr);
    assert.ok(m, first.stderr);
    assert.ok(fs.existsSync(sessionTranscriptPath(at.dataDir, at.cwd, m[1])), 'the id names the transcript');
    server.enqueue({ content: [{ type: 'text', text: 'Tabs.' }] });
    const again = await engram(['-p', 'what do I prefer?', '--resume', m[1]], at);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, new RegExp(`session ${m[1]};`));
    server.enqueue({ content: [{ type: 'text', text: 'Hi.' }] });
    const json = await engram(['-p', 'hi', '--output-format', 'json'], at);
    assert.doesNotMatch(json.stderr, /continue it with/, 'JSON carries the id itself');
  });

  it('without an API key points to the offline demo model', async () => {
    const at = where();
    const run = await engram(['-p', 'hello'], at, {});
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no API key\. Set ANTHROPIC_API_KEY/);
    assert.match(run.stderr, /offline demo model: `node \S*testServer\.js` prints the URL it serves/);
    assert.match(
      run.stderr,
      /ANTHROPIC_BASE_URL=<that URL> ANTHROPIC_API_KEY=any engram -p "remember that I prefer tabs over spaces"/,
    );
  });

  it('a connection error names the URL it tried and why', async () => {
    const at = where();
    const port = await closedPort();
    const settings = path.join(at.cwd, 'settings.json');
    fs.writeFileSync(settings, JSON.stringify({ 'network.maxRetries': 0 }));
    const run = await engram(['-p', 'hello', '--settings', settings], at, {
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
      ANTHROPIC_API_KEY: 'k',
    });
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      new RegExp(
        `Could not reach http://127\\.0\\.0\\.1:${port}/v1/messages \\(connection refused: nothing listens there, ECONNREFUSED\\)`,
      ),
    );
  });

  it('inspect counts in words that agree with the number ("1 entry") and groups digits', async () => {
    const at = where();
    server.enqueue({ content: [{ type: 'text', text: 'Hi.' }] });
    assert.equal((await engram(['-p', 'hello'], at)).code, 0);
    const memory = await autoMemoryDir(at.dataDir, at.cwd);
    writeFile(path.join(memory, 'MEMORY.md'), '- [Prefers tabs](prefers_tabs.md) — tabs over spaces\n');
    writeFile(path.join(memory, 'prefers_tabs.md'), topicText('Prefers tabs', 'feedback'));
    const run = await engram(['inspect', '--root', at.dataDir], at);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Memory: .* \(1 entry, 1 of 1 index lines loaded\)/);
    assert.doesNotMatch(run.stdout, /\b1 (entries|lines|tokens)\b/);
  });

  it('gauge says what its per-call figures are and groups digits', async () => {
    const at = where();
    const run = await engram(['gauge', path.join(CC_FIXTURES, 'sm-compact.transcript.jsonl')], at);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /^54,731 of 200,000 tokens \(27\.37%\), [\d,]+ of them estimated \(after the last usage report\); 21 messages, 10 model calls\n/,
    );
    assert.match(run.stdout, /16,000 reserved for output/);
    assert.match(run.stdout, /\n {2}system +33,837\n/);
    assert.match(
      run.stdout,
      /Per model call, the input tokens the API reported, and what the engine would have estimated then\n\(the report before plus its own count of the messages since; the first call has no report before it\):\n/,
    );
    const calls = run.stdout
      .split('\n')
      .filter((l) => /reported/.test(l) && /estimated/.test(l) && !l.startsWith('Per'));
    assert.equal(calls.length, 10);
    assert.match(
      calls[0],
      /reported +[\d,]+ +estimated +[\d,]+ +\(messages only: the system prompt and tools are not in the transcript\)$/,
    );
    for (const line of calls.slice(1))
      assert.match(line, /reported +\d{1,3}(,\d{3})* +estimated +\d{1,3}(,\d{3})* +[+-]\d+\.\d %$/);
  });

  it('hints name the command the user ran: engram from PATH, else node and the script', () => {
    const PATH = ['/usr/bin', '/usr/local/bin'].join(path.delimiter);
    assert.equal(invokedAs('/usr/local/bin/engram', '/home/me/project', PATH), 'engram');
    assert.equal(invokedAs('/home/me/engram/dist/cli.js', '/home/me/engram', PATH), 'node dist/cli.js');
    assert.equal(invokedAs('/home/me/engram/dist/cli.js', '/home/me/engram/dist', PATH), 'node cli.js');
    assert.equal(invokedAs('/opt/engram/dist/cli.js', '/home/me/work/project', PATH), 'node /opt/engram/dist/cli.js');
    assert.equal(
      invokedAs('/home/me/engram/node_modules/.bin/engram', '/home/me/engram', PATH),
      'node node_modules/.bin/engram',
      'an engram that is not on PATH is run by its path',
    );
    assert.equal(invokedAs('/home/me/my clone/dist/cli.js', '/tmp', PATH), "node '/home/me/my clone/dist/cli.js'");
    assert.equal(invokedAs(undefined, '/tmp', PATH), 'engram');
  });

  it('a command line started as a file says to run that file again, to resume and without a key', async () => {
    const at = where();
    const home = tempDir('engram-next-home-');
    const env = { ENGRAM_DATA_DIR: at.dataDir, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key' };
    server.enqueue({ content: [{ type: 'text', text: 'Noted.' }] });
    const run = await runEngram(['-p', 'remember that I prefer tabs', '--cwd', at.cwd], { home, env });
    assert.equal(run.code, 0, run.stderr);
    // The tests start src/cli/main.ts from the repository's root, as a clone starts dist/cli.js.
    assert.match(run.stderr, /continue it with: node src\/cli\/main\.ts -p "\.\.\." --resume \S+$/m);
    assert.doesNotMatch(run.stderr, /continue it with: engram /);
    const keyless = await runEngram(['-p', 'hello', '--cwd', at.cwd], { home, env: { ENGRAM_DATA_DIR: at.dataDir } });
    assert.equal(keyless.code, 1, keyless.stderr);
    assert.match(keyless.stderr, /ANTHROPIC_API_KEY=any node src\/cli\/main\.ts -p "remember that I prefer tabs/);
  });
});
