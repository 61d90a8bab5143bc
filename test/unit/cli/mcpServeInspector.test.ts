// `engram mcp` driven by a client nobody here wrote: the MCP Inspector's command line
// (@modelcontextprotocol/inspector-cli), which spawns the server itself. It lists the tools, searches,
// remembers (the file records the Inspector as its client) and reads a resource.
// The Inspector finds its own package.json by a path relative to its working folder, so it runs from its
// build folder.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { autoMemoryDir } from '../../../src/core/memory/autoMemory/memoryPaths';
import { parseTopicFile } from '../../../src/core/memory/autoMemory/topicFile';
import { EVAL_DIR } from '../../bench/recallEval';
import { engramCommand } from '../support/engramMcp';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs('all');
const INSPECTOR = path.resolve('node_modules/@modelcontextprotocol/inspector-cli/build/cli.js');

let home: string;
let cwd: string;
let dataDir: string;
let memoryDir: string;

before(async () => {
  home = tempDir('engram-inspector-');
  cwd = path.join(home, 'webapp');
  fs.mkdirSync(cwd);
  dataDir = path.join(home, 'data');
  memoryDir = await autoMemoryDir(dataDir, cwd);
  fs.cpSync(path.join(EVAL_DIR, 'webapp'), memoryDir, { recursive: true });
});

/** One Inspector call against `engram mcp`; its JSON answer. */
function inspect(args: string[]): Promise<{ code: number; json: unknown; stderr: string }> {
  const server = engramCommand(['mcp', '--cwd', cwd, '--data-dir', dataDir]);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [INSPECTOR, '--cli', server.command, ...server.args, ...args],
      { cwd: path.dirname(INSPECTOR), env: { PATH: process.env.PATH ?? '', HOME: home, TMPDIR: home } },
      (error, stdout, stderr) => {
        const start = stdout.indexOf('{');
        let json: unknown;
        try {
          json = start >= 0 ? JSON.parse(stdout.slice(start)) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, json, stderr });
      },
    );
  });
}

describe('engram mcp through the MCP Inspector CLI', () => {
  it('lists the tools', async () => {
    const r = await inspect(['--method', 'tools/list']);
    assert.equal(r.code, 0, r.stderr);
    const names = (r.json as { tools: Array<{ name: string }> }).tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['list_memories', 'read_memory', 'read_session_notes', 'remember', 'search_memory']);
  });

  it('searches, and remembers with the Inspector named as the client', async () => {
    const search = await inspect([
      '--method',
      'tools/call',
      '--tool-name',
      'search_memory',
      '--tool-arg',
      'query=How do I reset the database between my test suites?',
    ]);
    assert.equal(search.code, 0, search.stderr);
    const matches = (search.json as { structuredContent: { matches: Array<{ file: string }> } }).structuredContent
      .matches;
    assert.equal(matches[0]?.file, 'feedback_tests_real_db.md');

    const saved = await inspect([
      '--method',
      'tools/call',
      '--tool-name',
      'remember',
      '--tool-arg',
      'text=Releases are cut on Tuesdays by the on-call engineer.',
      'type=project',
    ]);
    assert.equal(saved.code, 0, saved.stderr);
    const { file } = (saved.json as { structuredContent: { file: string } }).structuredContent;
    const topic = parseTopicFile(fs.readFileSync(path.join(memoryDir, file)));
    assert.ok(!topic.binary);
    assert.equal(topic.data.originClient, 'inspector-cli');
    assert.equal(topic.data.originVia, 'mcp');
  });

  it('reads a topic file as a resource', async () => {
    const r = await inspect(['--method', 'resources/read', '--uri', 'engram-memory:///project_deploy.md']);
    assert.equal(r.code, 0, r.stderr);
    const contents = (r.json as { contents: Array<{ text: string }> }).contents;
    assert.match(contents[0].text, /Fly\.io/);
  });
});
