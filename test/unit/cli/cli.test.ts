// `engram -p` as a child process against the test server: output shapes, transcripts, resume, tools,
// exit codes. Usage errors are checked in-process (no model involved).
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runCli } from '../../../src/cli/dispatcher';
import { sessionTranscriptPath } from '../../../src/core/conversation/projectKey';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import type { ContentBlock, UserLine } from '../../../src/core/conversation/types';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';
import { runEngram, type CliRun } from '../support/cliProcess';

const server = useTestServer();
const tempDir = useTempDirs('all');
let root: string;
let workspace: string;
let dataDir: string;

before(() => {
  root = tempDir('engram-cli-');
  workspace = path.join(root, 'ws');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'the secret word is pineapple\n');
});

type Run = CliRun;

function engram(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runEngram(args, {
    home: root,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ENGRAM_DATA_DIR: dataDir, ...env },
  });
}

describe('engram -p', () => {
  let sessionId = '';
  let transcript = '';

  it('prints exactly {result, sessionId, turns, usage, transcript} with --output-format json', async () => {
    server.enqueue(
      { content: [{ type: 'tool_use', name: 'Read', input: { file_path: path.join(workspace, 'notes.txt') } }] },
      { content: [{ type: 'text', text: 'The word is pineapple.' }] },
    );
    const run = await engram(['-p', 'What is the secret word?', '--cwd', workspace, '--output-format', 'json']);
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), ['result', 'sessionId', 'turns', 'usage', 'transcript']);
    assert.equal(out.result, 'The word is pineapple.');
    assert.equal(out.turns, 2);
    const usage = out.usage as Record<string, number>;
    assert.deepEqual(Object.keys(usage), [
      'input_tokens',
      'output_tokens',
      'cache_creation_input_tokens',
      'cache_read_input_tokens',
    ]);
    assert.ok(usage.output_tokens > 0);
    sessionId = String(out.sessionId);
    transcript = String(out.transcript);
    assert.equal(transcript, sessionTranscriptPath(dataDir, workspace, sessionId));
    assert.ok(fs.existsSync(transcript));
    const history = fs
      .readFileSync(path.join(dataDir, 'history.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(history.at(-1), {
      display: 'What is the secret word?',
      pastedContents: {},
      timestamp: history.at(-1)?.timestamp,
      project: workspace,
      sessionId,
    });
  });

  it('--resume continues the same transcript, sends the earlier turns, and reads the cache they left', async () => {
    assert.ok(sessionId, 'needs the first test');
    const linesBefore = (await readTranscript(transcript)).lines.length;
    const lastUuid = (await readTranscript(transcript)).lines.filter((l) => 'uuid' in l).at(-1)?.uuid;
    server.enqueue({ content: [{ type: 'text', text: 'You asked about the secret word.' }] });
    const first = server.requests.length;
    const run = await engram([
      '-p',
      'What did I ask before?',
      '--cwd',
      workspace,
      '--resume',
      sessionId,
      '--output-format',
      'json',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { sessionId: string; transcript: string; usage: Record<string, number> };
    assert.equal(out.sessionId, sessionId);
    assert.equal(out.transcript, transcript);

    const sent = server.requests[first].body.messages;
    assert.equal(sent.length, 5, 'the first run (prompt, call, result, answer) and the new prompt');
    assert.equal(
      (sent[0].content as ContentBlock[])[0].type === 'text' && (sent[0].content as Array<{ text: string }>)[0].text,
      'What is the secret word?',
    );
    assert.ok(out.usage.cache_read_input_tokens > 0, 'the resumed prefix was byte-identical, so the cache was read');

    const after = (await readTranscript(transcript)).lines;
    assert.ok(after.length > linesBefore);
    const prompt = after.find(
      (l): l is UserLine => l.type === 'user' && (l as UserLine).message.content === 'What did I ask before?',
    );
    assert.equal(prompt?.parentUuid, lastUuid, 'the chain continues from the last line');
  });

  it('prints the answer as text by default, and runs only read-only tools without --allowed-tools', async () => {
    const target = path.join(workspace, 'made-by-bash.txt');
    server.enqueue(
      {
        content: [
          { type: 'tool_use', id: 'toolu_w', name: 'Bash', input: { command: `touch ${target}` } },
          { type: 'tool_use', id: 'toolu_r', name: 'Bash', input: { command: 'ls' } },
        ],
      },
      { content: [{ type: 'text', text: 'Could not create it.' }] },
    );
    const first = server.requests.length;
    const run = await engram(['-p', 'make a file', '--cwd', workspace]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Could not create it.\n');
    assert.equal(fs.existsSync(target), false);
    const results = server.requests[first + 1].body.messages.at(-1)?.content as Array<{
      tool_use_id: string;
      content: string;
      is_error?: boolean;
    }>;
    assert.equal(results[0].is_error, true);
    assert.match(results[0].content, /headless/);
    assert.notEqual(results[1].is_error, true, 'ls is read-only');
    assert.match(results[1].content, /notes\.txt/);
  });

  it('runs exactly the tools in --allowed-tools', async () => {
    const target = path.join(workspace, 'allowed.txt');
    server.enqueue(
      {
        content: [
          { type: 'tool_use', name: 'Bash', input: { command: `touch ${target}` } },
          { type: 'tool_use', name: 'Grep', input: { pattern: 'pineapple' } },
        ],
      },
      { content: [{ type: 'text', text: 'Made it.' }] },
    );
    const first = server.requests.length;
    const run = await engram(['-p', 'make a file', '--cwd', workspace, '--allowed-tools', 'Bash,Read']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(fs.existsSync(target));
    const results = server.requests[first + 1].body.messages.at(-1)?.content as Array<{
      content: string;
      is_error?: boolean;
    }>;
    assert.equal(results[1].is_error, true);
    assert.match(results[1].content, /not allowed/);
  });

  it('ends cleanly on Ctrl-C: exit 130, and a transcript that resumes into a valid request', async () => {
    server.enqueue({
      content: [{ type: 'text', text: 'A slow answer that keeps on streaming for quite a while, piece by piece.' }],
      chunkDelayMs: 300,
    });
    const first = server.requests.length;
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', '-p', 'slow please', '--cwd', workspace, '--output-format', 'json'],
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: root,
          TMPDIR: root,
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_API_KEY: 'k',
          ENGRAM_DATA_DIR: dataDir,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => void (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => void (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    while (server.requests.length === first) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 400));
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.match(stderr, /interrupted/);
    const out = JSON.parse(stdout) as { sessionId: string };

    server.enqueue({ content: [{ type: 'text', text: 'Resumed fine.' }] });
    const resumed = await engram(['-p', 'continue', '--cwd', workspace, '--resume', out.sessionId]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, 'Resumed fine.\n');
    assert.equal(server.requests.at(-1)?.status, 200);
  });

  it('exits 1 with a message in words when the API fails', async () => {
    server.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const run = await engram(['-p', 'hi', '--cwd', workspace]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /API key was rejected/);
  });

  it('exits 1 without an API key, before any request', async () => {
    const before = server.requests.length;
    const run = await engram(['-p', 'hi', '--cwd', workspace], { ANTHROPIC_API_KEY: '' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /ANTHROPIC_API_KEY/);
    assert.equal(server.requests.length, before);
  });
});

describe('usage errors (exit 2)', () => {
  async function inProcess(argv: string[]): Promise<Run> {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url, ENGRAM_DATA_DIR: dataDir },
      cwd: workspace,
      signal: new AbortController().signal,
    });
    return { code, stdout, stderr };
  }

  it('rejects missing prompts, bad flags and values, and unknown sessions and tools', async () => {
    const before = server.requests.length;
    for (const argv of [
      [],
      ['--output-format', 'json'],
      ['-p'],
      ['-p', 'x', '--output-format', 'yaml'],
      ['-p', 'x', '--bogus'],
      ['-p', 'x', '--allowed-tools', 'Read,Teleport'],
      ['-p', 'x', '--resume', '../../etc/passwd'],
      ['-p', 'x', '--resume', 'no-such-session'],
      ['-p', 'x', '--cwd', path.join(root, 'missing')],
      ['-p', 'x', '--add-dir', path.join(root, 'missing')],
      ['-p', 'x', 'stray'],
    ]) {
      const run = await inProcess(argv);
      assert.equal(run.code, 2, `${argv.join(' ')} -> ${run.stderr}`);
      assert.ok(run.stderr.length > 0);
    }
    assert.equal(server.requests.length, before, 'no model call for a usage error');
  });

  it('prints the version, which matches package.json', async () => {
    const run = await inProcess(['--version']);
    assert.equal(run.code, 0);
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string };
    assert.equal(run.stdout.trim(), pkg.version);
  });

  it('prints help with the tool rule and exit codes', async () => {
    const run = await inProcess(['--help']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /engram -p/);
    const print = await inProcess(['print', '--help']);
    assert.match(print.stdout, /--allowed-tools/);
    assert.match(print.stdout, /--add-dir DIR/);
    assert.match(print.stdout, /read-only tools/);
    assert.match(print.stdout, /Exit codes/);
  });
});

describe('engram with its output piped into a reader that leaves early', () => {
  it('exits quietly instead of printing an EPIPE stack trace', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--help'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.doesNotMatch(stderr, /EPIPE|Unhandled/);
    assert.equal(code, 0);
  });
});
