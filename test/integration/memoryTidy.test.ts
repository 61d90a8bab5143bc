import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { projectDir } from '../../src/core/conversation/projectKey';
import type { TidyRecord } from '../../src/core/memory/tidy/tidyApply';
import { TIDY_REQUEST_MARKER, TIDY_TOOL_NAME } from '../../src/core/memory/tidy/tidyPropose';
import { answerBackground, freshChat, lastUserText, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// "Engram: Tidy Memory" from the palette: the model (the test server) proposes a merge, a deletion and a
// change that leaves the memory folder; the refused one is not offered, the proposal opens as diffs of
// the memory folder, the person ticks only the deletion and presses OK, and the folder changes only
// there (MEMORY.md too); "Engram: Undo Tidy Memory" gives back the exact bytes. Photographed in a light
// and a dark theme, and in Simplified Chinese (where the list is dismissed and nothing changes).

const topic = (name: string, body: string): string =>
  `---\nname: ${name}\ndescription: ${body}\ntype: feedback\n---\n\n${body}\n`;
const FILES: Record<string, string> = {
  'tidy_tabs.md': topic('Tabs', 'Indent with tabs, never spaces.'),
  'tidy_indent.md': topic('Indentation', 'Use tabs for indentation in every file.'),
  'tidy_legacy.md': topic('Legacy deploy', 'Deploy with npm run deploy-legacy.'),
};

function memoryFolder(): string {
  const dir = path.join(
    projectDir(process.env.ENGRAM_DATA_DIR!, vscode.workspace.workspaceFolders![0].uri.fsPath),
    'memory',
  );
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(FILES)) fs.writeFileSync(path.join(dir, file), text);
  const index = path.join(dir, 'MEMORY.md');
  const kept = fs.existsSync(index)
    ? fs
        .readFileSync(index, 'utf8')
        .split('\n')
        .filter((l) => l !== '' && !l.includes('(tidy_'))
    : [];
  const lines = Object.keys(FILES).map((f) => `- [${f}](${f}) — ${f}`);
  fs.writeFileSync(index, `${[...kept, ...lines].join('\n')}\n`);
  return dir;
}

function bytes(dir: string): Record<string, string> {
  return Object.fromEntries(
    [...Object.keys(FILES), 'MEMORY.md'].map((f) => [
      f,
      fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), 'utf8') : '(gone)',
    ]),
  );
}

const tidyDiffTabs = (): number =>
  vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'engram-tidy').length;

suite('memory tidy', () => {
  const testServer = useTestServer();

  function scriptTidy(): void {
    const changes = [
      {
        kind: 'merge',
        files: ['tidy_tabs.md', 'tidy_indent.md'],
        content: topic('Tabs', 'Indent with tabs, never spaces, in every file.'),
        reason: 'Both memories say to indent with tabs.',
      },
      { kind: 'delete', files: ['tidy_legacy.md'], reason: 'The deploy-legacy script no longer exists.' },
      { kind: 'rewrite', files: ['../outside.md'], content: 'x', reason: 'Leaves the folder.' },
    ];
    testServer().setResponder((body) =>
      lastUserText(body).includes(TIDY_REQUEST_MARKER)
        ? { content: [{ type: 'tool_use', name: TIDY_TOOL_NAME, input: { changes } }] }
        : answerBackground(body),
    );
  }

  // Wrapped: an async function returning the command's thenable would wait for it to settle.
  async function openTidy(): Promise<{ record: Thenable<TidyRecord | undefined> }> {
    const record = vscode.commands.executeCommand<TidyRecord | undefined>('engram.tidyMemory');
    await waitUntil('the tidy diff editor', () => tidyDiffTabs() > 0, 30_000);
    await ui.workbenchText('.quick-input-widget .quick-input-list .monaco-list-row', 30_000);
    return { record };
  }

  test('[ui] Tidy Memory shows the proposal as diffs; one accepted change is applied with MEMORY.md, then undone', async function () {
    this.timeout(90_000);
    await freshChat();
    const dir = memoryFolder();
    const before = bytes(dir);
    scriptTidy();
    const { record } = await openTidy();
    assert.deepEqual(bytes(dir), before, 'nothing changes before the yes');
    for (const [theme, kind] of [
      ['Default Light Modern', vscode.ColorThemeKind.Light],
      ['Default Dark Modern', vscode.ColorThemeKind.Dark],
    ] as const) {
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await waitUntil(theme, () => vscode.window.activeColorTheme.kind === kind);
      const shot = await ui.screenshot(`memory-tidy-review-${kind === vscode.ColorThemeKind.Light ? 'light' : 'dark'}`);
      assert.ok(shot.bytes > 10_000, shot.file);
    }
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    await ui.clickWorkbench('.quick-input-widget .monaco-list-row:has-text("[c2]") .monaco-checkbox');
    await ui.clickWorkbench('.quick-input-widget .quick-input-action .monaco-button');
    const applied = await record;
    assert.deepEqual(
      applied?.changes.map((c) => c.id),
      ['c2'],
    );
    const after = bytes(dir);
    assert.equal(after['tidy_legacy.md'], '(gone)');
    assert.doesNotMatch(after['MEMORY.md'], /tidy_legacy/);
    assert.equal(after['tidy_indent.md'], before['tidy_indent.md'], 'the merge was not accepted');
    assert.equal(after['tidy_tabs.md'], before['tidy_tabs.md']);
    assert.equal(await vscode.commands.executeCommand('engram.undoTidyMemory'), true);
    assert.deepEqual(bytes(dir), before);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('[ui] [zh-cn] Tidy Memory from the Health view in Simplified Chinese; dismissing the list changes nothing', async function () {
    this.timeout(90_000);
    await freshChat();
    const dir = memoryFolder();
    const before = bytes(dir);
    scriptTidy();
    // The Health view's own "Tidy memory…" runs the same review (issue 32: command, inspector button, CLI).
    await vscode.commands.executeCommand('engram.openInspector', 'health');
    await ui.waitForText('inspector', '#health-tidy', '整理记忆', 30_000);
    await ui.click('inspector', '#health-tidy');
    await waitUntil('the tidy diff editor', () => tidyDiffTabs() > 0, 30_000);
    await ui.workbenchText('.quick-input-widget .quick-input-list .monaco-list-row', 30_000);
    assert.match(await ui.workbenchText('.quick-input-widget'), /整理记忆/);
    assert.match(await ui.workbenchText('.quick-input-widget .quick-input-list'), /\[c1\] 合并/);
    const shot = await ui.screenshot('memory-tidy-review-zh-cn');
    assert.ok(shot.bytes > 10_000, shot.file);
    await ui.press('Escape');
    assert.deepEqual(bytes(dir), before);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
