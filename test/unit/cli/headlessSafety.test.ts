// Issue #13, classes 4 and 5, through the real CLI: the API key never reaches a tool result, the model
// or the transcript, and a headless run writes exactly where its flags say (the workspace, --add-dir
// folders, and the memory folder: its private files by default, and only when Write/Edit are listed
// when --allowed-tools is given).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { projectDir } from '../../../src/core/conversation/projectKey';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';
import { runEngram, type CliRun } from '../support/cliProcess';

const server = useTestServer();
const tempDir = useTempDirs('all');
/** Shaped like a real key, so the pattern rules see it, not only the exact-value check. */
const KEY = `sk-ant-api03-${'x7Q9'.repeat(23)}_-AA`;
let root: string;
let workspace: string;
let dataDir: string;
let memoryDir: string;

before(() => {
  root = tempDir('engram-cli-safety-');
  workspace = path.join(root, 'ws');
  dataDir = path.join(root, 'data');
  memoryDir = path.join(projectDir(dataDir, workspace), 'memory');
  fs.mkdirSync(workspace);
  fs.mkdirSync(path.join(root, 'extra1'));
  fs.mkdirSync(path.join(root, 'extra2'));
});

function engram(args: string[]): Promise<CliRun> {
  return runEngram([...args, '--cwd', workspace, '--output-format', 'json'], {
    home: root,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: KEY, ENGRAM_DATA_DIR: dataDir },
  });
}

type ResultBlock = { content: string; is_error?: boolean };

/** Runs one prompt whose model makes `calls` and then answers; returns the tool results it was sent. */
async function runCalls(
  calls: Array<{ name: string; input: Record<string, unknown> }>,
  flags: string[],
): Promise<{ results: ResultBlock[]; transcript: string }> {
  server.enqueue(
    { content: calls.map((c) => ({ type: 'tool_use', name: c.name, input: c.input })) },
    { content: [{ type: 'text', text: 'Done.' }] },
  );
  const first = server.requests.length;
  const run = await engram(['-p', 'go', ...flags]);
  assert.equal(run.code, 0, run.stderr);
  const results = server.requests[first + 1].body.messages.at(-1)?.content as ResultBlock[];
  const transcript = fs.readFileSync((JSON.parse(run.stdout) as { transcript: string }).transcript, 'utf8');
  return { results, transcript };
}

describe('the API key stays out of tool results (issue #13, 4)', () => {
  it("default mode: grep over every process's environ is refused and prints no key", {
    skip: process.platform !== 'linux' ? 'needs /proc' : false,
  }, async () => {
    const { results, transcript } = await runCalls(
      [{ name: 'Bash', input: { command: 'grep -a sk-ant /proc/*/environ' } }],
      [],
    );
    assert.equal(results[0].is_error, true, results[0].content);
    assert.equal(results[0].content.includes(KEY), false, 'the key is not in the tool result');
    assert.equal(transcript.includes(KEY), false, 'the key is not in the transcript');
  });

  it('a key inside a file is redacted before the model and the transcript see the result', async () => {
    fs.writeFileSync(path.join(workspace, 'leak.env'), `# settings\nANTHROPIC_API_KEY=${KEY}\nPORT=8080\n`);
    const { results, transcript } = await runCalls([{ name: 'Read', input: { file_path: 'leak.env' } }], []);
    assert.equal(results[0].content.includes(KEY), false, results[0].content);
    assert.match(results[0].content, /PORT=8080/, 'the rest of the file is still there');
    assert.match(results[0].content, /REDACTED/);
    assert.equal(transcript.includes(KEY), false, 'the key is not in the transcript');
    for (const r of server.requests)
      assert.equal(JSON.stringify(r.body).includes(KEY), false, 'no request carried the key');
  });
});

describe('headless writes follow the flags (issue #13, 5)', () => {
  const write = (file: string, content = 'x\n'): { name: string; input: Record<string, unknown> } => ({
    name: 'Write',
    input: { file_path: file, content },
  });

  it('--allowed-tools Read: a Write into the memory folder does not run', async () => {
    const { results } = await runCalls(
      [write(path.join(memoryDir, 'user_role.md'), '---\nname: role\ndescription: d\ntype: user\n---\nx\n')],
      ['--allowed-tools', 'Read'],
    );
    assert.equal(results[0].is_error, true);
    assert.equal(fs.existsSync(path.join(memoryDir, 'user_role.md')), false);
  });

  it('without --allowed-tools: only a private memory file may be written (so "remember ..." works), nothing else', async () => {
    const { results } = await runCalls(
      [
        write(path.join(memoryDir, 'user_quiet.md'), '---\nname: quiet\ndescription: d\ntype: user\n---\nx\n'),
        write('inside.txt'),
        write(path.join(memoryDir, 'team', 'project_x.md')),
        write(path.join(memoryDir, 'run.sh')),
      ],
      [],
    );
    assert.deepEqual(
      results.map((r) => r.is_error === true),
      [false, true, true, true],
      results.map((r) => r.content).join('\n'),
    );
    assert.ok(fs.existsSync(path.join(memoryDir, 'user_quiet.md')));
    assert.equal(fs.existsSync(path.join(workspace, 'inside.txt')), false);
    assert.equal(fs.existsSync(path.join(memoryDir, 'team', 'project_x.md')), false);
  });

  it('--allowed-tools Write: writes stay in the workspace unless --add-dir names another folder', async () => {
    const outsideAbs = path.join(root, 'abs-escape.txt');
    const { results } = await runCalls(
      [write('inside.txt'), write('../escape.txt'), write(outsideAbs), write(path.join(root, 'extra1', 'a.txt'))],
      ['--allowed-tools', 'Write'],
    );
    assert.notEqual(results[0].is_error, true, results[0].content);
    assert.ok(fs.existsSync(path.join(workspace, 'inside.txt')));
    for (const r of results.slice(1)) {
      assert.equal(r.is_error, true);
      assert.match(r.content, /--add-dir/);
    }
    assert.equal(fs.existsSync(path.join(root, 'escape.txt')), false);
    assert.equal(fs.existsSync(outsideAbs), false);
    assert.equal(fs.existsSync(path.join(root, 'extra1', 'a.txt')), false);
  });

  it('--add-dir (repeated or a comma list) opens those folders, and Write in the list opens the memory folder', async () => {
    const memoryFile = path.join(memoryDir, 'user_lang.md');
    const { results } = await runCalls(
      [
        write(path.join(root, 'extra1', 'a.txt')),
        write(path.join(root, 'extra2', 'b.txt')),
        write('../escape2.txt'),
        write(memoryFile, '---\nname: lang\ndescription: d\ntype: user\n---\nx\n'),
      ],
      [
        '--allowed-tools',
        'Write,Edit',
        '--add-dir',
        path.join(root, 'extra1'),
        '--add-dir',
        `${path.join(root, 'extra2')},${path.join(root, 'extra1')}`,
      ],
    );
    assert.deepEqual(
      results.map((r) => r.is_error === true),
      [false, false, true, false],
      results.map((r) => r.content).join('\n'),
    );
    assert.ok(fs.existsSync(path.join(root, 'extra1', 'a.txt')));
    assert.ok(fs.existsSync(path.join(root, 'extra2', 'b.txt')));
    assert.equal(fs.existsSync(path.join(root, 'escape2.txt')), false);
    assert.ok(fs.existsSync(memoryFile), 'memory writes run when Write is listed');
  });
});
