import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { MessagesRequestBody } from '../../src/testServer/anthropicTestServer';
import { expandGroup } from './inspectorSteps';
import {
  engram,
  answerBackground,
  freshChat,
  inspectorInBothThemes,
  openInspector,
  refreshUntil,
  sendFromUi,
  useSettings,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// Issue 24, instructions: a workspace with AGENTS.md and CLAUDE.md. After a turn the request's system
// prompt holds both (AGENTS.md first), the chat names them in one line and the inspector lists them (a
// row opens its file); AGENTS.md edited, then a manual compaction: the next request has the edit, and the
// timeline says the compaction kept both. Photographed in a light and a dark theme, and in Chinese. In the
// runner's [untrusted] phase, workspace trust is on and the folder is opened in Restricted Mode: neither
// file is sent, no tool is offered, and the chat says the project's files were not read.

const AGENTS = 'Agents rule: run npm test before every commit.\n';
const CLAUDE = 'Claude rule: answer in plain English.\n';

const settings: Array<[string, string, unknown]> = [
  ['engram.compaction', 'preview', false],
  ['engram.compaction', 'keepMinTextMessages', 1],
  ['engram.sessionNotes', 'enabled', false],
  ['engram.memory', 'extraction.enabled', false],
];

const systemText = (body: MessagesRequestBody): string =>
  typeof body.system === 'string' ? body.system : (body.system ?? []).map((b) => b.text).join('\n');

function workspaceFile(name: string): string {
  return path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, name);
}

suite('instruction files: AGENTS.md beside CLAUDE.md', () => {
  const testServer = useTestServer();
  useSettings(settings);
  suiteSetup(() => {
    fs.writeFileSync(workspaceFile('AGENTS.md'), AGENTS);
    fs.writeFileSync(workspaceFile('CLAUDE.md'), CLAUDE);
  });
  suiteTeardown(async () => {
    for (const name of ['AGENTS.md', 'CLAUDE.md']) fs.rmSync(workspaceFile(name), { force: true });
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
  });

  /** A turn from the chat; resolves to the main request it made (background ones are answered aside). */
  async function turn(text: string): Promise<MessagesRequestBody> {
    const server = testServer();
    const mains: MessagesRequestBody[] = [];
    server.setResponder((body) => {
      const background = answerBackground(body);
      if (background) return background;
      mains.push(body);
      return { content: [{ type: 'text', text: `Noted: ${text}` }] };
    });
    const api = await engram();
    await sendFromUi(text);
    // The request reached the model and the turn ended (the chat draws only the rows in view, so a
    // count of rendered turns can stay the same while a long chat scrolls).
    await waitUntil('the reply', () => mains.length >= 1 && !api.chat().snapshot().busy, 60_000);
    assert.equal(mains.length, 1);
    return mains[0];
  }

  /** A full compaction (the command, with a focus so it asks nothing), then the next turn. */
  async function compactAndTurn(): Promise<MessagesRequestBody> {
    const ok = await vscode.commands.executeCommand<boolean>('engram.fullCompact', 'the rules');
    assert.equal(ok, true, 'the full compaction did not run');
    return turn('And now?');
  }

  test('[ui] AGENTS.md is sent, listed in the chat and the inspector, read again after a compaction and shown as kept', async function () {
    this.timeout(240_000);
    const api = await freshChat();
    const first = await turn('Which rules apply here?');
    const system = systemText(first);
    assert.match(system, /<instructions path="[^"]*AGENTS\.md" scope="project">\nAgents rule: run npm test/);
    assert.match(system, /<instructions path="[^"]*CLAUDE\.md" scope="project">\nClaude rule/);
    assert.ok(system.indexOf('Agents rule') < system.indexOf('Claude rule'), 'AGENTS.md first, CLAUDE.md after it');
    const line = await ui.waitForText('chat', '.item-instructions', 'AGENTS.md');
    assert.match(line, /Instructions:\s*AGENTS\.md,\s*CLAUDE\.md/);
    // Issue 31: the space before each link is outside it, so the underline starts at the name.
    assert.deepEqual(
      await ui.evaluate<string[]>(
        'chat',
        "[...document.querySelectorAll('.item-instructions a')].map((a) => a.textContent)",
      ),
      ['AGENTS.md', 'CLAUDE.md'],
    );
    await turn('Anything else?');

    fs.writeFileSync(workspaceFile('AGENTS.md'), `${AGENTS}Agents rule: also run the linter.\n`);
    const after = systemText(await compactAndTurn());
    assert.match(after, /Agents rule: also run the linter\./, 'the edit made before the compaction is sent');
    assert.match(after, /Claude rule: answer in plain English\./);

    await openInspector(api);
    await expandGroup('group:instructions');
    const rows = await ui.evaluate<string[]>(
      'inspector',
      "[...document.querySelectorAll('#memory-tree .tree-instruction')].map((r) => r.dataset.file)",
    );
    assert.deepEqual(rows, ['AGENTS.md', 'CLAUDE.md']);
    await ui.click('inspector', '.tree-instruction[data-file="AGENTS.md"] > .tree-row');
    await ui.waitForText('inspector', '#entry-details', workspaceFile('AGENTS.md'));
    await ui.click('inspector', '#entry-open');
    await waitUntil('AGENTS.md open in an editor', () =>
      (vscode.window.activeTextEditor?.document.uri.fsPath ?? '').endsWith('AGENTS.md'),
    );
    await openInspector(api);
    await inspectorInBothThemes('instructions-loaded', 'memory-section');

    const kept = await refreshUntil(api, '#timeline-list', 'kept: AGENTS.md, CLAUDE.md');
    assert.match(kept, /full compact[\s\S]*kept: AGENTS\.md, CLAUDE\.md/);
    await ui.click('inspector', '.timeline-compaction .timeline-button');
    await ui.waitForText('inspector', '#compaction-kept', 'AGENTS.md, CLAUDE.md');
    await inspectorInBothThemes('instructions-kept', 'timeline-section');
    await vscode.commands.executeCommand('engram.focusChat');
    const shot = await ui.screenshot('instructions-chat');
    assert.ok(shot.bytes > 10_000, `${shot.file} is too small to show anything`);
    api.inspector()?.panel.dispose();
  });

  test('[ui] [untrusted] in Restricted Mode neither AGENTS.md nor CLAUDE.md is sent, and the chat says why', async function () {
    this.timeout(180_000);
    assert.equal(vscode.workspace.isTrusted, false, 'the runner opened this folder in Restricted Mode');
    await freshChat();
    const first = await turn('Which rules apply here?');
    const system = systemText(first);
    assert.doesNotMatch(system, /Agents rule|Claude rule/, 'no project instructions');
    assert.doesNotMatch(system, /<instructions path="[^"]*(AGENTS|CLAUDE)\.md" scope="project">/);
    assert.equal((first.tools ?? []).length, 0, 'and no tools');
    const line = await ui.waitForText('chat', '.item-instructions', "isn't trusted");
    assert.doesNotMatch(line, /AGENTS\.md|CLAUDE\.md/, 'no project file is named as loaded');
    const shot = await ui.screenshot('instructions-untrusted');
    assert.ok(shot.bytes > 10_000, `${shot.file} is too small to show anything`);
  });

  test('[ui] [zh-cn] the instruction files and the kept line in Simplified Chinese', async function () {
    this.timeout(240_000);
    assert.equal(vscode.env.language, 'zh-cn');
    const api = await freshChat();
    await turn('这里有哪些规则？');
    assert.match(await ui.waitForText('chat', '.item-instructions', 'AGENTS.md'), /指令：\s*AGENTS\.md,\s*CLAUDE\.md/);
    await turn('还有吗？');
    await compactAndTurn();
    await openInspector(api);
    await expandGroup('group:instructions');
    assert.match(await ui.text('inspector', '[data-key="group:instructions"]'), /指令（CLAUDE\.md、AGENTS\.md）/);
    await refreshUntil(api, '#timeline-list', '保留：AGENTS.md, CLAUDE.md');
    await ui.click('inspector', '.timeline-compaction .timeline-button');
    await ui.waitForText('inspector', '#compaction-kept', 'AGENTS.md, CLAUDE.md');
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await ui.evaluate('inspector', "document.getElementById('memory-section').scrollIntoView({ block: 'start' })");
    const shot = await ui.screenshot('instructions-zh-cn');
    assert.ok(shot.bytes > 10_000, `${shot.file} is too small to show anything`);
    await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
    api.inspector()?.panel.dispose();
  });
});
