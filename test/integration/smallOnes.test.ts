import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { SUMMARY_REQUEST_MARKER } from '../../src/core/compaction/summaryPrompt';
import { projectDir } from '../../src/core/conversation/projectKey';
import type { InspectorController } from '../../src/vscode/inspector/inspectorController';
import { topicText, writeFile } from '../unit/inspection/inspectorFixtures';
import {
  answerBackground,
  engram,
  freshChat,
  lastUserText,
  openInspector,
  refreshUntil,
  sendFromUi,
  useSettings,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// Small ones (issue: "what a newcomer still trips on", item 7), in the real host: the offline demo does
// not echo an @file's <engram-file> block; the prune status promises no notification (VS Code in a
// browser shows none); a summary's numbered sections keep their numbers after a bullet list (DOMPurify's
// fragment dropped <ol start>). Screenshots of the inspector's status line and timeline in both themes.

const THEMES = [
  ['Default Light Modern', 'light'],
  ['Default Dark Modern', 'dark'],
] as const;
const SUMMARY =
  '1. Request and intent:\nRead the README.\n\n2. Files:\n- README.md (read)\n- src/greet.js (read)\n\n3. Errors and fixes:\nNone.\n\n4. Next step:\n- Wait for the user.\n\n5. Pending tasks:\nNone.';

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const memoryDir = () => path.join(projectDir(process.env.ENGRAM_DATA_DIR!, workspace()), 'memory');

suite('small ones', () => {
  useSettings([['engram.compaction', 'preview', false]]);
  const server = useTestServer();

  suiteSetup(() => {
    fs.rmSync(memoryDir(), { recursive: true, force: true });
    writeFile(path.join(memoryDir(), 'MEMORY.md'), '- [Prefers tabs](prefers_tabs.md) — tabs over spaces\n');
    writeFile(path.join(memoryDir(), 'prefers_tabs.md'), topicText('Prefers tabs', 'user'));
  });

  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace
      .getConfiguration('engram')
      .update('offlineDemo', undefined, vscode.ConfigurationTarget.Global);
    server().setResponder(undefined);
    (await engram()).inspector()?.dispose();
    (await engram()).chat().newChat();
    fs.rmSync(memoryDir(), { recursive: true, force: true });
  });

  test('[ui] small ones: the offline demo answers an @file message without echoing the attached block', async () => {
    await vscode.workspace.getConfiguration('engram').update('offlineDemo', true, vscode.ConfigurationTarget.Global);
    try {
      const api = await freshChat();
      await sendFromUi('what is in @README.md');
      await waitUntil(
        'the demo to answer',
        () =>
          api
            .chat()
            .snapshot()
            .items.some((i) => i.kind === 'assistant') && !api.chat().snapshot().busy,
        45_000,
      );
      const reply = await ui.text('chat', '.item-assistant');
      assert.doesNotMatch(reply, /engram-file|The user attached the file/);
      assert.match(await ui.text('chat', '.item-files'), /README\.md/);
    } finally {
      await vscode.workspace
        .getConfiguration('engram')
        .update('offlineDemo', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test("[ui] small ones: the prune status offers Undo where it is; a summary's sections keep their numbers after a bullet list", async () => {
    const api = await freshChat();
    server().setResponder((body) => {
      if (lastUserText(body).includes(SUMMARY_REQUEST_MARKER))
        return { content: [{ type: 'text', text: `<analysis>ok</analysis>\n<summary>\n${SUMMARY}\n</summary>` }] };
      return answerBackground(body) ?? { content: [{ type: 'text', text: 'The README is short.' }] };
    });
    await sendFromUi('Read the README');
    await ui.waitForText('chat', '.item-assistant', 'The README is short', 45_000);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 30_000);
    await api.chat().idleForTests();
    assert.equal(
      await vscode.commands.executeCommand<boolean>('engram.fullCompact', 'the README'),
      true,
      'the full compaction did not run',
    );

    await openInspector(api);
    const restorePrompts = (api.inspector()!.source as InspectorController).replacePromptsForTests({
      confirm: async () => false,
      offerUndo: async () => false,
    });
    try {
      await refreshUntil(api, '#memory-summary', '1 entry');
      await ui.click('inspector', '[data-file="prefers_tabs.md"] > .tree-row');
      await ui.click('inspector', '#entry-prune');
      const status = await ui.waitForText('inspector', '#inspector-status', 'Pruned "Prefers tabs"');
      assert.doesNotMatch(status, /notification/);
      assert.match(status, /Undo puts it back \(here, or later under Recently pruned\)/);
      assert.equal(await ui.count('inspector', '#status-undo'), 1);
    } finally {
      restorePrompts();
    }

    await refreshUntil(api, '#timeline-list', 'full compact');
    await ui.click('inspector', '.timeline-compaction .timeline-button');
    await ui.waitForText('inspector', '#compaction-summary', 'Request and intent');
    const numbered = await ui.evaluate<string[]>(
      'inspector',
      `[...document.querySelectorAll('#compaction-summary .summary-sections > ol')]
      .flatMap((ol) => [...ol.children].map((li, i) => (ol.start + i) + '. ' + li.textContent.trim().split(':')[0]))`,
    );
    assert.deepEqual(numbered, [
      '1. Request and intent',
      '2. Files',
      '3. Errors and fixes',
      '4. Next step',
      '5. Pending tasks',
    ]);
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    for (const [theme, kind] of THEMES) {
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await waitUntil(
        `the ${kind} theme`,
        async () =>
          (await ui.evaluate<boolean>('inspector', `document.body.classList.contains('vscode-${kind}')`)) === true,
      );
      await ui.evaluate(
        'inspector',
        "document.getElementById('compaction-summary').scrollIntoView({ block: 'start' })",
      );
      await ui.screenshot(`small-ones-summary-${kind}`);
      await ui.evaluate('inspector', 'window.scrollTo(0, 0)');
      await ui.screenshot(`small-ones-prune-status-${kind}`);
    }
    await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
  });
});
