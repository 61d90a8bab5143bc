import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readMcpConfig } from '../../../src/core/mcp/mcpConfig';
import { parseJsonc } from '../../../src/core/mcp/jsonc';
import { tempDir } from './mcpTestSupport';

function write(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

function dirs(): { dataDir: string; projectRoot: string } {
  const root = tempDir('config');
  return { dataDir: path.join(root, 'data'), projectRoot: path.join(root, 'project') };
}

describe('readMcpConfig', () => {
  it('loads the good entries of a .mcp.json and names the bad one', async () => {
    const d = dirs();
    const file = write(
      path.join(d.projectRoot, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          good: { command: 'node', args: ['server.js'], env: { A: '1' } },
          remote: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } },
          broken: { args: ['no command'] },
          'bad name!': { command: 'node' },
        },
      }),
    );
    const c = await readMcpConfig({ ...d, env: {} });
    assert.deepEqual(
      c.servers.map((s) => [s.name, s.source, s.transport.type]),
      [
        ['good', 'project', 'stdio'],
        ['remote', 'project', 'http'],
      ],
    );
    assert.equal(c.servers[0].file, file);
    assert.equal(c.problems.length, 2);
    const broken = c.problems.find((p) => p.server === 'broken');
    assert.equal(broken?.file, file);
    assert.match(broken?.message ?? '', /"command"/);
    assert.match(c.problems.find((p) => p.server === 'bad name!')?.message ?? '', /letters, digits, "_" and "-"/);
  });

  it('expands ${VAR} and ${VAR:-default}, and leaves out a server whose variable is unset', async () => {
    const d = dirs();
    const dirsOf = d;
    write(
      path.join(d.projectRoot, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          a: { command: '${BIN:-node}', args: ['--token=${TOKEN}', '${MISSING_OK:-fallback}'], env: { K: '${TOKEN}' } },
          b: { type: 'sse', url: '${HOST:-http://localhost:1}/sse', headers: { X: 'v-${TOKEN}' } },
          c: { command: 'node', args: ['${NOT_SET}'] },
          d: { command: 'node', cwd: 'tools/${SUB:-srv}' },
        },
      }),
    );
    const c = await readMcpConfig({ ...d, env: { TOKEN: 'secret' } });
    const a = c.servers.find((s) => s.name === 'a')?.transport;
    assert.deepEqual(a, { type: 'stdio', command: 'node', args: ['--token=secret', 'fallback'], env: { K: 'secret' } });
    const b = c.servers.find((s) => s.name === 'b')?.transport;
    assert.deepEqual(b, { type: 'sse', url: 'http://localhost:1/sse', headers: { X: 'v-secret' } });
    assert.equal(
      c.servers.some((s) => s.name === 'c'),
      false,
    );
    const withCwd = c.servers.find((s) => s.name === 'd')?.transport;
    assert.equal(withCwd?.type === 'stdio' && withCwd.cwd, path.join(dirsOf.projectRoot, 'tools', 'srv'));
    assert.match(c.problems.find((p) => p.server === 'c')?.message ?? '', /\$\{NOT_SET\} is not set/);
  });

  it('keeps the fingerprint of the entry as written, so a secret in the environment is not part of it', async () => {
    const d = dirs();
    write(
      path.join(d.projectRoot, '.mcp.json'),
      JSON.stringify({ mcpServers: { a: { command: 'x', args: ['${T}'] } } }),
    );
    const one = await readMcpConfig({ ...d, env: { T: 'one' } });
    const two = await readMcpConfig({ ...d, env: { T: 'two' } });
    assert.equal(one.servers[0].fingerprint, two.servers[0].fingerprint);
    assert.match(one.servers[0].fingerprint, /^[0-9a-f]{64}$/);
    write(
      path.join(d.projectRoot, '.mcp.json'),
      JSON.stringify({ mcpServers: { a: { command: 'x', args: ['${T}', 'more'] } } }),
    );
    const changed = await readMcpConfig({ ...d, env: { T: 'one' } });
    assert.notEqual(changed.servers[0].fingerprint, one.servers[0].fingerprint);
  });

  it('merges by name with cli > project > vscode > setting > user, recording what is shadowed', async () => {
    const d = dirs();
    const srv = (tag: string) => ({ command: 'node', args: [tag] });
    write(path.join(d.dataDir, 'mcp.json'), JSON.stringify({ mcpServers: { shared: srv('user'), mine: srv('user') } }));
    write(path.join(d.projectRoot, '.mcp.json'), JSON.stringify({ mcpServers: { shared: srv('project') } }));
    write(
      path.join(d.projectRoot, '.vscode', 'mcp.json'),
      JSON.stringify({ servers: { shared: srv('vscode'), vs: srv('vscode') } }),
    );
    const cliFile = write(
      path.join(d.projectRoot, 'cli.json'),
      JSON.stringify({ mcpServers: { fromFile: srv('cli-file') } }),
    );
    const c = await readMcpConfig({
      ...d,
      env: {},
      setting: { mcpServers: { shared: srv('setting'), vs: srv('setting') } },
      cli: [JSON.stringify({ mcpServers: { shared: srv('cli') } }), 'cli.json'],
    });
    const used = Object.fromEntries(
      c.servers.map((s) => [s.name, s.transport.type === 'stdio' ? s.transport.args[0] : '']),
    );
    assert.deepEqual(used, { shared: 'cli', fromFile: 'cli-file', vs: 'vscode', mine: 'user' });
    assert.equal(c.servers.find((s) => s.name === 'fromFile')?.file, cliFile);
    assert.deepEqual(c.shadowed, [
      { name: 'shared', used: 'cli', ignored: ['project', 'vscode', 'setting', 'user'] },
      { name: 'vs', used: 'vscode', ignored: ['setting'] },
    ]);
    assert.deepEqual(c.problems, []);
  });

  it('reads the setting without the mcpServers wrapper too', async () => {
    const c = await readMcpConfig({
      ...dirs(),
      env: {},
      setting: { s: { type: 'http', url: 'http://127.0.0.1:9/mcp' } },
    });
    assert.deepEqual(
      c.servers.map((s) => [s.name, s.source]),
      [['s', 'setting']],
    );
  });

  it('reads .vscode/mcp.json with comments, trailing commas, inputs and ${workspaceFolder}', async () => {
    const d = dirs();
    const file = write(
      path.join(d.projectRoot, '.vscode', 'mcp.json'),
      `{
  // Servers for this workspace
  "inputs": [
    { "type": "promptString", "id": "api-key", "description": "API key", "password": true },
  ],
  "servers": {
    /* a local one */
    "local": {
      "type": "stdio",
      "command": "node",
      "args": ["\${workspaceFolder}/server.js", "// not a comment", "a,]b"],
      "env": { "KEY": "\${input:api-key}", "HOME_DIR": "\${env:HOME_FOR_TEST}" },
    },
    "web": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \${input:api-key}" } },
    "oops": { "command": "node", "env": { "K": "\${input:nope}" } },
  },
}`,
    );
    const c = await readMcpConfig({ ...d, env: { HOME_FOR_TEST: '/home/t' } });
    const local = c.servers.find((s) => s.name === 'local');
    assert.equal(local?.source, 'vscode');
    assert.equal(local?.file, file);
    assert.deepEqual(local?.transport, {
      type: 'stdio',
      command: 'node',
      args: [`${d.projectRoot}/server.js`, '// not a comment', 'a,]b'],
      env: { KEY: '${input:api-key}', HOME_DIR: '/home/t' },
    });
    assert.deepEqual(local?.inputs, [{ id: 'api-key', type: 'promptString', description: 'API key', password: true }]);
    const web = c.servers.find((s) => s.name === 'web');
    assert.equal(web?.transport.type, 'http');
    assert.equal(web?.inputs?.[0].id, 'api-key');
    assert.match(
      c.problems.find((p) => p.server === 'oops')?.message ?? '',
      /\$\{input:nope\} names no entry of "inputs"/,
    );
  });

  it('reports a corrupt file as one problem, a missing file as none, and a bad --mcp-config clearly', async () => {
    const d = dirs();
    const file = write(path.join(d.dataDir, 'mcp.json'), '{ "mcpServers": { "a": ');
    const c = await readMcpConfig({ ...d, env: {}, cli: ['{not json', 'missing.json'] });
    assert.deepEqual(c.servers, []);
    assert.equal(c.problems.length, 3);
    const user = c.problems.find((p) => p.source === 'user');
    assert.equal(user?.file, file);
    assert.match(user?.message ?? '', /is not valid JSON/);
    assert.ok(c.problems.some((p) => p.source === 'cli' && /--mcp-config JSON is not valid JSON/.test(p.message)));
    assert.ok(
      c.problems.some(
        (p) => p.source === 'cli' && p.file?.endsWith('missing.json') && /does not exist/.test(p.message),
      ),
    );
  });
});

describe('parseJsonc', () => {
  it('keeps comment markers and commas inside strings, and escaped quotes', () => {
    assert.deepEqual(parseJsonc('{"a": "x // y /* z */", "b": "q\\"//", /* c */ "c": [1, 2,], // d\n}'), {
      a: 'x // y /* z */',
      b: 'q"//',
      c: [1, 2],
    });
  });
});
