import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { SUMMARY_REQUEST_MARKER } from '../../src/core/compaction/summaryPrompt';
import { projectDir } from '../../src/core/conversation/projectKey';
import { EXTRACTION_MARKER } from '../../src/core/memory/autoMemory/memoryPrompts';
import type { EngramApi } from '../../src/extension';
import type { ScriptedReply } from '../../src/testServer/anthropicTestServer';
import type { InspectorController } from '../../src/vscode/inspector/inspectorController';
import { topicText, writeFile } from '../unit/inspection/inspectorFixtures';
import { createEveryToolkitElement, cspMark, cspViolationsSince } from './cspLog';
import {
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

// What a newcomer hit in the first hour (issue 12, part 3), each fixed and checked in the real host: a
// Read outside the workspace asks first, the tool card names its tool once, "Earlier sessions" leaves
// out the current one, pruning offers Undo beside its status and a late Undo says it was restored
// already, the trash shows titles, the compaction details show attached files as code and mark an
// undone compaction, "1 entry", the gauge's warning when the output reserve shrinks, a colour per mark,
// the section links stay in view, the data folder is named, and no webview trips its CSP. Screenshots of
// the inspector in a light and a dark theme. That the packaged .vsix installs with its icon and activates
// on its own is test/host/vsixCheck.mjs, a check of its own in `npm test` (it needs a second VS Code server).

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const memoryDir = () => path.join(projectDir(process.env.ENGRAM_DATA_DIR!, workspace()), 'memory');
const SUMMARY = '## Request and intent\nRead the README.\n## Next step\nNone.';

/** Background forks (notes, extraction, summaries) get plain answers; the main turn gets `main`. */
function responder(main: (answered: boolean) => ScriptedReply) {
  return (
    body: Parameters<Parameters<ReturnType<ReturnType<typeof useTestServer>>['setResponder']>[0] & object>[0],
  ): ScriptedReply => {
    const text = lastUserText(body);
    if (text.includes(EXTRACTION_MARKER)) return { content: [{ type: 'text', text: 'Nothing new.' }] };
    if (text.includes(SUMMARY_REQUEST_MARKER))
      return { content: [{ type: 'text', text: `<analysis>ok</analysis>\n<summary>\n${SUMMARY}\n</summary>` }] };
    if (text.includes('<engram-session-notes-update>')) return { content: [{ type: 'text', text: 'Notes are fine.' }] };
    const answered = body.messages.some(
      (m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'),
    );
    return main(answered);
  };
}

async function turn(api: EngramApi, prompt: string, done: string): Promise<void> {
  await sendFromUi(prompt);
  await ui.waitForText('chat', '.item-assistant', done, 45_000);
  await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 30_000);
  await api.chat().idleForTests();
}

suite('newcomer', () => {
  // The Full Compact below applies at once (compactionPreview.test.ts covers the preview).
  useSettings([['engram.compaction', 'preview', false]]);
  const server = useTestServer();
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-outside-'));

  suiteSetup(() => {
    fs.rmSync(memoryDir(), { recursive: true, force: true });
    writeFile(path.join(memoryDir(), 'MEMORY.md'), '- [Prefers tabs](prefers_tabs.md) — tabs over spaces\n');
    writeFile(path.join(memoryDir(), 'prefers_tabs.md'), topicText('Prefers tabs', 'user'));
    fs.writeFileSync(path.join(outside, 'hosts.txt'), 'not for the agent\n');
  });

  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace
      .getConfiguration('engram')
      .update('contextWindow', undefined, vscode.ConfigurationTarget.Global);
    server().setResponder(undefined);
    (await engram()).inspector()?.dispose();
    fs.rmSync(memoryDir(), { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  test('[ui] newcomer: a Read outside the workspace asks first; the tool card names the tool once; Earlier sessions leaves out the current one', async () => {
    const api = await freshChat();
    const file = path.join(outside, 'hosts.txt');
    server().setResponder(
      responder((answered) =>
        answered
          ? { content: [{ type: 'text', text: 'I did not read it.' }] }
          : { content: [{ type: 'tool_use', name: 'Read', input: { file_path: file } }] },
      ),
    );
    await sendFromUi('Read the hosts file');
    const prompt = await ui.waitForText('chat', '.item-permission', 'outside the workspace', 30_000);
    assert.ok(prompt.includes(file), prompt);
    await ui.click('chat', '.item-permission [id^="deny-"]');
    await ui.waitForText('chat', '.item-assistant', 'I did not read it', 30_000);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 30_000);
    const card = await ui.evaluate<{ name: string; summary: string }>(
      'chat',
      "({ name: document.querySelector('.item-tool .tool-name').textContent, summary: document.querySelector('.item-tool .tool-summary').textContent })",
    );
    assert.deepEqual(card, { name: 'Read', summary: file });
    // A Read inside the workspace runs without a question.
    server().setResponder(
      responder((answered) =>
        answered
          ? { content: [{ type: 'text', text: 'The README is short.' }] }
          : { content: [{ type: 'tool_use', name: 'Read', input: { file_path: 'README.md' } }] },
      ),
    );
    await turn(api, 'Read the README', 'The README is short');
    assert.equal(await ui.count('chat', '.item-permission'), 1, 'only the outside read asked');
    const current = api.chat().snapshot().sessionId;
    assert.ok(current);
    const sessions = await api.chat().listSessions();
    assert.ok(!sessions.some((s) => s.id === current), 'the current session is not an earlier one');
  });

  test('[ui] newcomer: "1 entry"; prune shows Undo beside its status; a late Undo says it was restored already; the trash shows the title', async () => {
    const api = await engram();
    await openInspector(api);
    assert.match(await refreshUntil(api, '#memory-summary', '1 entry'), /^1 entry · 1 loaded/);
    const file = path.join(memoryDir(), 'prefers_tabs.md');
    let clickUndo: (undo: boolean) => void = () => undefined;
    const controller = api.inspector()!.source as InspectorController;
    const restorePrompts = controller.replacePromptsForTests({
      confirm: async () => false,
      offerUndo: () =>
        new Promise<boolean>((resolve) => {
          clickUndo = resolve;
        }),
    });
    try {
      await ui.click('inspector', '[data-file="prefers_tabs.md"] > .tree-row');
      await ui.click('inspector', '#entry-prune');
      await waitUntil('the file to leave', () => !fs.existsSync(file));
      await ui.waitForText('inspector', '#inspector-status', 'Pruned "Prefers tabs"');
      // In the trash under its title, "Pruned just now" (not "pruned 0 s").
      await refreshUntil(api, '[data-key="group:trash"]', 'Prefers tabs');
      const trashRow = await ui.text('inspector', '.tree-trash');
      assert.match(trashRow, /Prefers tabs[\s\S]*Pruned just now/);
      assert.doesNotMatch(trashRow, /pruned 0 s/);
      await ui.screenshot('newcomer-prune-undo');
      await ui.click('inspector', '#status-undo');
      await waitUntil('the Undo beside the status to restore it', () => fs.existsSync(file));
      await ui.waitForText('inspector', '#inspector-status', 'Restored "Prefers tabs"');
      assert.equal(await ui.count('inspector', '#status-undo'), 0, 'no Undo once it is back');
      // The notification's Undo, chosen late, finds nothing to restore and says why.
      clickUndo(true);
      await ui.waitForText('inspector', '#inspector-status', '"Prefers tabs" was already restored.');
      assert.doesNotMatch(await ui.text('inspector', '#inspector-status'), /ENOENT|prune\.json/);
    } finally {
      restorePrompts();
    }
    assert.match(fs.readFileSync(path.join(memoryDir(), 'MEMORY.md'), 'utf8'), /prefers_tabs\.md/);
  });

  test("[ui] newcomer: the compaction details show the summary's sections and attached files as code; an undone one is marked and has no diff", async () => {
    const api = await engram();
    const ok = await vscode.commands.executeCommand<boolean>('engram.fullCompact', 'the README');
    assert.equal(ok, true, 'the full compaction did not run');
    await openInspector(api);
    await refreshUntil(api, '#timeline-list', 'full compact');
    await ui.click('inspector', '.timeline-compaction .timeline-button');
    await ui.waitForText('inspector', '#compaction-summary', 'Read the README');
    const details = await ui.evaluate<{
      text: string;
      h1: number;
      sections: string[];
      files: Array<{ path: string; code: string }>;
    }>(
      'inspector',
      `(() => {
      const s = document.getElementById('compaction-summary');
      return { text: s.textContent, h1: s.querySelectorAll('h1').length,
        sections: [...s.querySelectorAll('.summary-sections h2')].map((h) => h.textContent),
        files: [...s.querySelectorAll('.summary-file')].map((d) => ({ path: d.querySelector('summary').textContent.trim(), code: d.querySelector('pre code').textContent })) };
    })()`,
    );
    assert.doesNotMatch(details.text, /<\/?summary>|<file /);
    assert.deepEqual(details.sections, ['Request and intent', 'Next step']);
    // Re-attached files (when the compaction attached any) are code under their path: summaryParts' unit test.
    for (const f of details.files) assert.ok(path.isAbsolute(f.path) && f.code.length > 0, JSON.stringify(f));
    assert.equal(details.h1, 0, "the README's title is not a heading of the details");
    await ui.click('inspector', '#compaction-undo');
    await ui.waitForText('inspector', '#inspector-status', 'Compaction undone');
    await refreshUntil(api, '#timeline-list', 'undone');
    await ui.click('inspector', '.timeline-compaction.status-full .timeline-button');
    await ui.waitForText('inspector', '#compaction-undone', 'Undone');
    assert.equal(await ui.count('inspector', '#compaction-diff'), 0, 'an undone compaction offers no diff');
    assert.equal(await ui.count('inspector', '#compaction-undo'), 0);
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    for (const [theme, kind] of [
      ['Default Light Modern', 'light'],
      ['Default Dark Modern', 'dark'],
    ] as const) {
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
        "document.querySelector('#compaction-summary .summary-file')?.setAttribute('open', '')",
      );
      await ui.evaluate('inspector', "document.getElementById('timeline-section').scrollIntoView({ block: 'start' })");
      await ui.screenshot(`newcomer-timeline-${kind}`);
    }
    await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
  });

  test('[ui] newcomer: the gauge warns when the output reserve shrinks; a colour per mark; the section links stay in view; the data folder is named', async () => {
    const api = await freshChat();
    await vscode.workspace
      .getConfiguration('engram')
      .update('contextWindow', 40_000, vscode.ConfigurationTarget.Global);
    // 30,000 of 40,000 used: 75 %, and only 10,000 of the 16,000-token output reserve still fit.
    server().setResponder(
      responder(() => ({
        content: [{ type: 'text', text: 'A long chat.' }],
        usage: {
          input_tokens: 29_000,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1000,
        },
      })),
    );
    await turn(api, 'Talk a lot', 'A long chat');
    await openInspector(api);
    const warning = await refreshUntil(api, '#gauge-warning', 'output reserve');
    assert.match(warning, /output reserve of 16,000 tokens has shrunk to 1\d,\d{3}.*next compaction \(at 80%\)/);
    const colours = (view: 'chat' | 'inspector', selector: string) =>
      ui.evaluate<string[]>(
        view,
        `[...document.querySelectorAll('${selector}')].map((m) => getComputedStyle(m).backgroundColor)`,
      );
    for (const [view, selector] of [
      ['inspector', '.gauge-meter .gauge-mark'],
      ['chat', '.gauge-mark'],
    ] as const) {
      const c = await colours(view, selector);
      assert.equal(c.length, 3, `${view}: ${c.join(' ')}`);
      assert.equal(new Set(c).size, 3, `${view}: the marks share a colour: ${c.join(' ')}`);
    }
    assert.match(
      await ui.text('inspector', '#data-folder'),
      new RegExp(`Data folder: ${process.env.ENGRAM_DATA_DIR!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    const nav = await ui.evaluate<{ position: string; top: number }>(
      'inspector',
      `new Promise((resolve) => {
      document.getElementById('timeline-section').scrollIntoView({ block: 'start' });
      requestAnimationFrame(() => { const n = document.querySelector('.pane-nav'); resolve({ position: getComputedStyle(n).position, top: Math.round(n.getBoundingClientRect().top) }); });
    })`,
    );
    assert.deepEqual(nav, { position: 'sticky', top: 0 });
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    for (const [theme, kind] of [
      ['Default Light Modern', 'light'],
      ['Default Dark Modern', 'dark'],
    ] as const) {
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await waitUntil(
        `the ${kind} theme`,
        async () =>
          (await ui.evaluate<boolean>('inspector', `document.body.classList.contains('vscode-${kind}')`)) === true,
      );
      await ui.evaluate('inspector', "document.getElementById('gauge-section').scrollIntoView({ block: 'start' })");
      await ui.screenshot(`newcomer-gauge-${kind}`);
      await ui.evaluate('inspector', "document.getElementById('memory-section').scrollIntoView({ block: 'start' })");
      await ui.screenshot(`newcomer-memory-${kind}`);
    }
    await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
  });

  test("[ui] newcomer: no webview trips its content security policy (no inline style, the toolkit's probe has the nonce)", async () => {
    const api = await engram();
    // Only what the loads below print counts: an earlier suite injects a script and a handler on purpose.
    const from = cspMark();
    api.inspector()?.dispose();
    await openInspector(api);
    await vscode.commands.executeCommand('engram.focusChat');
    // A fresh load of the Chat view too ("Developer: Reload Webviews" reloads every webview), then one of
    // each toolkit element, whose templates are parsed the first time one is made.
    for (const view of ['inspector', 'chat'] as const) await ui.evaluate(view, 'window.__engramBeforeReload = true');
    await vscode.commands.executeCommand('workbench.action.webview.reloadWebviewAction');
    // The command returns before the webviews reload: wait for each new document (its marker gone), which
    // a loaded machine may take seconds to show, rather than reading the old one.
    const reloaded = async (view: 'inspector' | 'chat') => {
      try {
        return (await ui.evaluate(view, 'window.__engramBeforeReload ?? null')) === null;
      } catch {
        return false; // the frame is between two documents
      }
    };
    for (const view of ['inspector', 'chat'] as const)
      await waitUntil(`${view} to load again`, () => reloaded(view), 60_000);
    await ui.text('chat', '#prompt');
    await ui.text('inspector', '#gauge-section');
    for (const view of ['inspector', 'chat'] as const)
      assert.ok((await createEveryToolkitElement(view)).includes('vscode-button'), view);
    assert.deepEqual(await cspViolationsSince(from, ['inspector', 'chat']), []);
  });
});
