// `engram -p` follows the permission rules of the user's and the project's files and of its flags, against
// the test server: the scripted model asks for tool calls and the results it gets back say what ran.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';
import { runEngramInProcess } from '../support/cliProcess';

const server = useTestServer();
const tempDir = useTempDirs('all');
let root: string;
let workspace: string;
let dataDir: string;

before(() => {
  root = tempDir('engram-cli-rules-');
  workspace = path.join(root, 'ws');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(path.join(workspace, '.engram'), { recursive: true });
  fs.mkdirSync(dataDir);
  fs.writeFileSync(path.join(workspace, 'secret.txt'), 'hunter2\n');
});

function engram(args: string[]) {
  return runEngramInProcess(['-p', 'go', '--cwd', workspace, '--no-memory', ...args], {
    cwd: root,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key', ENGRAM_DATA_DIR: dataDir },
  });
}

/** Scripts one reply with `calls` and a final answer; returns the tool results the model got, in order. */
async function runCalls(calls: Array<{ name: string; input: Record<string, unknown> }>, args: string[] = []) {
  server.enqueue(
    { content: calls.map((c) => ({ type: 'tool_use', ...c })) },
    { content: [{ type: 'text', text: 'Done.' }] },
  );
  const first = server.requests.length;
  const run = await engram(args);
  assert.equal(run.code, 0, run.stderr);
  const results = server.requests[first + 1].body.messages.at(-1)?.content as Array<{
    content: string;
    is_error?: boolean;
  }>;
  return { results, stderr: run.stderr };
}

const bash = (command: string) => ({ name: 'Bash', input: { command } });
const exists = (name: string) => fs.existsSync(path.join(workspace, name));

describe('engram -p and permission rules', () => {
  it('runs what the project allows, refuses what the user or the local file denies, and names the rule', async () => {
    fs.writeFileSync(
      path.join(workspace, '.engram', 'settings.json'),
      JSON.stringify({ permissions: { allow: ['Bash(touch:*)', 'Bash(git push:*)'] } }),
    );
    fs.writeFileSync(
      path.join(dataDir, 'settings.json'),
      JSON.stringify({ permissions: { deny: ['Bash(git push:*)'] } }),
    );
    fs.writeFileSync(
      path.join(workspace, '.engram', 'settings.local.json'),
      JSON.stringify({ permissions: { deny: ['Bash(touch denied*)'] } }),
    );
    const { results } = await runCalls([
      bash('touch made.txt'),
      bash('touch also.txt && git push origin main'),
      bash('touch denied.txt'),
      bash('mkdir nope'),
    ]);
    assert.notEqual(results[0].is_error, true, results[0].content);
    assert.ok(exists('made.txt'));
    assert.equal(results[1].is_error, true);
    assert.match(
      results[1].content,
      new RegExp(
        `Denied by the permission rule Bash\\(git push:\\*\\) \\(user settings, ${path.join(dataDir, 'settings.json')}\\)`,
      ),
    );
    assert.ok(!exists('also.txt'), 'no part of a denied compound command ran');
    assert.match(results[2].content, /Denied by the permission rule Bash\(touch denied\*\) \(local project settings/);
    assert.ok(!exists('denied.txt'));
    assert.match(results[3].content, /needs permission/);
    assert.ok(!exists('nope'));
  });

  it('--allowed-tools and --disallowed-tools take rules; a deny in the --settings file beats a listed tool', async () => {
    fs.rmSync(path.join(workspace, '.engram'), { recursive: true, force: true });
    fs.rmSync(path.join(dataDir, 'settings.json'), { force: true });
    const settings = path.join(root, 'settings.json');
    fs.writeFileSync(settings, JSON.stringify({ 'engram.permissions.deny': ['Read(secret.txt)'] }));
    const { results } = await runCalls(
      [
        bash('touch listed.txt'),
        bash('mkdir unlisted'),
        bash('touch xblocked.txt'),
        { name: 'Read', input: { file_path: 'secret.txt' } },
        { name: 'Grep', input: { pattern: 'hunter' } },
      ],
      ['--settings', settings, '--allowed-tools', 'Bash(touch:*), Read', '--disallowed-tools', 'Bash(touch x*)'],
    );
    assert.notEqual(results[0].is_error, true, results[0].content);
    assert.ok(exists('listed.txt'));
    assert.match(results[1].content, /not allowed in this headless run/);
    assert.match(results[2].content, /Denied by the permission rule Bash\(touch x\*\) \(command line\)/);
    assert.match(results[3].content, /Denied by the permission rule Read\(secret\.txt\) \(user settings\)/);
    assert.doesNotMatch(results[3].content, /hunter2/);
    assert.match(results[4].content, /not allowed in this headless run/);
  });

  it('says what is wrong with a rule file on stderr and goes on with the rest', async () => {
    fs.mkdirSync(path.join(workspace, '.engram'), { recursive: true });
    fs.writeFileSync(path.join(workspace, '.engram', 'settings.json'), '{"permissions": ');
    fs.writeFileSync(
      path.join(dataDir, 'settings.json'),
      JSON.stringify({ permissions: { allow: ['Bash(touch late.txt)'] } }),
    );
    const { results, stderr } = await runCalls([bash('touch late.txt')]);
    assert.match(stderr, /permission rules: .*\.engram\/settings\.json: is not valid JSON/);
    assert.notEqual(results[0].is_error, true, results[0].content);
    assert.ok(exists('late.txt'));
  });

  it('rejects a rule that does not parse and a tool that does not exist, and accepts MCP names', async () => {
    for (const list of ['Bash(npm test', 'Teleport(x)', 'Bash()']) {
      const run = await engram(['--allowed-tools', list]);
      assert.equal(run.code, 2, `${list}: ${run.stderr}`);
      assert.match(run.stderr, /--allowed-tools/);
    }
    const bad = await engram(['--disallowed-tools', 'Teleport']);
    assert.match(bad.stderr, /Unknown tool\(s\) in --disallowed-tools: Teleport/);
    const { results } = await runCalls(
      [bash('touch mcp.txt')],
      ['--allowed-tools', 'mcp__github,mcp__jira__create_issue'],
    );
    assert.match(
      results[0].content,
      /not allowed in this headless run \(allowed: mcp__github, mcp__jira__create_issue\)/,
    );
  });
});
