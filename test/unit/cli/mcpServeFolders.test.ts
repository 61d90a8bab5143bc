// `engram mcp` over the folders around the private memory: with team memory on, the team folder is
// searched, listed and read as the chat's recall reads it (and remember still writes privately); a project
// with no memory yet gets its first one and the client hears of later changes (resources list_changed);
// and the process writes nothing to stdout but protocol messages.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { autoMemoryDir } from '../../../src/core/memory/autoMemory/memoryPaths';
import { recallForPrompt } from '../../../src/core/memory/autoMemory/recall';
import { engramCommand, startEngramMcp, type EngramMcp } from '../support/engramMcp';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs('all');

async function emptyProject(): Promise<{ home: string; cwd: string; dataDir: string; memoryDir: string }> {
  const home = tempDir('engram-mcp-folders-');
  const cwd = path.join(home, 'proj');
  fs.mkdirSync(cwd);
  const dataDir = path.join(home, 'data');
  return { home, cwd, dataDir, memoryDir: await autoMemoryDir(dataDir, cwd) };
}

function topic(name: string, description: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\n${body}\n`;
}

describe('engram mcp with team memory on', () => {
  let mcp: EngramMcp;
  let memoryDir: string;
  before(async () => {
    const p = await emptyProject();
    memoryDir = p.memoryDir;
    fs.mkdirSync(path.join(memoryDir, 'team'), { recursive: true });
    fs.writeFileSync(path.join(memoryDir, 'MEMORY.md'), '- [Local cache](project_cache.md) — redis on port 6380\n');
    fs.writeFileSync(
      path.join(memoryDir, 'project_cache.md'),
      topic('Local cache', 'redis on port 6380', 'The local redis cache listens on port 6380.'),
    );
    fs.writeFileSync(
      path.join(memoryDir, 'team', 'MEMORY.md'),
      '- [Release train](release_train.md) — the release train leaves on Thursdays\n',
    );
    fs.writeFileSync(
      path.join(memoryDir, 'team', 'release_train.md'),
      topic('Release train', 'the release train leaves on Thursdays', 'The release train leaves on Thursdays at noon.'),
    );
    mcp = await startEngramMcp({ home: p.home, args: ['--cwd', p.cwd, '--data-dir', p.dataDir, '--team-memory'] });
  });
  after(() => mcp?.close());

  it('searches, lists and reads the team folder as the chat recall does', async () => {
    const query = 'When does the release train leave?';
    const expected = (await recallForPrompt(memoryDir, query, [], { team: true })).files.map((f) => f.file);
    assert.deepEqual(expected, ['team/release_train.md']);
    const found = await mcp.call('search_memory', { query });
    const matches = (found.structuredContent as { matches: Array<{ file: string; team: boolean }> }).matches;
    assert.deepEqual(
      matches.map((m) => [m.file, m.team]),
      [['team/release_train.md', true]],
    );
    const listed = (await mcp.call('list_memories')).structuredContent as {
      memories: Array<{ file: string; scope: string }>;
    };
    assert.deepEqual(
      listed.memories.map((m) => `${m.scope}:${m.file}`),
      ['private:project_cache.md', 'team:team/release_train.md'],
    );
    assert.match((await mcp.call('read_memory', { file: 'team/release_train.md' })).text, /Thursdays at noon/);
    const { resources } = await mcp.client.listResources();
    assert.ok(resources.some((r) => r.uri === 'engram-memory:///team/release_train.md'));
  });

  it('remembers into the private folder, never the shared one', async () => {
    const r = await mcp.call('remember', { text: 'The staging database is reset every Sunday night.' });
    const { file } = r.structuredContent as { file: string };
    assert.ok(!file.startsWith('team/'));
    assert.ok(fs.existsSync(path.join(memoryDir, file)));
    assert.ok(!fs.readFileSync(path.join(memoryDir, 'team', 'MEMORY.md'), 'utf8').includes(file));
  });
});

describe('engram mcp on a project with no memory yet', () => {
  let mcp: EngramMcp;
  let memoryDir: string;
  before(async () => {
    const p = await emptyProject();
    memoryDir = p.memoryDir;
    mcp = await startEngramMcp({ home: p.home, args: ['--cwd', p.cwd, '--data-dir', p.dataDir] });
  });
  after(() => mcp?.close());

  it('lists nothing, saves the first memory, then tells the client when the files change', async () => {
    assert.equal(fs.existsSync(memoryDir), false);
    assert.match((await mcp.call('list_memories')).text, /no memories yet/);
    assert.equal((await mcp.client.readResource({ uri: 'engram-memory:///MEMORY.md' })).contents.length, 1);
    const saved = await mcp.call('remember', { text: 'Deploys need the VPN.', title: 'VPN for deploys' });
    assert.equal(saved.isError, undefined, saved.text);
    const changed = new Promise<void>((resolve) =>
      mcp.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()),
    );
    fs.writeFileSync(path.join(memoryDir, 'project_added_by_hand.md'), topic('By hand', 'added', 'Added by hand.'));
    await changed;
    const { resources } = await mcp.client.listResources();
    const uris = resources.map((r) => r.uri).sort();
    assert.deepEqual(uris, [
      'engram-memory:///MEMORY.md',
      'engram-memory:///project_added_by_hand.md',
      'engram-memory:///project_vpn_for_deploys.md',
    ]);
  });
});

it('writes only JSON-RPC messages to stdout, its logs to stderr', async () => {
  const p = await emptyProject();
  const { command, args } = engramCommand(['mcp', '--cwd', p.cwd, '--data-dir', p.dataDir]);
  const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '', HOME: p.home, TMPDIR: p.home } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'read_memory', arguments: { file: '../x.md' } },
  });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  while (!/"id":3/.test(stdout)) await new Promise((r) => setTimeout(r, 20));
  child.stdin.end();
  assert.equal(await exit, 0, 'the server leaves when the client closes its stdin');
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 3);
  for (const line of lines) assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, '2.0', line);
  assert.match(stderr, /engram mcp: serving the memory in /);
});
