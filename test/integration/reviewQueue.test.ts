import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { projectDir } from '../../src/core/conversation/projectKey';
import { EXTRACTION_MARKER } from '../../src/core/memory/autoMemory/memoryPrompts';
import { demoReply } from '../../src/demoModel/demoModel';
import { engram, freshChat, inspectorInBothThemes, sendFromUi, useSettings, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// The review queue for background memories, in the real host: with engram.memory.extraction.review on,
// three turns in which the user states a preference make the background memory agent (the offline demo
// model, through the real extraction fork and its tools) propose three memories. They wait in
// memory/.pending: not in MEMORY.md, not a topic file. The chat says how many wait with a Review button
// that opens the inspector at the queue; there Accept writes one (file and index line), Edit opens the
// proposal in an editor and Accept keeps the edit, Reject keeps the third out (and Undo brings it back
// to the queue). Screenshots of the queue in a light and a dark theme.

const PREFERENCES = [
  'I prefer tabs over spaces in every file',
  'I always run the linter before I commit',
  'I never want semicolons in TypeScript',
];

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const memoryDir = () => path.join(projectDir(process.env.ENGRAM_DATA_DIR!, workspace()), 'memory');
const pendingDir = () => path.join(memoryDir(), '.pending');
const indexText = () =>
  fs.existsSync(path.join(memoryDir(), 'MEMORY.md'))
    ? fs.readFileSync(path.join(memoryDir(), 'MEMORY.md'), 'utf8')
    : '';
const topicFiles = () =>
  fs.existsSync(memoryDir()) ? fs.readdirSync(memoryDir()).filter((f) => f.endsWith('.md') && f !== 'MEMORY.md') : [];

interface Proposal {
  id: string;
  file: string;
  action: string;
}
function pendingRecords(): Proposal[] {
  if (!fs.existsSync(pendingDir())) return [];
  return fs
    .readdirSync(pendingDir())
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(pendingDir(), f), 'utf8')) as Proposal);
}

suite('memory review queue', () => {
  const server = useTestServer();
  useSettings([
    ['engram', 'memory.extraction.review', true],
    ['engram', 'memory.extraction.everyTurns', 1],
  ]);
  /** The proposals, oldest first, as the inspector lists them. */
  let ids: string[] = [];

  suiteSetup(() => fs.rmSync(memoryDir(), { recursive: true, force: true }));
  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    (await engram()).inspector()?.dispose();
    (await engram()).chat().newChat();
    fs.rmSync(memoryDir(), { recursive: true, force: true });
  });

  test('[ui] review queue: what the background agent saves waits for review, and the chat line opens the queue', async () => {
    const api = await freshChat();
    api.inspector()?.dispose();
    // The memory pass is the demo model's (it reads the index, then writes a typed memory); the turn itself
    // only answers.
    // A fork's later rounds end in tool results: it is known by the marker anywhere in its messages.
    server().setResponder((body) =>
      JSON.stringify(body.messages).includes(EXTRACTION_MARKER)
        ? demoReply(body as unknown as Record<string, unknown>)
        : { content: [{ type: 'text', text: 'Noted.' }] },
    );
    for (const prompt of PREFERENCES) {
      const before = api.chat().snapshot().items.length;
      await sendFromUi(prompt);
      await waitUntil(
        `"${prompt}" to be answered`,
        () => api.chat().snapshot().items.length > before && !api.chat().snapshot().busy,
        30_000,
      );
      await api.chat().idleForTests();
    }
    await waitUntil('three proposals in memory/.pending', () => pendingRecords().length === 3, 30_000);
    // Nothing pending reached the memory itself.
    assert.deepEqual(topicFiles(), []);
    assert.equal(indexText().trim(), '');
    for (const r of pendingRecords()) assert.equal(r.action, 'create');

    const notices = api
      .chat()
      .snapshot()
      .items.flatMap((i) => (i.kind === 'notice' && /wait(s)? for review/.test(i.text) ? [i.text] : []));
    // One line that says how things stand: each pass's line replaces the one before.
    assert.deepEqual(notices, ['3 memories wait for review.']);
    await ui.waitForText('chat', '.item-notice', '3 memories wait for review.');
    await ui.screenshot('review-queue-chat');

    // The line's button opens the inspector with the queue.
    assert.equal(await ui.count('chat', '.item-notice .notice-action vscode-button'), 1);
    await ui.click('chat', '.item-notice .notice-action vscode-button');
    await waitUntil('the inspector to open', () => api.inspector() !== undefined);
    await ui.waitForText('inspector', '#review-title', '3');
    assert.equal(await ui.count('inspector', '#review-section .pending-item'), 3);
    assert.equal(await ui.evaluate<boolean>('inspector', "document.getElementById('review-toggle').checked"), true);
    ids = await ui.evaluate<string[]>(
      'inspector',
      "[...document.querySelectorAll('#review-section .pending-item')].map((e) => e.dataset.id)",
    );
    assert.equal(ids.length, 3);
    // Each proposal shows the new file in full, as added lines.
    const first = await ui.text('inspector', `.pending-item[data-id="${ids[0]}"] .pending-diff`);
    assert.match(first, /\+ type: feedback|\+ type: user/);
  });

  test('[ui] review queue: Accept writes the memory, Edit then Accept keeps the edit, Reject keeps it out until Undo', async () => {
    const api = await engram();
    assert.equal(ids.length, 3, 'the first test found the proposals');
    const byId = new Map(pendingRecords().map((r) => [r.id, r]));

    // Accept the first: its topic file and its MEMORY.md line appear.
    await ui.click('inspector', `#accept-${ids[0]}`);
    const accepted = byId.get(ids[0])!.file;
    await waitUntil(
      `${accepted} to be saved`,
      () => topicFiles().includes(accepted) && indexText().includes(`(${accepted})`),
    );
    await ui.waitForText('inspector', '#inspector-status', 'Saved "');
    await waitUntil(
      'two proposals left',
      async () => (await ui.count('inspector', '#review-section .pending-item')) === 2,
    );

    // Edit the second: its proposal opens in an editor beside the inspector; the edit is saved and Accept writes it.
    await ui.click('inspector', `#edit-${ids[1]}`);
    await waitUntil(
      'the proposal in an editor',
      () => vscode.window.activeTextEditor?.document.uri.fsPath === path.join(pendingDir(), `${ids[1]}.md`),
    );
    const editor = vscode.window.activeTextEditor!;
    const inspectorTab = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .find((t) => t.input instanceof vscode.TabInputWebview && /inspector/i.test(t.input.viewType));
    assert.ok(inspectorTab?.isActive, 'the inspector stays in view beside the editor');
    const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
    assert.ok(await editor.edit((e) => e.insert(end, '\nEdited by the reviewer.\n')));
    await editor.document.save();
    await ui.click('inspector', `#accept-${ids[1]}`);
    const edited = byId.get(ids[1])!.file;
    await waitUntil(`${edited} to be saved`, () => topicFiles().includes(edited));
    assert.match(fs.readFileSync(path.join(memoryDir(), edited), 'utf8'), /Edited by the reviewer\./);
    await waitUntil(
      "the proposal's editor to close",
      () =>
        !vscode.window.tabGroups.all.some((g) =>
          g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath.includes('.pending')),
        ),
    );
    assert.ok(indexText().includes(`(${edited})`));

    // Reject the third: nothing of it is saved; Undo puts it back in the queue.
    await ui.click('inspector', `#reject-${ids[2]}`);
    const rejected = byId.get(ids[2])!.file;
    await ui.waitForText('inspector', '#inspector-status', 'it was not saved');
    await waitUntil(
      'the queue to be empty',
      async () => (await ui.count('inspector', '#review-section .pending-item')) === 0,
    );
    assert.ok(!topicFiles().includes(rejected));
    assert.ok(!indexText().includes(`(${rejected})`));
    assert.equal(pendingRecords().length, 0);
    await ui.click('inspector', '#status-undo-reject');
    await waitUntil(
      'the rejected proposal back in the queue',
      async () => (await ui.count('inspector', '#review-section .pending-item')) === 1,
    );
    assert.deepEqual(
      pendingRecords().map((r) => r.file),
      [rejected],
    );
    assert.ok(!topicFiles().includes(rejected));
    await api.inspector()!.refresh();
  });

  test('[ui] review queue: the queue looks right in light and dark, and its toggle turns review off', async () => {
    await inspectorInBothThemes('review-queue', 'review-section');
    await ui.click('inspector', '#review-toggle');
    await waitUntil(
      'review to be off',
      () => vscode.workspace.getConfiguration('engram').get('memory.extraction.review') === false,
    );
    await ui.waitForText('inspector', '#inspector-status', 'Review is off');
  });
});
