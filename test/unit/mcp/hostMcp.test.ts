// The host door: a project's `.mcp.json` whose command writes a file does not run before the person
// approves it, runs once approved, and stops being approved when its entry changes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  createMcpHub,
  type McpConfigProblem,
  type McpHubEvent,
  type McpServerStatus,
  type McpShadowed,
  mcpStartPolicy,
  mcpToolName,
  openMcpHub,
  parseMcpRuleName,
  readMcpChoices,
  readMcpConfig,
  updateMcpChoices,
} from '../../../src/core/host/mcp';
import { defaultSettings } from '../../../src/core/settings/engramSettings';
import { EVERYTHING, tempDir } from './mcpTestSupport';

/** A project whose server writes `marker` as it starts, then serves server-everything over stdio. */
function writeProject(projectRoot: string, marker: string, extraArg = ''): void {
  const server = path.join(projectRoot, 'server.mjs');
  fs.writeFileSync(
    server,
    `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(marker)}, 'ran');\n` +
      `process.argv.splice(2, process.argv.length, 'stdio');\nawait import(${JSON.stringify(EVERYTHING)});\n`,
  );
  const args = [server, ...(extraArg ? [extraArg] : [])];
  fs.writeFileSync(
    path.join(projectRoot, '.mcp.json'),
    JSON.stringify({ mcpServers: { writes: { command: process.execPath, args } } }),
  );
}

describe('host door for MCP', () => {
  it('does not run a project server before approval, runs it after, and asks again when it changes', async () => {
    const root = tempDir('host');
    const dataDir = path.join(root, 'data');
    const projectRoot = path.join(root, 'project');
    fs.mkdirSync(projectRoot, { recursive: true });
    const marker = path.join(root, 'ran.txt');
    writeProject(projectRoot, marker);
    const settings = defaultSettings();
    const open = () =>
      openMcpHub({ dataDir, projectRoot, settings, trusted: true, env: {}, clientInfo: { name: 't', version: '1' } });

    const first = await open();
    try {
      first.hub.start();
      await first.hub.whenSettled();
      assert.equal(first.hub.status()[0].state, 'needsApproval');
      assert.equal(fs.existsSync(marker), false, 'nothing ran before approval');
      assert.deepEqual(first.hub.tools(), []);

      const fingerprint = first.config.servers[0].fingerprint;
      await updateMcpChoices(dataDir, projectRoot, (c) => ({ ...c, approved: { ...c.approved, writes: fingerprint } }));
      await first.reloadChoices();
      await first.hub.whenSettled();
      assert.equal(first.hub.status()[0].state, 'ready', JSON.stringify(first.hub.status()[0].failure));
      assert.equal(fs.existsSync(marker), true);
      assert.ok(first.hub.tools().some((t) => t.name === mcpToolName('writes', 'echo')));

      await updateMcpChoices(dataDir, projectRoot, (c) => ({ ...c, disabledTools: ['writes/echo'] }));
      await first.reloadChoices();
      assert.equal(
        first.hub.tools().some((t) => t.name === 'mcp__writes__echo'),
        false,
        'a tool turned off',
      );
    } finally {
      await first.hub.close();
    }

    // engram -p does not take the chat's approval: only a name in engram.mcp.approvedProjectServers.
    fs.rmSync(marker);
    const cli = await openMcpHub({
      dataDir,
      projectRoot,
      settings,
      trusted: true,
      env: {},
      clientInfo: { name: 't', version: '1' },
      approvedOnlyByName: true,
    });
    try {
      cli.hub.start();
      await cli.hub.whenSettled();
      assert.equal(cli.hub.status()[0].state, 'needsApproval');
      assert.equal(fs.existsSync(marker), false);
    } finally {
      await cli.hub.close();
    }

    writeProject(projectRoot, marker, '--changed');
    const second = await open();
    try {
      second.hub.start();
      await second.hub.whenSettled();
      assert.equal(second.hub.status()[0].state, 'needsApproval', 'a changed entry needs a new approval');
      assert.equal(fs.existsSync(marker), false);
    } finally {
      await second.hub.close();
    }
    const choices = await readMcpChoices(dataDir, projectRoot);
    const untrusted = mcpStartPolicy({ trusted: false, choices, approvedNames: ['writes'] });
    assert.equal(untrusted(second.config.servers[0]), 'untrusted');
    assert.deepEqual(parseMcpRuleName('mcp__writes__echo'), { server: 'writes', tool: 'echo' });
  });
});

describe('host door: config and a hub built by hand', () => {
  it('reads the config and runs a hub from it, telling its events', async () => {
    const root = tempDir('door');
    const projectRoot = path.join(root, 'project');
    fs.mkdirSync(projectRoot, { recursive: true });
    const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
    const config = await readMcpConfig({
      dataDir: path.join(root, 'data'),
      projectRoot,
      setting: { ev: everything, 'bad name': everything },
      cli: [JSON.stringify({ mcpServers: { ev: everything } })],
      env: {},
    });
    const problems: McpConfigProblem[] = config.problems;
    const shadowed: McpShadowed[] = config.shadowed;
    assert.equal(problems[0].server, 'bad name');
    assert.deepEqual(shadowed, [{ name: 'ev', used: 'cli', ignored: ['setting'] }]);
    const hub = createMcpHub({
      servers: config.servers,
      clientInfo: { name: 't', version: '1' },
      mayStart: () => true,
      cwd: root,
    });
    const events: McpHubEvent[] = [];
    hub.onEvent((e) => events.push(e));
    try {
      hub.start();
      await hub.whenSettled();
      const status: McpServerStatus[] = hub.status();
      assert.equal(status[0].state, 'ready');
      assert.ok(events.some((e) => e.type === 'status' && e.status.state === 'starting'));
      assert.ok(hub.definitionTokens() > 0);
    } finally {
      await hub.close();
    }
  });
});
