import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { MessagesRequestBody, ScriptedReply } from '../../src/testServer/anthropicTestServer';
import type { McpApprovalQuestion } from '../../src/vscode/mcp/mcpPrompts';
import {
  answerBackground,
  chatInBothThemes,
  engram,
  freshChat,
  inspectorInBothThemes,
  openInspector,
  refreshUntil,
  sendFromUi,
  useSettings,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// Issue 30, MCP in the Chat view: a workspace whose .mcp.json defines the reference server
// (@modelcontextprotocol/server-everything over stdio) and a second entry whose command would write a
// marker file. Nothing starts before the person approves it: while the approval question waits, the chat
// answers, the marker file is not written and the inspector says "needs approval". The reference server
// approved, its tools join (the chat says so), the scripted model calls mcp__everything__echo, the
// permission card names server and tool with the arguments, and the result shows in the chat; the
// inspector lists the server with its tools and their tokens. Photographed in a light and a dark theme,
// and in Chinese. In the runner's [untrusted] phase no server of the project starts, and nobody is asked.

const ECHO = 'mcp__everything__echo';
const MESSAGE = 'hello from the host test';

const node = () => process.env.ENGRAM_TEST_NODE ?? 'node';
const everythingJs = () =>
  path.join(
    process.env.ENGRAM_REPO_ROOT!,
    'node_modules',
    '@modelcontextprotocol',
    'server-everything',
    'dist',
    'index.js',
  );
const workspaceFile = (name: string) => path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, name);
const marker = () => path.join(process.env.ENGRAM_DATA_DIR!, `mcp-marker-${path.basename(workspaceFile(''))}.txt`);

/** The project's .mcp.json: the reference server, and one whose command writes the marker file. */
function writeMcpJson(withMarker: boolean): void {
  const servers: Record<string, unknown> = { everything: { command: node(), args: [everythingJs(), 'stdio'] } };
  if (withMarker)
    servers.marker = {
      command: node(),
      args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker())}, 'ran')`],
    };
  fs.writeFileSync(workspaceFile('.mcp.json'), `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`);
}

const toolNames = (body: MessagesRequestBody) => (body.tools ?? []).map((t) => t.name);
const hasToolResult = (body: MessagesRequestBody) =>
  body.messages.some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'));
const text = (t: string): ScriptedReply => ({ content: [{ type: 'text', text: t }] });

suite('MCP servers in the Chat view and the inspector', () => {
  const testServer = useTestServer();
  useSettings([
    ['engram.memory', 'extraction.enabled', false],
    ['engram.sessionNotes', 'enabled', false],
    // A rule of the person's, for the inspector's rules list.
    ['engram.permissions', 'deny', ['Bash(git push:*)']],
  ]);
  suiteTeardown(async () => {
    (await engram()).chat().newChat();
    fs.rmSync(workspaceFile('.mcp.json'), { force: true });
    fs.rmSync(marker(), { force: true });
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
  });

  test('[ui] a project server starts only once approved, and its tool is called through the permission card', async function () {
    this.timeout(240_000);
    writeMcpJson(true);
    fs.rmSync(marker(), { force: true });
    const api = await freshChat();
    // The approval question of `everything` is answered when the test says so; `marker` is never allowed.
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const asked: McpApprovalQuestion[] = [];
    const restore = api.replaceMcpPromptsForTests({
      approve: async (q) => {
        asked.push(q);
        if (q.name !== 'everything') return false;
        await released;
        return true;
      },
      input: async () => undefined,
    });
    try {
      const server = testServer();
      server.setResponder((body) => {
        const background = answerBackground(body);
        if (background) return background;
        if (!toolNames(body).includes(ECHO)) return text('No MCP tools yet.');
        if (!hasToolResult(body)) return { content: [{ type: 'tool_use', name: ECHO, input: { message: MESSAGE } }] };
        return text('The everything server echoed it back.');
      });

      // The first message opens the session: the approval question waits, the chat does not.
      await sendFromUi('Hello');
      await ui.waitForText('chat', '.item-assistant', 'No MCP tools yet.', 60_000);
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);
      await waitUntil('the approval question', () => asked.some((q) => q.name === 'everything'));
      const question = asked.find((q) => q.name === 'everything')!;
      assert.equal(question.file, workspaceFile('.mcp.json'));
      assert.match(question.target, /server-everything[\\/]dist[\\/]index\.js stdio$/);
      await openInspector(api);
      await vscode.commands.executeCommand('engram.manageMcpServers');
      const waiting = await refreshUntil(api, '#mcp-section', 'needs approval');
      assert.match(waiting, /everything[\s\S]*needs approval/);
      assert.match(waiting, /marker[\s\S]*needs approval/);
      assert.ok(!fs.existsSync(marker()), 'the marker server did not run before approval');

      // Approved: the reference server starts and its tools join; the marker server stays off.
      release();
      await ui.waitForText('chat', '.item-notice', 'from everything joined', 60_000);
      assert.ok(
        asked.some((q) => q.name === 'marker'),
        'the marker server was asked about too',
      );
      // Said once: the session's own wording of the same event is left out of the chat.
      assert.equal(await ui.count('chat', '.item-notice:has-text("MCP tools changed")'), 0);
      const hub = api.chat().inspectorContext().mcpHub!;
      const states = Object.fromEntries(hub.status().map((s) => [s.name, s.state]));
      assert.deepEqual(states, { everything: 'ready', marker: 'needsApproval' });
      assert.ok(!fs.existsSync(marker()), 'the marker server never ran');

      // The model calls the echo tool: the card names server and tool and shows the arguments.
      await vscode.commands.executeCommand('engram.focusChat');
      await sendFromUi('Echo something through MCP');
      const card = await ui.waitForText('chat', '.item-permission', MESSAGE, 60_000);
      assert.match(card, /everything/);
      assert.match(card, /echo/);
      await chatInBothThemes('mcp-permission-card');
      await ui.click('chat', '.item-permission [id^="allow-once-"]', 30_000);
      await ui.waitForText('chat', '.item-tool', `Echo: ${MESSAGE}`, 60_000);
      await ui.waitForText('chat', '.item-assistant', 'echoed it back', 60_000);
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);
      const last = server.requests[server.requests.length - 1].body;
      assert.ok(toolNames(last).includes(ECHO), 'the request offered the MCP tool');
      // The gauge counts the MCP tools' definitions as their own category.
      const mcpPart = api
        .chat()
        .gauge()
        .breakdown.find((b) => b.category === 'mcp tools');
      assert.ok(mcpPart && mcpPart.tokens > 0, `the gauge's MCP category: ${JSON.stringify(mcpPart)}`);
      // `/context` in the chat lists the same category, apart from Engram's own tool definitions.
      await sendFromUi('/context');
      const context = await ui.waitForText('chat', '.item-context', 'MCP tools', 30_000);
      assert.match(context, /Tool definitions[\s\S]*MCP tools/);
      await ui.evaluate('chat', "document.querySelector('.item-context').scrollIntoView({ block: 'start' })");
      await chatInBothThemes('mcp-context');

      // The inspector: the server ready, its tools with their tokens, the total per request.
      const listed = await refreshUntil(api, '#mcp-section', 'ready');
      assert.match(listed, /everything[\s\S]*ready[\s\S]*tools · [\d,]+ tokens per request/);
      assert.match(await ui.text('inspector', '#mcp-section [data-tool="echo"]'), /echo\s*[\d,]+ tokens/);
      assert.match(
        await ui.text('inspector', '#mcp-total'),
        /their tools add [\d,]+ tokens to every request|its tools add/,
      );
      assert.match(await ui.text('inspector', '#rules-section'), /deny\s*Bash\(git push:\*\)\s*your settings/);
      await inspectorInBothThemes('mcp-servers', 'mcp-section');

      // A tool turned off in the inspector leaves the next request.
      await ui.click('inspector', '#mcp-section [data-tool="echo"] .light-button');
      await waitUntil('echo to be off', () => !hub.tools().some((t) => t.name === ECHO));
      await refreshUntil(api, '#mcp-section [data-tool="echo"]', 'off');
      await ui.click('inspector', '#mcp-section [data-tool="echo"] .light-button');
      await waitUntil('echo to be on again', () => hub.tools().some((t) => t.name === ECHO));
      api.inspector()?.panel.dispose();
    } finally {
      release();
      restore();
    }
  });

  test('[ui] Always allow on the card saves the rule in .engram/settings.local.json, and the next call runs without asking', async function () {
    this.timeout(120_000);
    const api = await engram();
    const hub = api.chat().inspectorContext().mcpHub;
    assert.ok(
      hub?.tools().some((t) => t.name === ECHO),
      'the session of the test before offers the echo tool',
    );
    const local = workspaceFile(path.join('.engram', 'settings.local.json'));
    fs.rmSync(workspaceFile('.engram'), { recursive: true, force: true });
    testServer().setResponder((body) => {
      const background = answerBackground(body);
      if (background) return background;
      const last = body.messages[body.messages.length - 1];
      if (Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result')) return text('Echoed.');
      const word = /Echo (first|second)/.exec(JSON.stringify(last.content))?.[1] ?? 'other';
      return { content: [{ type: 'tool_use', name: ECHO, input: { message: `always ${word}` } }] };
    });
    try {
      await sendFromUi('Echo first');
      const card = await ui.waitForText('chat', '.item-permission', 'always first', 60_000);
      assert.match(card, /Always allow/);
      await ui.click('chat', '.item-permission [id^="allow-always-"]', 30_000);
      await ui.waitForText('chat', '.item-tool', 'Echo: always first', 60_000);
      await ui.waitForText('chat', '.item-notice', `Saved the permission rule ${ECHO}`, 60_000);
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);
      const saved = JSON.parse(fs.readFileSync(local, 'utf8')) as { permissions: { allow: string[] } };
      assert.deepEqual(saved.permissions.allow, [ECHO]);
      assert.match(fs.readFileSync(workspaceFile(path.join('.engram', '.gitignore')), 'utf8'), /settings\.local\.json/);

      // The rule answers for the person from now on: no card for the second call.
      const cards = await ui.count('chat', '.item-permission');
      await sendFromUi('Echo second');
      await ui.waitForText('chat', '.item-tool', 'Echo: always second', 60_000);
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);
      assert.equal(await ui.count('chat', '.item-permission'), cards, 'no permission card for a call a rule allows');
    } finally {
      fs.rmSync(workspaceFile('.engram'), { recursive: true, force: true });
    }
  });

  test('[ui] New Chat closes the session and ends its MCP server', async function () {
    this.timeout(60_000);
    const api = await engram();
    const hub = api.chat().inspectorContext().mcpHub;
    assert.ok(hub, 'the session of the test before runs a hub');
    api.chat().newChat();
    await waitUntil('the servers to stop', () => hub.status().every((s) => s.state !== 'ready'));
  });

  test('[ui] a .vscode/mcp.json input is asked once and kept; a crashing server says why; the winning definition is named', async function () {
    this.timeout(180_000);
    writeMcpJson(false);
    fs.mkdirSync(workspaceFile('.vscode'), { recursive: true });
    fs.writeFileSync(
      workspaceFile(path.join('.vscode', 'mcp.json')),
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'token', description: 'A token for the test server', password: true }],
        servers: {
          withInput: {
            type: 'stdio',
            command: node(),
            args: [everythingJs(), 'stdio'],
            env: { TEST_TOKEN: '${input:token}' },
          },
        },
      }),
    );
    // The person's own servers: one that dies at once, and one that the project's `everything` replaces.
    await vscode.workspace.getConfiguration('engram.mcp').update(
      'servers',
      {
        crash: { command: node(), args: ['-e', "console.error('boom: no database'); process.exit(3)"] },
        everything: { command: node(), args: [everythingJs(), 'stdio', 'from-the-setting'] },
      },
      vscode.ConfigurationTarget.Global,
    );
    const api = await freshChat();
    const approved: string[] = [];
    const inputs: string[] = [];
    const restore = api.replaceMcpPromptsForTests({
      approve: async (q) => {
        approved.push(q.name);
        return true;
      },
      input: async (server, input) => {
        inputs.push(`${server}/${input.id}/${input.password === true}/${input.description ?? ''}`);
        return 'test-token-value';
      },
    });
    try {
      testServer().setResponder((body) => answerBackground(body) ?? text('Hello.'));
      await sendFromUi('Hello');
      const failed = await ui.waitForText('chat', '.item-notice', 'MCP server crash failed', 60_000);
      assert.match(failed, /code 3/);
      assert.match(failed, /boom: no database/);
      assert.equal(await ui.count('chat', '.item-notice:has-text("Last stderr line")'), 0, 'the failure is said once');
      await ui.waitForText('chat', '.item-notice', 'from withInput joined', 60_000);
      assert.deepEqual(inputs, ['withInput/token/true/A token for the test server']);
      assert.deepEqual(approved, ['withInput'], '`everything` was approved before; the setting needs no approval');

      await openInspector(api);
      await vscode.commands.executeCommand('engram.manageMcpServers');
      const section = await refreshUntil(api, '#mcp-section', 'boom: no database');
      assert.match(section, /crash[\s\S]*failed[\s\S]*code 3/);
      assert.match(section, /Used instead of the definition in setting engram\.mcp\.servers/);
      assert.equal(await ui.count('inspector', '#mcp-section [id^="mcp-restart-"]'), 1);
      await inspectorInBothThemes('mcp-failed', 'mcp-section');
      api.inspector()?.panel.dispose();

      // A new session: the input's answer is read from Secret Storage, nobody is asked again.
      await vscode.commands.executeCommand('engram.focusChat');
      api.chat().newChat();
      await sendFromUi('Hello again');
      await ui.waitForText('chat', '.item-notice', 'from withInput joined', 60_000);
      assert.equal(inputs.length, 1, 'the input was asked once');
      assert.deepEqual(approved, ['withInput'], 'and the approval was kept');
    } finally {
      restore();
      api.chat().newChat();
      fs.rmSync(workspaceFile('.vscode'), { recursive: true, force: true });
      await vscode.workspace
        .getConfiguration('engram.mcp')
        .update('servers', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('[ui] [zh-cn] the MCP servers section in Simplified Chinese', async function () {
    this.timeout(180_000);
    assert.equal(vscode.env.language, 'zh-cn');
    // The main phase approved this entry in this project: it starts without asking again.
    writeMcpJson(false);
    const api = await freshChat();
    testServer().setResponder((body) => answerBackground(body) ?? text('你好。'));
    await sendFromUi('你好');
    await ui.waitForText('chat', '.item-notice', 'everything', 60_000);
    await openInspector(api);
    await vscode.commands.executeCommand('engram.manageMcpServers');
    await refreshUntil(api, '#mcp-section', '就绪');
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await ui.evaluate('inspector', "document.getElementById('mcp-section').scrollIntoView({ block: 'start' })");
    const shot = await ui.screenshot('mcp-servers-zh-cn');
    assert.ok(shot.bytes > 10_000, `${shot.file} is too small to show anything`);
    await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
    api.inspector()?.panel.dispose();
  });

  test('[ui] [untrusted] in Restricted Mode no project server starts, and nobody is asked', async function () {
    this.timeout(120_000);
    assert.equal(vscode.workspace.isTrusted, false, 'the runner opened this folder in Restricted Mode');
    writeMcpJson(true);
    fs.rmSync(marker(), { force: true });
    const asked: string[] = [];
    const api = await freshChat();
    const restore = api.replaceMcpPromptsForTests({
      approve: async (q) => {
        asked.push(q.name);
        return true;
      },
      input: async () => undefined,
    });
    try {
      testServer().setResponder((body) => answerBackground(body) ?? text('Restricted.'));
      await sendFromUi('Hello');
      await ui.waitForText('chat', '.item-assistant', 'Restricted.', 60_000);
      const hub = api.chat().inspectorContext().mcpHub;
      assert.ok(hub, 'the session has a hub (which starts nothing here)');
      assert.ok(
        hub.status().every((s) => s.state === 'stopped'),
        JSON.stringify(hub.status().map((s) => s.state)),
      );
      await openInspector(api);
      await vscode.commands.executeCommand('engram.manageMcpServers');
      const section = await refreshUntil(api, '#mcp-section', 'untrusted workspace');
      assert.match(section, /Workspace not trusted/);
      assert.match(section, /everything[\s\S]*untrusted workspace[\s\S]*marker[\s\S]*untrusted workspace/);
      assert.deepEqual(asked, [], 'no approval question in Restricted Mode');
      await vscode.commands.executeCommand('workbench.action.closeSidebar');
      await ui.evaluate('inspector', "document.getElementById('mcp-section').scrollIntoView({ block: 'start' })");
      const shot = await ui.screenshot('mcp-untrusted');
      assert.ok(shot.bytes > 10_000, `${shot.file} is too small to show anything`);
      await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
      assert.ok(!fs.existsSync(marker()), 'the marker server never ran');
      api.inspector()?.panel.dispose();
    } finally {
      restore();
      api.chat().newChat();
      fs.rmSync(workspaceFile('.mcp.json'), { force: true });
    }
  });
});
