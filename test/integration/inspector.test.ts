import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { SUMMARY_REQUEST_MARKER } from '../../src/core/compaction/summaryPrompt';
import { projectDir } from '../../src/core/conversation/projectKey';
import { EXTRACTION_MARKER } from '../../src/core/memory/autoMemory/memoryPrompts';
import type { ScriptedReply } from '../../src/testServer/anthropicTestServer';
import { topicText, writeFile, writeMemoryFolder, writeTranscript } from '../unit/inspection/inspectorFixtures';
import { blockedAction, cspMark, cspViolationsSince } from './cspLog';
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
import { answerPrompts, expandGroup } from './inspectorSteps';
import { ui, waitUntil } from './ui';

// The Memory Inspector in the real host, read inside its webview: a scripted conversation (a Read of a
// file, session notes written by the forked updater, a full compaction by command) against the project's
// test server, with a fixture memory folder of 230 index lines. Then pruning with undo, the timeline and
// its diff and undo, keyboard navigation, the sources picker on a Claude Code folder, hostile text shown
// as text, and screenshots of every pane in a light and a dark theme.

const NOTES_MARKER = '<engram-session-notes-update>';
const XSS_IMG = '<img src=x onerror=window.__engramXss=1>';
const XSS_SCRIPT = '<script>window.__engramXss=2</script>';
const SUMMARY = `## Request and intent\nFix the greeting. ${XSS_SCRIPT}\n## Next step\nNone.`;

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const memoryDir = () => path.join(projectDir(process.env.ENGRAM_DATA_DIR!, workspace()), 'memory');

suite('memory inspector', () => {
  const server = useTestServer();
  // The Full Compact below applies at once (compactionPreview.test.ts covers the preview).
  useSettings([
    ['engram.sessionNotes', 'initTokens', 1000],
    ['engram.compaction', 'preview', false],
  ]);
  let notesPath = '';
  // Every load and pane of this suite stays within the webview's CSP; the XSS test's own injections
  // are the only violations it may print, and that test checks them itself.
  let cspFrom = 0;
  const deliberate: string[] = [];
  const claudeDir = () => path.join(process.env.ENGRAM_DATA_DIR!, '..', 'claude-config');

  suiteSetup(() => {
    cspFrom = cspMark();
    fs.rmSync(memoryDir(), { recursive: true, force: true });
    // 229 lines (a heading, 227 typed entries, one missing file), then a hostile one on line 2: 230 lines.
    writeMemoryFolder(memoryDir(), 229);
    // stray.md (a topic file with no index line) is written by the memory tree test itself: a session that
    // opens before it (the conversation test) would index it, as every session does with such a file.
    fs.rmSync(path.join(memoryDir(), 'stray.md'));
    const index = fs.readFileSync(path.join(memoryDir(), 'MEMORY.md'), 'utf8').split('\n');
    index.splice(1, 0, `- [${XSS_IMG}](xss.md) — ${XSS_SCRIPT}`);
    fs.writeFileSync(path.join(memoryDir(), 'MEMORY.md'), index.join('\n'));
    // A memory whose title, hook, name and description are hostile markup: shown as text, never run.
    writeFile(
      path.join(memoryDir(), 'xss.md'),
      `---\nname: "${XSS_IMG}"\ndescription: "${XSS_SCRIPT}"\ntype: user\n---\n\n${XSS_IMG}\n`,
    );
    fs.writeFileSync(path.join(workspace(), 'xss.txt'), `${XSS_IMG}\n${XSS_SCRIPT}\n`);
  });

  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    delete process.env.CLAUDE_CONFIG_DIR;
    (await engram()).inspector()?.dispose();
    (await engram()).chat().newChat();
    fs.rmSync(memoryDir(), { recursive: true, force: true });
    fs.rmSync(path.join(workspace(), 'xss.txt'), { force: true });
  });

  test('[ui] inspector: after a scripted conversation the gauge shows the percentage and marks, the notes their ten sections', async () => {
    const api = await freshChat();
    await openInspector(api);
    server().setResponder((body): ScriptedReply => {
      const text = lastUserText(body);
      if (text.includes(EXTRACTION_MARKER)) return { content: [{ type: 'text', text: 'Nothing new.' }] };
      if (text.includes(SUMMARY_REQUEST_MARKER))
        return { content: [{ type: 'text', text: `<analysis>ok</analysis>\n<summary>\n${SUMMARY}\n</summary>` }] };
      if (text.includes(NOTES_MARKER)) {
        notesPath = /\/[^\s`'"]*session-memory\/summary\.md/.exec(text)?.[0] ?? notesPath;
        if (!fs.readFileSync(notesPath, 'utf8').includes('Reading xss.txt')) {
          return {
            content: [
              {
                type: 'tool_use',
                name: 'Edit',
                input: {
                  file_path: notesPath,
                  old_string: '_What is in progress right now, what is still open, and the very next step_\n',
                  new_string: `_What is in progress right now, what is still open, and the very next step_\nReading xss.txt ${XSS_IMG} ${XSS_SCRIPT}\n`,
                },
              },
            ],
          };
        }
        return { content: [{ type: 'text', text: 'Notes updated.' }] };
      }
      const answered = body.messages.some(
        (m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'),
      );
      if (!answered)
        return {
          content: [{ type: 'tool_use', name: 'Read', input: { file_path: path.join(workspace(), 'xss.txt') } }],
          usage: { input_tokens: 3000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 20 },
        };
      // 129,000 + 1,000 = 130,000 of the 200,000-token window: 65%, past the 60% mark, before the 80% one.
      return {
        content: [{ type: 'text', text: 'The file holds markup; I left it alone.' }],
        usage: {
          input_tokens: 129_000,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1000,
        },
      };
    });
    await sendFromUi('What is in xss.txt?');
    await ui.waitForText('chat', '.item-assistant', 'I left it alone', 45_000);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 30_000);
    await api.chat().idleForTests();
    assert.ok(notesPath, 'the notes updater was not called');

    const gauge = api.chat().gauge();
    const percent = Math.round((gauge.usedTokens / gauge.window) * 100);
    assert.equal(percent, 65);
    assert.equal(api.statusBar.text, '$(pulse) 65%', 'the status bar shows the same number');
    assert.equal((await refreshUntil(api, '#gauge-percent', '65%')).trim(), '65%');
    assert.equal(
      await ui.evaluate('inspector', "document.querySelector('#gauge-section .gauge').dataset.level"),
      'mid',
    );
    assert.deepEqual(
      await ui.evaluate(
        'inspector',
        "[...document.querySelectorAll('#gauge-section .gauge-mark')].map((m) => m.dataset.mark)",
      ),
      ['60', '80', '100'],
    );
    assert.match(
      await ui.text('inspector', '#gauge-summary'),
      /130,0\d\d used · 16,000 reserved for output · 5\d,\d{3} free · window 200,000 tokens/,
    );
    assert.match(await ui.text('inspector', '.breakdown'), /Messages/);
    assert.equal(
      await ui.evaluate('inspector', "document.querySelector('.gauge-meter').getAttribute('aria-valuenow')"),
      '65',
    );

    await refreshUntil(api, '#notes-section', 'Reading xss.txt');
    const headings = await ui.evaluate<string[]>(
      'inspector',
      "[...document.querySelectorAll('#notes-section .notes-section h3')].map((h) => h.textContent)",
    );
    assert.deepEqual(headings, [
      'Session Title',
      'Current State',
      'Task specification',
      'Files and Functions',
      'Workflow',
      'Errors & Corrections',
      'Codebase and System Documentation',
      'Learnings',
      'Key results',
      'Worklog',
    ]);
    assert.match(
      await ui.text('inspector', '.notes-section[aria-label="Current State"] .section-tokens'),
      /^\d+ \/ 2,000 tokens$/,
    );
    assert.match(
      await ui.text('inspector', '.notes-facts'),
      /Last updated .* · covers up to response \d+ of \d+ · [\d,]+ \/ 12,000 tokens in all/,
    );
    await ui.click('inspector', '#open-notes');
    await waitUntil(
      'the notes to open in an editor',
      () => vscode.window.activeTextEditor?.document.uri.fsPath === notesPath,
    );
    await openInspector(api);
  });

  test('[ui] inspector: the memory tree lists the fixture memories by type, with a cut-off line at 200', async () => {
    writeFile(path.join(memoryDir(), 'stray.md'), topicText('Stray', 'project'));
    const api = await engram();
    await openInspector(api);
    await refreshUntil(api, '#memory-summary', 'MEMORY.md 230 of 200 lines');
    const byType = await ui.evaluate<Record<string, number>>(
      'inspector',
      "Object.fromEntries(['user','feedback','project','reference'].map((t) => [t, document.querySelectorAll(`.tree-group.type-${t} [role=treeitem]`).length]))",
    );
    // 227 entries cycle through the four types, and the hostile one is a user memory.
    assert.deepEqual(byType, { user: 57, feedback: 57, project: 57, reference: 57 });
    assert.equal(
      await ui.evaluate(
        'inspector',
        "document.querySelector('[data-file=\"feedback_001.md\"]').closest('.tree-group').dataset.key",
      ),
      'group:type:feedback',
    );
    const cutoffs = await ui.evaluate<string[]>(
      'inspector',
      "[...document.querySelectorAll('#memory-tree .cutoff')].map((c) => c.textContent)",
    );
    assert.equal(cutoffs.length, 5, 'one cut-off line in each type group, and in the missing files (line 230)');
    assert.match(cutoffs[0], /Cut-off: MEMORY\.md line 200/);
    // Every entry after a cut-off line is marked cut, every one before it is loaded.
    const around = await ui.evaluate<Array<{ before: boolean; after: boolean; badge: boolean }>>(
      'inspector',
      `[...document.querySelectorAll('#memory-tree .cutoff')]
      .map((c) => ({ before: !!c.previousElementSibling?.classList.contains('cut'), after: !!c.nextElementSibling?.classList.contains('cut'), badge: !!c.nextElementSibling?.querySelector('.badge-cut') }))`,
    );
    assert.deepEqual(
      around,
      around.map(() => ({ before: false, after: true, badge: true })),
    );
    // Lines 201-230: 29 typed entries and the missing file.
    assert.equal(await ui.count('inspector', '#memory-tree .tree-entry.cut'), 30);
    assert.match(await ui.text('inspector', '[data-key="group:missing"]'), /missing\.md|Gone/);
    assert.match(await ui.text('inspector', '[data-key="group:unindexed"] [data-file="stray.md"]'), /Stray.*stray\.md/);
    assert.match(await ui.text('inspector', '[data-key="group:team"]'), /Team rule/);
    // The index-order view has a single cut-off line at 200.
    await ui.click('inspector', '#group-by-line');
    assert.equal(await ui.count('inspector', '#memory-tree .cutoff'), 1);
    assert.match(
      await ui.evaluate<string>(
        'inspector',
        "document.querySelector('#memory-tree .cutoff').nextElementSibling.dataset.key",
      ),
      /:201$/,
    );
    await ui.click('inspector', '#group-by-type');
    // Details of a selected entry: hook, tokens, age, provenance.
    await ui.click('inspector', '[data-file="feedback_001.md"] > .tree-row');
    const details = await ui.text('inspector', '#entry-details');
    assert.match(details, /feedback_001\.md/);
    assert.match(details, /hook of entry 1/);
    assert.match(details, /session session-origin-1/);
    assert.match(details, /line 3 · loaded/);
  });

  test('[ui] inspector: pruning and undo restore the exact file bytes and index line (inspector and notification)', async () => {
    const api = await engram();
    await openInspector(api);
    const file = path.join(memoryDir(), 'reference_003.md');
    const indexFile = path.join(memoryDir(), 'MEMORY.md');
    const bytes = fs.readFileSync(file);
    const index = fs.readFileSync(indexFile);
    await refreshUntil(api, '#memory-tree', 'Entry 3');
    await ui.click('inspector', '[data-file="reference_003.md"] > .tree-row');
    await ui.click('inspector', '#entry-prune');
    await waitUntil('the file to leave', () => !fs.existsSync(file));
    assert.doesNotMatch(fs.readFileSync(indexFile, 'utf8'), /reference_003\.md/);
    await ui.waitForText('inspector', '#inspector-status', 'Pruned "Entry 3"');
    // Undo from the inspector's trash.
    await expandGroup('group:trash');
    await ui.click('inspector', '.tree-trash > .tree-row');
    await ui.click('inspector', '#trash-restore');
    // The file moves back first, then the index line: wait for both.
    await waitUntil(
      'the file and its line to come back',
      () => fs.existsSync(file) && fs.readFileSync(indexFile).equals(index),
    );
    assert.deepEqual(fs.readFileSync(file), bytes);
    assert.deepEqual(fs.readFileSync(indexFile), index);
    // Undo from the notification (here the Delete key prunes, and Undo is chosen once the file is gone).
    let clickUndo: (undo: boolean) => void = () => undefined;
    const prompts = answerPrompts(api, {
      confirm: [],
      undo: new Promise<boolean>((resolve) => {
        clickUndo = resolve;
      }),
    });
    try {
      await refreshUntil(api, '#memory-tree', 'Entry 3');
      await ui.click('inspector', '[data-file="reference_003.md"] > .tree-row');
      await ui.press('Delete');
      await waitUntil('the file to leave again', () => !fs.existsSync(file));
      assert.deepEqual(prompts.asked, [
        'undo: Pruned "Entry 3": its line left MEMORY.md and the file is in the trash.',
      ]);
      clickUndo(true);
      await waitUntil(
        "the notification's Undo to restore it",
        () => fs.existsSync(file) && fs.readFileSync(indexFile).equals(index),
      );
    } finally {
      prompts.restore();
    }
    assert.deepEqual(fs.readFileSync(file), bytes);
    assert.deepEqual(fs.readFileSync(indexFile), index);
    await waitUntil(
      'the trash to be empty',
      () =>
        !fs.existsSync(path.join(memoryDir(), '.trash')) ||
        fs.readdirSync(path.join(memoryDir(), '.trash')).length === 0,
    );
  });

  test("[ui] inspector: rename and change type from the details, through VS Code's input box and quick pick", async () => {
    const api = await engram();
    await openInspector(api);
    const file = path.join(memoryDir(), 'feedback_005.md');
    await refreshUntil(api, '#memory-tree', 'Entry 5');
    await ui.click('inspector', '[data-file="feedback_005.md"] > .tree-row');
    await ui.click('inspector', '#entry-type');
    await ui.quickPick('project');
    await waitUntil('the type to change', () => /^type: project$/m.test(fs.readFileSync(file, 'utf8')));
    await refreshUntil(api, '[data-key="group:type:project"]', 'Entry 5');
    await ui.click('inspector', '[data-file="feedback_005.md"] > .tree-row');
    await ui.click('inspector', '#entry-rename');
    await ui.workbenchText('.quick-input-widget .quick-input-message:has-text("The title of its line")');
    await ui.clickWorkbench('.quick-input-widget input');
    for (const key of ['End', 'Space', 'b', 'i', 's', 'Enter']) await ui.press(key);
    await ui.workbenchText('.quick-input-widget .quick-input-message:has-text("The topic file")');
    await ui.clickWorkbench('.quick-input-widget input');
    await ui.press('Enter'); // keeps the file name
    await waitUntil('the index line to change', () =>
      fs
        .readFileSync(path.join(memoryDir(), 'MEMORY.md'), 'utf8')
        .includes('- [Entry 5 bis](feedback_005.md) — hook of entry 5'),
    );
    await ui.waitForText('inspector', '#inspector-status', 'Renamed "Entry 5 bis"');
  });

  test('[ui] inspector: keyboard moves through the tree; groups open and close; labels for screen readers', async () => {
    const api = await engram();
    await openInspector(api);
    await refreshUntil(api, '#memory-tree', 'Entry 1');
    assert.equal(await ui.evaluate('inspector', "document.getElementById('memory-tree').getAttribute('role')"), 'tree');
    await ui.click('inspector', '[data-key="group:instructions"] > .tree-row');
    await ui.click('inspector', '[data-key="group:instructions"] > .tree-row'); // closed, then open again
    await ui.press('ArrowDown');
    const focused = await ui.evaluate<{ key: string; selected: string | null; label: string | null }>(
      'inspector',
      '({ key: document.activeElement.dataset.key, selected: document.activeElement.getAttribute("aria-selected"), label: document.activeElement.getAttribute("aria-label") })',
    );
    assert.equal(focused.key, 'group:type:user');
    assert.equal(focused.selected, 'true');
    await ui.press('ArrowRight');
    const entry = await ui.evaluate<string>('inspector', 'document.activeElement.getAttribute("aria-label")');
    assert.match(entry, /, User, loaded, \d+ tok, line \d+, (never used|used \d+×)$/);
    await ui.press('ArrowLeft');
    await ui.press('ArrowLeft');
    assert.equal(
      await ui.evaluate(
        'inspector',
        "document.querySelector('[data-key=\"group:type:user\"]').getAttribute('aria-expanded')",
      ),
      'false',
    );
    await ui.press('ArrowRight');
    await ui.press('End');
    assert.equal(await ui.evaluate('inspector', 'document.activeElement.getAttribute("role")'), 'treeitem');
    assert.match(
      await ui.evaluate<string>(
        'inspector',
        "document.getElementById('timeline-list')?.getAttribute('aria-label') ?? ''",
      ),
      /^Timeline: \d+ events$/,
    );
  });

  test('[ui] inspector: the timeline lists the compaction the run made, with its summary, replaced messages, diff and undo', async () => {
    const api = await engram();
    await openInspector(api);
    const ok = await vscode.commands.executeCommand<boolean>('engram.fullCompact', 'the greeting');
    assert.equal(ok, true, 'the full compaction did not run');
    await refreshUntil(api, '#timeline-list', 'full compact');
    const items = await ui.evaluate<string[]>(
      'inspector',
      "[...document.querySelectorAll('#timeline-list .timeline-item')].map((li) => li.className)",
    );
    assert.ok(
      items.some((c) => c.includes('timeline-notes')),
      items.join(' '),
    );
    const compactions = items.filter((c) => c.includes('timeline-compaction'));
    assert.equal(compactions.length, 1, items.join(' '));
    const label = await ui.evaluate<string>(
      'inspector',
      "document.querySelector('.timeline-compaction .timeline-button').getAttribute('aria-label')",
    );
    assert.match(label, /Compaction: full compact, manual · [\d,]+ → [\d,]+ tokens · \d+ ms · 1 model call/);
    await ui.click('inspector', '.timeline-compaction .timeline-button');
    await ui.waitForText('inspector', '#compaction-summary', 'Fix the greeting');
    await ui.waitForText('inspector', '#replaced-messages', 'What is in xss.txt?');
    assert.match(await ui.text('inspector', '#replaced-messages'), /\[tool result\]/);
    await ui.click('inspector', '#compaction-diff');
    await waitUntil(
      'a diff editor',
      () => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff,
    );
    const diff = vscode.window.tabGroups.activeTabGroup.activeTab!.input as vscode.TabInputTextDiff;
    const left = (await vscode.workspace.openTextDocument(diff.original)).getText();
    const right = (await vscode.workspace.openTextDocument(diff.modified)).getText();
    assert.match(left, /^## 1\. user\n\n[\s\S]*What is in xss\.txt\?/);
    assert.match(right, /Fix the greeting/);
    await ui.screenshot('inspector-compaction-diff');
    await openInspector(api);
    await ui.click('inspector', '.timeline-compaction .timeline-button');
    await ui.click('inspector', '#compaction-undo');
    await ui.waitForText('inspector', '#inspector-status', 'Compaction undone');
    await refreshUntil(api, '#timeline-list', 'undo');
    assert.equal(await ui.count('inspector', '#compaction-undo'), 0, 'an undone compaction cannot be undone again');
  });

  test('[ui] inspector: a memory file, a note and a tool result with <img onerror> and <script> are shown as text; no script runs', async () => {
    const api = await engram();
    const mark = cspMark();
    await openInspector(api);
    await refreshUntil(api, '#memory-tree', XSS_IMG);
    await ui.click('inspector', '[data-file="xss.md"] > .tree-row');
    const details = await ui.text('inspector', '#entry-details');
    assert.ok(details.includes(XSS_IMG) && details.includes(XSS_SCRIPT), details);
    await ui.waitForText('inspector', '#notes-section', XSS_IMG);
    assert.ok((await ui.text('inspector', '.notes-section[aria-label="Current State"]')).includes(XSS_SCRIPT));
    await ui.click('inspector', '.timeline-compaction .timeline-button');
    await ui.waitForText('inspector', '#replaced-messages', XSS_IMG);
    assert.ok((await ui.text('inspector', '#replaced-messages')).includes(XSS_SCRIPT));
    const probe = `new Promise((resolve) => setTimeout(() => resolve({
      xss: window.__engramXss ?? null,
      images: document.querySelectorAll('img').length,
      hostileScripts: [...document.scripts].filter((s) => (s.textContent ?? '').includes('__engramXss')).length,
      ours: document.querySelectorAll('script[src*="inspector.js"]').length,
    }), 300))`;
    assert.deepEqual(await ui.evaluate('inspector', probe), { xss: null, images: 0, hostileScripts: 0, ours: 1 });
    // Markup that reached the DOM as markup would have tripped the CSP (its handler, a style): none did.
    assert.deepEqual(await cspViolationsSince(mark), []);
    const injected = cspMark();
    // The CSP blocks anything else: an injected inline script and an inline event handler do not run.
    const blocked = await ui.evaluate(
      'inspector',
      `new Promise((resolve) => {
      const s = document.createElement('script'); s.textContent = 'window.__engramXss = "inline"'; document.body.append(s);
      const d = document.createElement('div'); d.innerHTML = '<img src=x onerror="window.__engramXss = \\'handler\\'">'; document.body.append(d);
      setTimeout(() => { const r = window.__engramXss ?? null; d.remove(); s.remove(); resolve(r); }, 500);
    })`,
    );
    assert.equal(blocked, null);
    const refused = await cspViolationsSince(injected);
    assert.deepEqual(refused.map(blockedAction), ['Executing inline script', 'Executing inline event handler']);
    deliberate.push(...refused);
    // The Chat view shows the tool result as text too.
    await vscode.commands.executeCommand('engram.focusChat');
    assert.ok((await ui.text('chat', '.tool-result')).includes(XSS_IMG));
    assert.equal(await ui.evaluate('chat', 'window.__engramXss ?? null'), null);
    assert.equal(await ui.evaluate('chat', "document.querySelectorAll('.item img').length"), 0);
  });

  test("[ui] inspector: the sources picker opens Claude Code's folder read-only; pruning there asks first", async () => {
    const api = await engram();
    const root = claudeDir();
    process.env.CLAUDE_CONFIG_DIR = root;
    const project = path.join(root, 'projects', '-home-me-demo');
    writeTranscript(path.join(project, 'cc-session.jsonl'), 'cc-session', '/home/me/demo');
    writeFile(
      path.join(project, 'memory', 'MEMORY.md'),
      '- [Use pnpm](use_pnpm.md) — not npm\n- [Deploys](deploys.md) — on Fridays\n',
    );
    writeFile(path.join(project, 'memory', 'use_pnpm.md'), topicText('Use pnpm', 'feedback'));
    writeFile(path.join(project, 'memory', 'deploys.md'), topicText('Deploys', 'project'));
    await openInspector(api);
    // The picker runs in the browser's quick input; on a slow machine a step can close under the bridge
    // before it types. Then the whole choice is made again (the assertions below check its outcome).
    for (let attempt = 1; ; attempt++) {
      try {
        await ui.press('Escape');
        await ui.click('inspector', '#pick-source');
        for (const row of ["Claude Code's folder", '-home-me-demo', 'cc-session']) await ui.quickPick(row);
        break;
      } catch (error) {
        if (attempt === 3) {
          await ui.screenshot('inspector-debug-picker').catch(() => undefined);
          throw error;
        }
      }
    }
    await ui.waitForText('inspector', '#source-label', 'Claude Code');
    assert.match(await ui.text('inspector', '.inspector-header'), /read-only/);
    await ui.waitForText('inspector', '#memory-tree', 'Use pnpm');
    await ui.waitForText('inspector', '#timeline-list', 'full compact');
    assert.match(await ui.text('inspector', '#gauge-percent'), /^\d+%$/);
    await ui.click('inspector', '[data-file="use_pnpm.md"] > .tree-row');
    assert.equal(await ui.count('inspector', '#entry-rename'), 0, 'no rename in a read-only source');
    // Pruning asks first (Claude Code may be writing there); "No" changes nothing, "Prune" prunes.
    const prompts = answerPrompts(api, { confirm: [false, true, false, true] });
    try {
      await ui.click('inspector', '#entry-prune');
      await waitUntil('the question', () => prompts.asked.length === 1);
      assert.match(
        prompts.asked[0],
        /^confirm: Prune "Use pnpm" from Claude Code's memory\? \| Claude Code may be running .* \| Prune$/,
      );
      assert.ok(fs.existsSync(path.join(project, 'memory', 'use_pnpm.md')), 'declining changed nothing');
      await ui.click('inspector', '#entry-prune');
      await waitUntil(
        'the Claude Code memory to be pruned',
        () => !fs.existsSync(path.join(project, 'memory', 'use_pnpm.md')),
      );
      assert.equal(
        fs.readFileSync(path.join(project, 'memory', 'MEMORY.md'), 'utf8'),
        '- [Deploys](deploys.md) — on Fridays\n',
      );
      // Deleting a pruned entry for good is a second question; declining keeps it in the trash.
      await expandGroup('group:trash');
      await ui.click('inspector', '.tree-trash > .tree-row');
      await ui.click('inspector', '#trash-delete');
      await waitUntil('the second question', () => prompts.asked.length === 4);
      assert.match(prompts.asked[2], /^undo: Pruned "Use pnpm"/);
      assert.match(
        prompts.asked[3],
        /^confirm: Delete the pruned memory use_pnpm\.md for good\? \| It can no longer be restored afterwards\. \| Delete for good$/,
      );
      const trash = path.join(project, 'memory', '.trash');
      assert.equal(fs.readdirSync(trash).length, 1, 'declining kept it');
      await ui.click('inspector', '#trash-delete');
      await waitUntil('the pruned entry to be deleted for good', () => fs.readdirSync(trash).length === 0);
    } finally {
      prompts.restore();
    }
    await ui.screenshot('inspector-claude-source');
    await ui.click('inspector', '#use-current');
    await ui.waitForText('inspector', '#source-label', 'Current session');
  });

  test('[ui] inspector: screenshots of each pane in light and dark themes', async () => {
    const api = await engram();
    await openInspector(api);
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    for (const [theme, kind] of [
      ['Default Light Modern', 'light'],
      ['Default Dark Modern', 'dark'],
    ] as const) {
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await waitUntil(
        `the ${kind} theme in the webview`,
        async () =>
          (await ui.evaluate<boolean>('inspector', `document.body.classList.contains('vscode-${kind}')`)) === true,
      );
      await refreshUntil(api, '#memory-tree', 'Entry 1');
      await ui.click('inspector', '[data-file="feedback_001.md"] > .tree-row');
      await ui.click('inspector', '.timeline-compaction .timeline-button');
      await ui.waitForText('inspector', '#replaced-messages', 'What is in xss.txt?');
      for (const pane of ['gauge', 'notes', 'memory', 'timeline']) {
        await ui.evaluate('inspector', `document.getElementById('${pane}-section').scrollIntoView({ block: 'start' })`);
        const shot = await ui.screenshot(`inspector-${pane}-${kind}`);
        assert.ok(shot.bytes > 10_000, `${shot.file} is too small`);
      }
    }
    await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
  });

  test("[ui] inspector: nothing in this suite tripped the webview's CSP but the XSS test's own injections", async () => {
    await openInspector(await engram());
    await vscode.commands.executeCommand('engram.focusChat');
    const violations = await cspViolationsSince(cspFrom, ['inspector', 'chat']);
    assert.deepEqual(
      violations.filter((line) => !deliberate.includes(line)),
      [],
    );
  });
});
