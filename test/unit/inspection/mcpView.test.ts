// Issue 30, the inspector's MCP servers section: each server with its source and the definition that wins,
// the state the hub reports (or the start rule's, with no session running it), its tools and the tokens
// they add to every request, and the command line as the person approves it, with secrets masked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildMcpView, mcpTarget } from '../../../src/core/inspection/mcpView';
import type { McpServerEntry, McpServerStatus } from '../../../src/core/mcp/types';

const entry = (name: string, source: McpServerEntry['source'], args: string[] = []): McpServerEntry => ({
  name,
  source,
  file: `/ws/${source === 'project' ? '.mcp.json' : 'mcp.json'}`,
  transport: { type: 'stdio', command: 'node', args, env: {} },
  fingerprint: `fp-${name}`,
});

const ready = (e: McpServerEntry): McpServerStatus => ({
  ...e,
  state: 'ready',
  tools: [
    { name: `mcp__${e.name}__echo`, rawName: 'echo', description: 'Echoes\n the   input', disabled: false, tokens: 40 },
    { name: `mcp__${e.name}__add`, rawName: 'add', description: 'x'.repeat(500), disabled: false, tokens: 60 },
    { name: `mcp__${e.name}__bad`, rawName: 'bad', description: '', disabled: false, tokens: 9, rejected: 'schema' },
  ],
  serverInfo: { name: 'everything', version: '1.0.0' },
});

describe('the MCP servers view', () => {
  it('shows a running server with its tools, and counts only the tools offered to the model', async () => {
    const everything = entry('everything', 'project', ['server.js', 'stdio']);
    const view = await buildMcpView({
      config: {
        servers: [everything],
        shadowed: [{ name: 'everything', used: 'project', ignored: ['user'] }],
        problems: [],
      },
      live: [ready(everything)],
      mayStart: () => true,
      disabledTools: ['everything/add'],
      trusted: true,
    });
    const [server] = view.servers;
    assert.equal(server.state, 'ready');
    assert.equal(server.target, 'node server.js stdio');
    assert.deepEqual(server.shadows, ['user']);
    assert.equal(server.fromRepository, true);
    assert.deepEqual(
      server.tools.map((t) => [t.rawName, t.disabled, t.rejected]),
      [
        ['echo', false, undefined],
        ['add', true, undefined],
        ['bad', false, 'schema'],
      ],
    );
    assert.equal(server.tools[0].description, 'Echoes the input');
    assert.ok(server.tools[1].description.length <= 240);
    // echo only: add is turned off, bad is left out of requests.
    assert.equal(server.tokens, 40);
    assert.equal(view.tokens, 40);
  });

  it('says what the start rule says for servers no session runs, those waiting for the person first', async () => {
    const approved = entry('mine', 'user');
    const waiting = entry('repo', 'project');
    const view = await buildMcpView({
      config: {
        servers: [approved, waiting],
        shadowed: [],
        problems: [{ source: 'project', file: '/ws/.mcp.json', server: 'broken', message: 'no command' }],
      },
      mayStart: (e) => (e.source === 'project' ? 'needsApproval' : true),
      disabledTools: [],
      trusted: true,
    });
    assert.deepEqual(
      view.servers.map((s) => [s.name, s.state, s.tokens]),
      [
        ['repo', 'needsApproval', 0],
        ['mine', 'notStarted', 0],
      ],
    );
    assert.deepEqual(view.problems, [
      { source: 'project', file: '/ws/.mcp.json', server: 'broken', message: 'no command' },
    ]);
  });

  it("says why a session's hub runs nothing: the start rule's reason, not just 'stopped'", async () => {
    const repo = entry('repo', 'project');
    const view = await buildMcpView({
      config: { servers: [repo], shadowed: [], problems: [] },
      live: [{ ...repo, state: 'stopped', tools: [] }],
      mayStart: () => 'untrusted',
      disabledTools: [],
      trusted: false,
    });
    assert.equal(view.servers[0].state, 'untrusted');
    assert.equal(view.trusted, false);
  });

  it('keeps a failure with its exit code and last stderr lines', async () => {
    const crashing = entry('crash', 'user');
    const view = await buildMcpView({
      config: { servers: [crashing], shadowed: [], problems: [] },
      live: [
        {
          ...crashing,
          state: 'failed',
          tools: [],
          failure: { message: 'exited at start', exitCode: 3, stderr: ['boom'], at: 5 },
          retryAt: 10,
        },
      ],
      mayStart: () => true,
      disabledTools: [],
      trusted: true,
    });
    assert.deepEqual(view.servers[0].failure, { message: 'exited at start', exitCode: 3, stderr: ['boom'], at: 5 });
    assert.equal(view.servers[0].retryAt, 10);
  });

  it('quotes arguments with spaces and masks secrets in the command line', async () => {
    const key = `sk-ant-api03-${'A'.repeat(93)}AA`;
    const target = await mcpTarget({
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'my server', `--key=${key}`],
      env: {},
    });
    assert.match(target, /^npx -y "my server" --key=\[REDACTED/);
    assert.ok(!target.includes(key));
    assert.equal(
      await mcpTarget({ type: 'http', url: 'https://example.com/mcp', headers: {} }),
      'https://example.com/mcp',
    );
  });
});
