// `engram -p` with MCP servers, through the real command line and the reference servers from npm: the
// model is offered their tools under Claude Code's names, a call runs only when --allowed-tools lets it,
// the result reaches the next request and the transcript, a repository's server never runs unapproved,
// a server that fails is said on stderr while the run goes on, and no server outlives the run
// (Ctrl-C: printMcpInterrupt.test.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { readMcpConfig, updateMcpChoices } from '../../../src/core/host/mcp';
import type { MessagesRequestBody } from '../../../src/testServer/anthropicTestServer';
import { runEngram, runEngramInProcess, type CliRun } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';
import { EVERYTHING, everythingConfig as everything, FILESYSTEM, mcpConfig, serversWith } from '../support/mcpCli';

const NOTES_MARKER = '<engram-session-notes-update>';

/** Scripted replies for the main conversation; the notes updater's fork (if it runs) gets a plain answer. */
const server = useTestServer({
  responder: (body: MessagesRequestBody) => ({
    content: [{ type: 'text', text: JSON.stringify(body.messages).includes(NOTES_MARKER) ? 'Notes.' : 'done' }],
  }),
});
const tempDir = useTempDirs('all');
let root: string;
let workspace: string;
let dataDir: string;

before(() => {
  root = tempDir('engram-cli-mcp-');
  workspace = path.join(root, 'ws');
  dataDir = path.join(root, 'data');
  fs.mkdirSync(workspace);
});

interface JsonRun {
  result: string;
  transcript: string;
  mcp_servers?: Array<{ name: string; state: string; tools: number; failure?: { message: string } }>;
}

function engram(args: string[], cwd = workspace): Promise<CliRun> {
  return runEngram([...args, '--cwd', cwd, '--output-format', 'json'], {
    home: root,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k', ENGRAM_DATA_DIR: dataDir },
  });
}

type ResultBlock = {
  type: string;
  tool_use_id?: string;
  content: string | Array<{ type: string; text?: string }>;
  is_error?: boolean;
};

function resultText(block: ResultBlock): string {
  return typeof block.content === 'string' ? block.content : block.content.map((c) => c.text ?? '').join('');
}

/** The tool results the model was sent in the request after the first one of this run. */
function resultsAfter(first: number): ResultBlock[] {
  const req = server.requests.slice(first).find((r) => JSON.stringify(r.body.messages).includes('tool_result'));
  assert.ok(req, 'a request carried the tool results');
  return (req.body.messages.at(-1)?.content ?? []) as ResultBlock[];
}

describe('engram -p --mcp-config with the reference servers', () => {
  it("offers server-everything's tools as mcp__everything__*, runs echo when allowed, and the result reaches the model and the transcript", async () => {
    const marker = `everything-${process.pid}-echo`;
    server.enqueue(
      { content: [{ type: 'tool_use', name: 'mcp__everything__echo', input: { message: 'hello from the model' } }] },
      { content: [{ type: 'text', text: 'It echoed.' }] },
    );
    const first = server.requests.length;
    const run = await engram([
      '-p',
      'echo something',
      '--mcp-config',
      everything(marker),
      '--allowed-tools',
      'mcp__everything',
    ]);
    assert.equal(run.code, 0, run.stderr);

    const offered = server.requests[first].body.tools as Array<{
      name: string;
      input_schema: { properties?: Record<string, unknown> };
    }>;
    const echo = offered.find((t) => t.name === 'mcp__everything__echo');
    assert.ok(echo, `offered: ${offered.map((t) => t.name).join(', ')}`);
    assert.ok(echo.input_schema.properties?.message, "the server's input schema is passed on");
    assert.ok(
      offered.some((t) => t.name === 'Read'),
      'the built-in tools are still there',
    );
    assert.ok(offered.filter((t) => t.name.startsWith('mcp__everything__')).length > 3, "all of the server's tools");

    const [result] = resultsAfter(first);
    assert.notEqual(result.is_error, true, resultText(result));
    assert.match(resultText(result), /Echo: hello from the model/);
    const out = JSON.parse(run.stdout) as JsonRun;
    assert.equal(out.result, 'It echoed.');
    assert.match(fs.readFileSync(out.transcript, 'utf8'), /Echo: hello from the model/);
    const status = out.mcp_servers?.find((s) => s.name === 'everything');
    assert.equal(status?.state, 'ready');
    assert.ok((status?.tools ?? 0) > 3);
    if (process.platform === 'linux') assert.deepEqual(serversWith(marker), [], 'the server ended with the run');
  });

  it('reads a file through server-filesystem', async () => {
    const files = path.join(root, 'files');
    fs.mkdirSync(files);
    fs.writeFileSync(path.join(files, 'note.txt'), 'the answer is 42\n');
    server.enqueue(
      {
        content: [{ type: 'tool_use', name: 'mcp__fs__read_text_file', input: { path: path.join(files, 'note.txt') } }],
      },
      { content: [{ type: 'text', text: '42' }] },
    );
    const first = server.requests.length;
    const config = mcpConfig('fs', process.execPath, [FILESYSTEM, files]);
    const run = await engram([
      '-p',
      'read it',
      '-v',
      '--mcp-config',
      config,
      '--allowed-tools',
      'mcp__fs__read_text_file',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /MCP server "fs" is ready: \d+ tools, about \d+ tokens of definitions in every request/);
    const [result] = resultsAfter(first);
    assert.notEqual(result.is_error, true, resultText(result));
    assert.match(resultText(result), /the answer is 42/);
  });

  it('takes --mcp-config as a file named from where the command runs', async () => {
    const folder = path.join(root, 'from-here');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'servers.json'), everything());
    server.enqueue({ content: [{ type: 'text', text: 'ok' }] });
    const run = await runEngramInProcess(
      ['-p', 'hi', '--cwd', workspace, '--output-format', 'json', '--mcp-config', 'servers.json'],
      { cwd: folder, env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'k', ENGRAM_DATA_DIR: dataDir } },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      (JSON.parse(run.stdout) as JsonRun).mcp_servers?.map((s) => [s.name, s.state]),
      [['everything', 'ready']],
    );
  });

  it('without --allowed-tools an MCP call is denied, and the model is told why', async () => {
    server.enqueue(
      { content: [{ type: 'tool_use', name: 'mcp__everything__echo', input: { message: 'not this' } }] },
      { content: [{ type: 'text', text: 'Could not.' }] },
    );
    const first = server.requests.length;
    const run = await engram(['-p', 'echo', '--mcp-config', everything()]);
    assert.equal(run.code, 0, run.stderr);
    const [result] = resultsAfter(first);
    assert.equal(result.is_error, true);
    assert.match(resultText(result), /mcp__everything__echo/);
    assert.match(resultText(result), /headless|allowed|permission/);
    assert.doesNotMatch(resultText(result), /Echo: not this/);
  });
});

describe('engram -p with an allow rule for an MCP tool', () => {
  it('runs the tool an allow rule in --settings names, without --allowed-tools', async () => {
    const settings = path.join(root, 'allow-echo.json');
    fs.writeFileSync(settings, JSON.stringify({ 'engram.permissions.allow': ['mcp__everything__echo'] }));
    server.enqueue(
      { content: [{ type: 'tool_use', name: 'mcp__everything__echo', input: { message: 'by rule' } }] },
      { content: [{ type: 'text', text: 'ok' }] },
    );
    const first = server.requests.length;
    const run = await engram(['-p', 'echo', '--settings', settings, '--mcp-config', everything()]);
    assert.equal(run.code, 0, run.stderr);
    const [result] = resultsAfter(first);
    assert.notEqual(result.is_error, true, resultText(result));
    assert.match(resultText(result), /Echo: by rule/);
  });
});

describe("a project's .mcp.json", () => {
  let project: string;
  let marker: string;

  before(() => {
    project = path.join(root, 'project');
    fs.mkdirSync(project);
    marker = path.join(root, 'project-server-ran');
    // Not an MCP server: it leaves a file behind to show it ran, then exits.
    const writeMarker = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran')`;
    fs.writeFileSync(
      path.join(project, '.mcp.json'),
      JSON.stringify({
        mcpServers: { builder: { command: process.execPath, args: ['-e', writeMarker] }, broken: { args: ['x'] } },
      }),
    );
  });

  it('is not run without approval, and stderr says how to approve it', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'ok' }] });
    const run = await engram(['-p', 'hi'], project);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(fs.existsSync(marker), false, 'the command did not run');
    assert.match(run.stderr, /MCP server "builder" .* was not started/);
    assert.match(run.stderr, /engram\.mcp\.approvedProjectServers/);
    assert.match(run.stderr, /MCP config: .*\.mcp\.json: server "broken": /, 'a bad entry is reported, the rest load');
    assert.match(run.stderr, /--mcp-config/);
    const out = JSON.parse(run.stdout) as JsonRun;
    assert.deepEqual(
      out.mcp_servers?.map((s) => [s.name, s.state]),
      [['builder', 'needsApproval']],
    );
  });

  it('runs when approved by name in --settings; a server that exits at once is reported and the run goes on', async () => {
    const settings = path.join(root, 'approve.json');
    fs.writeFileSync(settings, JSON.stringify({ 'engram.mcp.approvedProjectServers': ['builder'] }));
    server.enqueue({ content: [{ type: 'text', text: 'went on' }] });
    const run = await engram(['-p', 'hi', '--settings', settings], project);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(fs.readFileSync(marker, 'utf8'), 'ran', 'the approved command ran');
    assert.match(run.stderr, /MCP server "builder" failed/);
    const out = JSON.parse(run.stdout) as JsonRun;
    assert.equal(out.result, 'went on');
    assert.equal(out.mcp_servers?.[0]?.state, 'failed');
  });
});

describe('approval in the editor, and inputs only the editor can answer', () => {
  it('a project server approved in the editor does not start in engram -p: only the settings or --mcp-config approve there', async () => {
    const project = tempDir('engram-cli-mcp-approved-');
    const entry = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
    fs.writeFileSync(path.join(project, '.mcp.json'), JSON.stringify({ mcpServers: { tools: entry } }));
    const config = await readMcpConfig({ dataDir, projectRoot: project, env: {} });
    const approved = config.servers.find((s) => s.name === 'tools');
    assert.ok(approved);
    await updateMcpChoices(dataDir, project, (c) => ({ ...c, approved: { tools: approved.fingerprint } }));
    server.enqueue({ content: [{ type: 'text', text: 'a' }] });
    const run = await engram(['-p', 'hi'], project);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as JsonRun).mcp_servers?.[0]?.state, 'needsApproval');
    assert.match(run.stderr, /MCP server "tools" .* was not started/);

    const settings = path.join(project, 'approve.json');
    fs.writeFileSync(settings, JSON.stringify({ 'mcp.approvedProjectServers': ['tools'] }));
    server.enqueue({ content: [{ type: 'text', text: 'b' }] });
    const named = await engram(['-p', 'hi', '--settings', settings], project);
    assert.equal(named.code, 0, named.stderr);
    assert.equal((JSON.parse(named.stdout) as JsonRun).mcp_servers?.[0]?.state, 'ready');
  });

  it('a .vscode/mcp.json server that asks for ${input:...} is skipped with a message, even when approved', async () => {
    const project = tempDir('engram-cli-mcp-inputs-');
    fs.mkdirSync(path.join(project, '.vscode'));
    fs.writeFileSync(
      path.join(project, '.vscode', 'mcp.json'),
      JSON.stringify({
        inputs: [{ id: 'token', type: 'promptString', password: true }],
        servers: { gh: { command: process.execPath, args: [EVERYTHING], env: { TOKEN: '${input:token}' } } },
      }),
    );
    const settings = path.join(project, 'approve.json');
    fs.writeFileSync(settings, JSON.stringify({ 'mcp.approvedProjectServers': ['gh'] }));
    server.enqueue({ content: [{ type: 'text', text: 'ok' }] });
    const run = await engram(['-p', 'hi', '--settings', settings], project);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /MCP server "gh" .* was not started: it asks for \$\{input:token\}/);
    assert.deepEqual(
      (JSON.parse(run.stdout) as JsonRun).mcp_servers?.map((s) => [s.name, s.state]),
      [['gh', 'needsInput']],
    );
  });
});

describe('servers that fail', () => {
  it('a server that dies at start: name, why, exit code and its last stderr lines on stderr; the run goes on', async () => {
    const dying = `process.stderr.write('cannot open the database\\nsecond line\\n'); process.exit(3)`;
    server.enqueue({ content: [{ type: 'text', text: 'still here' }] });
    const first = server.requests.length;
    const run = await engram(['-p', 'hi', '--mcp-config', mcpConfig('db', process.execPath, ['-e', dying])]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /MCP server "db" failed/);
    assert.match(run.stderr, /exited with code 3/);
    assert.match(run.stderr, /cannot open the database/);
    assert.equal((JSON.parse(run.stdout) as JsonRun).result, 'still here');
    const names = (server.requests[first].body.tools as Array<{ name: string }>).map((t) => t.name);
    assert.equal(names.filter((n) => n.startsWith('mcp__')).length, 0);
  });

  it('a server that never answers holds the run no longer than engram.mcp.startupTimeoutSeconds', async () => {
    const settings = path.join(root, 'fast-timeout.json');
    fs.writeFileSync(settings, JSON.stringify({ 'engram.mcp.startupTimeoutSeconds': 1 }));
    const silent = mcpConfig('silent', process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    server.enqueue({ content: [{ type: 'text', text: 'on time' }] });
    const run = await engram(['-p', 'hi', '--settings', settings, '--mcp-config', silent]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /MCP server "silent" failed: did not answer initialize within 1 s/);
    assert.equal((JSON.parse(run.stdout) as JsonRun).result, 'on time');
  });

  it('an MCP name in --allowed-tools that no server offers is said (a typo would only deny)', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'ok' }] });
    const allowed = 'Read,mcp__everything__ehco,mcp__nosuch,mcp__everything__echo';
    const run = await engram(['-p', 'hi', '--mcp-config', everything(), '--allowed-tools', allowed]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /mcp__everything__ehco, but server "everything" has no such tool \(its tools: .*echo/);
    assert.match(run.stderr, /mcp__nosuch, but no MCP server "nosuch" is configured/);
    assert.doesNotMatch(run.stderr, /names mcp__everything__echo/);
  });

  it('a command that does not exist is said, and the run goes on', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'fine' }] });
    const config = mcpConfig('ghost', path.join(root, 'no-such-server'), []);
    const run = await engram(['-p', 'hi', '--mcp-config', config]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /MCP server "ghost" failed/);
  });

  it('a --mcp-config that is neither a file nor JSON is a usage error (exit 2) before any request', async () => {
    const before = server.requests.length;
    const run = await engram(['-p', 'hi', '--mcp-config', path.join(root, 'missing.json')]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /--mcp-config/);
    assert.equal(server.requests.length, before);
  });

  it("--strict-mcp-config leaves out the user's servers", async () => {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'mcp.json'), everything());
    try {
      server.enqueue({ content: [{ type: 'text', text: 'a' }] }, { content: [{ type: 'text', text: 'b' }] });
      const first = server.requests.length;
      const withUser = await engram(['-p', 'hi']);
      assert.equal(withUser.code, 0, withUser.stderr);
      const strict = await engram(['-p', 'hi', '--strict-mcp-config']);
      assert.equal(strict.code, 0, strict.stderr);
      const mcpTools = (i: number): number =>
        (server.requests[i].body.tools as Array<{ name: string }>).filter((t) => t.name.startsWith('mcp__')).length;
      const [a, b] = server.requests
        .map((r, i) => ({ r, i }))
        .slice(first)
        .filter(({ r }) => !JSON.stringify(r.body.messages).includes(NOTES_MARKER))
        .map(({ i }) => i);
      assert.ok(mcpTools(a) > 3, "the user's server started");
      assert.equal(mcpTools(b), 0, 'not with --strict-mcp-config');
    } finally {
      fs.rmSync(path.join(dataDir, 'mcp.json'));
    }
  });
});
