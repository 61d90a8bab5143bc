import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { SUMMARY_SECTIONS } from '../../src/core/compaction/summaryPrompt';
import { projectDir } from '../../src/core/conversation/projectKey';
import { DEFAULT_TEMPLATE } from '../../src/core/memory/sessionNotes/template';
import type { EngramApi } from '../../src/extension';
import { engram, freshChat, openInspector, refreshUntil, sendFromUi } from './support';
import { ui, waitUntil } from './ui';

// The first hour, as a newcomer walks it: no API key, the offline demo model, the Chat view and the
// Memory Inspector, clicked and typed through the real workbench. Each step checks what a person would
// see and what landed on disk, and leaves a screenshot in a light and a dark theme (and, in the runner's
// zh-cn phase, once more with Engram in Simplified Chinese) under test-artifacts/screenshots/walkthrough/.
// The steps run in order and build on each other, as they would for a person; a step the product cannot
// do fails here rather than being skipped.

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const project = () => projectDir(process.env.ENGRAM_DATA_DIR!, workspace());
const memoryDir = () => path.join(project(), 'memory');
const chinese = () => /^zh/i.test(vscode.env.language);
/** The same expectation in the display language the runner's phase set. */
const say = (en: RegExp, zh: RegExp): RegExp => (chinese() ? zh : en);
const HAN = /[\u4e00-\u9fff]/;
/** What the newcomer types, in the display language (the demo model understands both). */
const PROMPTS = {
  remember: ['remember that I prefer tabs over spaces', '记住：我喜欢用 tabs 而不是空格'],
  recall: ['what do you remember?', '你记得什么？'],
  edit: ['edit src/greet.js: replace Hello with Welcome', '编辑 src/greet.js：把 Hello 替换为 Welcome'],
  talk: [
    ['read README.md', 'search for greet', 'list the files'],
    ['读取 README.md', '搜索 greet', '列出文件'],
  ],
} as const;
const typed = <K extends keyof typeof PROMPTS>(key: K): (typeof PROMPTS)[K][number] => PROMPTS[key][chinese() ? 1 : 0];

const THEMES = [
  ['light', 'Default Light Modern'],
  ['dark', 'Default Dark Modern'],
] as const;

async function setTheme(kind: 'light' | 'dark', theme: string, api: EngramApi): Promise<void> {
  await vscode.workspace.getConfiguration('workbench').update('colorTheme', theme, vscode.ConfigurationTarget.Global);
  const views = api.inspector() ? (['chat', 'inspector'] as const) : (['chat'] as const);
  for (const view of views) {
    await waitUntil(
      `the ${kind} theme in the ${view} webview`,
      async () => (await ui.evaluate<boolean>(view, `document.body.classList.contains('vscode-${kind}')`)) === true,
    );
  }
}

/** A screenshot of the step in both themes (English), or in the light theme (Chinese). */
async function shoot(api: EngramApi, step: string): Promise<void> {
  const runs = chinese()
    ? [['zh-cn', 'light', THEMES[0][1]] as const]
    : THEMES.map(([kind, theme]) => [kind, kind, theme] as const);
  for (const [label, kind, theme] of runs) {
    await setTheme(kind, theme, api);
    const shot = await ui.screenshot(`walkthrough/${step}-${label}`);
    assert.ok(shot.bytes > 10_000, `${shot.file} is too small to show anything`);
  }
}

/** Sends a prompt from the Chat view and waits for the turn (and the memory work after it) to end. */
async function ask(api: EngramApi, text: string): Promise<void> {
  const before = api.chat().snapshot().items.length;
  await sendFromUi(text);
  await waitUntil(
    `"${text}" to be answered`,
    () => api.chat().snapshot().items.length > before && !api.chat().snapshot().busy,
    60_000,
  );
}

/** The text of the newest assistant reply in the Chat view. */
async function lastReply(): Promise<string> {
  return ui.evaluate<string>('chat', "[...document.querySelectorAll('.item-assistant')].pop()?.textContent ?? ''");
}

/** What offers Undo after a prune: the inspector's status line, or VS Code's notification. */
async function findToast(undo: string): Promise<{ text: string; clickUndo: () => Promise<unknown> }> {
  const inWorkbench = `.notification-toast:has(.monaco-button:has-text("${undo}"))`;
  const end = Date.now() + 15_000;
  while (Date.now() < end) {
    if ((await ui.count('inspector', '#inspector-status #status-undo')) > 0) {
      return {
        text: await ui.text('inspector', '#inspector-status'),
        clickUndo: () => ui.click('inspector', '#status-undo'),
      };
    }
    const text = await ui.workbenchText(inWorkbench, 500).catch(() => undefined);
    if (text !== undefined)
      return { text, clickUndo: () => ui.clickWorkbench(`${inWorkbench} .monaco-button:has-text("${undo}")`) };
  }
  throw new Error(`nothing offers ${undo} after pruning, in the inspector or the workbench`);
}

/** Lines of the notes file that are neither the template's headings and guide lines nor blank. */
function notesContent(text: string): string[] {
  const template = new Set(DEFAULT_TEMPLATE.split('\n'));
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !template.has(l));
}

/** The labels of the editor tabs. */
const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label));

/** Answers the rewind's modal (VS Code shows none while extension tests run): Rewind, and what it asked. */
function confirmRewinds(api: EngramApi): { asked: string[]; restore: () => void } {
  const asked: string[] = [];
  const restore = api.replaceRewindPromptsForTests({
    confirm: async (message, detail) => {
      asked.push(`${message} ${detail}`);
      return true;
    },
    tell: async (_level, message) => {
      asked.push(message);
      return undefined;
    },
    pickFiles: async () => undefined,
  });
  return { asked, restore };
}

function topicFiles(): string[] {
  if (!fs.existsSync(memoryDir())) return [];
  return fs.readdirSync(memoryDir()).filter((f) => f.endsWith('.md') && f !== 'MEMORY.md');
}

function walkthrough(tag: string): void {
  suite(`newcomer walkthrough${tag}`, function () {
    // A step waits for the demo's turns and the memory work after them, and shoots two themes.
    this.timeout(180_000);
    const saved: Record<string, string | undefined> = {};
    let api: EngramApi;
    /** The topic file "remember" wrote (step 2), pruned and restored in step 8. */
    let remembered = '';

    suiteSetup(async () => {
      api = await engram();
      // A newcomer has no key anywhere: not in the environment (other suites set one), not in Secret Storage.
      for (const key of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']) {
        saved[key] = process.env[key];
        delete process.env[key];
      }
      await vscode.commands.executeCommand('engram.clearApiKey');
      await vscode.workspace
        .getConfiguration('engram')
        .update('offlineDemo', undefined, vscode.ConfigurationTarget.Global);
      // The view looks again as it would in a freshly started VS Code (the env var's removal fires nothing).
      await api.chat().refreshSetup();
      api.inspector()?.dispose();
      api.chat().newChat();
      // An empty memory and the sample workspace as it ships (other suites edit greet.js).
      fs.rmSync(memoryDir(), { recursive: true, force: true });
      fs.copyFileSync(
        path.join(process.env.ENGRAM_REPO_ROOT!, 'test', 'fixtures', 'workspace', 'src', 'greet.js'),
        path.join(workspace(), 'src', 'greet.js'),
      );
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    suiteTeardown(async () => {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
      await vscode.workspace
        .getConfiguration('engram')
        .update('offlineDemo', undefined, vscode.ConfigurationTarget.Global);
      api.inspector()?.dispose();
      api.chat().newChat();
    });

    // What a failed step left on screen, to see why.
    teardown(async function () {
      const step = /walkthrough.* (\d+):/.exec(this.currentTest?.title ?? '')?.[1];
      if (this.currentTest?.state === 'failed' && step)
        await ui.screenshot(`walkthrough/failed-${step}${chinese() ? '-zh-cn' : ''}`).catch(() => undefined);
    });

    /** Later steps need the demo model even when step 1's screen is missing (step 1 fails for that). */
    async function ensureDemo(): Promise<void> {
      if (vscode.workspace.getConfiguration('engram').get('offlineDemo') === true) return;
      await vscode.workspace.getConfiguration('engram').update('offlineDemo', true, vscode.ConfigurationTarget.Global);
    }

    test(`[ui] walkthrough${tag} 1: the first-run screen offers an API key, a base URL or the offline demo`, async () => {
      await freshChat();
      await setTheme('light', THEMES[0][1], api);
      const screen = await ui.text('chat', '#setup');
      if (chinese()) {
        assert.equal(await ui.evaluate('chat', 'document.documentElement.lang'), vscode.env.language);
        assert.match(screen, HAN, `the first-run screen is not in Chinese: ${screen}`);
      }
      for (const choice of ['apiKey', 'baseUrl', 'demo']) await ui.text('chat', `#setup-${choice}`);
      assert.match(await ui.text('chat', '#setup-demo'), say(/demo/i, /演示/));
      await shoot(api, '01-first-run');
      await ui.click('chat', '#setup-demo');
      await waitUntil(
        'the demo model to be chosen',
        () => vscode.workspace.getConfiguration('engram').get('offlineDemo') === true,
      );
      // The screen gives way to the empty chat, which says the demo answers.
      await ui.waitForText('chat', '.chat-empty .chat-model', chinese() ? '演示' : 'demo');
      assert.equal(await ui.count('chat', '#setup'), 0, 'the first-run screen stays after the choice');
    });

    test(`[ui] walkthrough${tag} 2: "remember" writes a typed topic file and its MEMORY.md line`, async () => {
      await ensureDemo();
      await freshChat();
      await ask(api, typed('remember'));
      await api.chat().idleForTests();
      const files = topicFiles();
      remembered = files.find((f) => /tabs/i.test(fs.readFileSync(path.join(memoryDir(), f), 'utf8'))) ?? '';
      assert.ok(
        remembered,
        `no topic file about tabs in ${memoryDir()}: ${JSON.stringify(files)}; the chat said: ${await lastReply()}`,
      );
      const topic = fs.readFileSync(path.join(memoryDir(), remembered), 'utf8');
      assert.match(
        topic,
        /^---\n[\s\S]*^type: (user|feedback|project|reference)$[\s\S]*^---$/m,
        `the topic file has no typed front matter:\n${topic}`,
      );
      const index = fs.readFileSync(path.join(memoryDir(), 'MEMORY.md'), 'utf8');
      assert.ok(
        index.split('\n').some((l) => l.includes(`(${remembered})`)),
        `MEMORY.md has no line for ${remembered}:\n${index}`,
      );
      assert.doesNotMatch(
        await lastReply(),
        /<[a-z-]+>|memory writer instructions/i,
        'the reply shows no internal prompt',
      );
      await openInspector(api);
      await api.inspector()!.refresh();
      await ui.click('inspector', `[data-file="${remembered}"] > .tree-row`);
      assert.match(await ui.text('inspector', '#entry-details'), /tabs/i);
      await ui.evaluate('inspector', "document.getElementById('memory-section').scrollIntoView({ block: 'start' })");
      await shoot(api, '02-remember');
    });

    test(`[ui] walkthrough${tag} 3: "what do you remember?" answers with the tabs preference`, async () => {
      await ensureDemo();
      await vscode.commands.executeCommand('engram.focusChat');
      await ask(api, typed('recall'));
      const reply = await lastReply();
      assert.match(reply, /tabs/i, `the reply does not mention tabs: ${reply}`);
      await shoot(api, '03-recall');
    });

    test(`[ui] walkthrough${tag} 4: an edit asks first with a diff; approved, the file changes on disk`, async () => {
      await ensureDemo();
      await vscode.commands.executeCommand('engram.focusChat');
      const file = path.join(workspace(), 'src', 'greet.js');
      const before = fs.readFileSync(file, 'utf8');
      await sendFromUi(typed('edit'));
      const prompt = await ui.text('chat', '.item-permission', 45_000);
      assert.equal(fs.readFileSync(file, 'utf8'), before, 'nothing changes before the approval');
      await shoot(api, '04-permission');
      // Answered before the checks, so that a failed one leaves no turn waiting for the next step.
      await ui.click('chat', '[id^="allow-once-"]');
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 45_000);
      assert.ok(
        prompt.includes('Hello') && prompt.includes('Welcome'),
        `the permission prompt shows no diff of the change: ${prompt}`,
      );
      assert.equal(fs.readFileSync(file, 'utf8'), before.replace('Hello', 'Welcome'));
      assert.match(await ui.text('chat', '.permission-answer'), say(/Allowed once/, /允许/));
      // The turn's checkpoint: "1 file changed" under it, which opens the turn's diff of greet.js.
      await ui.waitForText('chat', '.item-changes', chinese() ? '更改了 1 个文件' : '1 file changed', 20_000);
      await ui.click('chat', '.item-changes .changes-open');
      await waitUntil('the turn diff of greet.js to open', () => tabs().some((l) => l.includes('greet.js'))).catch(
        (e: unknown) => {
          throw new Error(`${String(e)}; tabs: ${JSON.stringify(tabs())}`);
        },
      );
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    test(`[ui] walkthrough${tag} 5: the session notes fill with what happened, in the file and the inspector`, async () => {
      await ensureDemo();
      await vscode.commands.executeCommand('engram.focusChat');
      const sessionId = api.chat().currentSessionId;
      assert.ok(sessionId, 'no session is open');
      const notesFile = path.join(project(), sessionId, 'session-memory', 'summary.md');
      // A newcomer keeps talking; the notes update as the conversation grows (the demo's settings).
      for (const prompt of typed('talk')) {
        // Until the notes have caught up with the edit of step 4 (the first update may come before it).
        if (
          fs.existsSync(notesFile) &&
          notesContent(fs.readFileSync(notesFile, 'utf8')).length >= 3 &&
          /greet\.js/.test(fs.readFileSync(notesFile, 'utf8'))
        )
          break;
        await ask(api, prompt);
        await api.chat().idleForTests();
      }
      assert.ok(fs.existsSync(notesFile), `no session notes at ${notesFile}`);
      const notes = fs.readFileSync(notesFile, 'utf8');
      const content = notesContent(notes);
      assert.ok(content.length >= 3, `the notes are still the template:\n${notes}`);
      assert.match(notes, /greet\.js/, `the notes do not name the edited file:\n${notes}`);
      assert.match(notes, /tabs/i, `the notes do not mention the first request:\n${notes}`);
      await openInspector(api);
      await refreshUntil(api, '#notes-section', 'greet.js');
      await ui.evaluate('inspector', "document.getElementById('notes-section').scrollIntoView({ block: 'start' })");
      await shoot(api, '05-notes');
    });

    test(`[ui] walkthrough${tag} 6: /compact adds a compaction to the timeline with the summary's sections`, async () => {
      await ensureDemo();
      await vscode.commands.executeCommand('engram.focusChat');
      await sendFromUi('/compact');
      // The summary opens for review first (engram.compaction.preview, on by default): apply it as it is.
      const preview = () =>
        vscode.window.visibleTextEditors.some((e) => e.document.uri.path.endsWith('/engram-compaction-preview.md'));
      await waitUntil('the summary to open for review', preview, 60_000);
      await vscode.commands.executeCommand('engram.applyCompactionPreview');
      await waitUntil(
        'the compaction to end',
        async () => !api.chat().snapshot().busy && api.chat().inspectorContext().timeline.length > 0,
        60_000,
      );
      await openInspector(api);
      await api.inspector()!.refresh();
      await ui.text('inspector', '#timeline-list .timeline-compaction', 20_000);
      await ui.click('inspector', '#timeline-list .timeline-compaction .timeline-button');
      const summary = await ui.text('inspector', '#compaction-summary');
      assert.doesNotMatch(summary, /<\/?summary>|<\/?analysis>/, 'the summary shows raw tags');
      // Each of the summary's sections, by its title (the demo writes them all).
      const missing = SUMMARY_SECTIONS.filter((title) => !summary.includes(title));
      assert.deepEqual(missing, [], `the summary does not show these sections:\n${summary}`);
      await ui.evaluate('inspector', "document.getElementById('timeline-section').scrollIntoView({ block: 'start' })");
      await shoot(api, '06-compact');
    });

    test(`[ui] walkthrough${tag} 7: undoing the compaction marks it undone and offers no diff`, async () => {
      await ensureDemo();
      await openInspector(api);
      await api.inspector()!.refresh();
      await ui.click('inspector', '#timeline-list .timeline-compaction .timeline-button');
      await ui.click('inspector', '#compaction-undo');
      await ui.waitForText('inspector', '#inspector-status', chinese() ? '撤销' : 'undone', 30_000);
      await api.inspector()!.refresh();
      await ui.click('inspector', '#timeline-list .timeline-compaction .timeline-button');
      assert.match(await ui.text('inspector', '#timeline-list .timeline-compaction'), say(/undone/i, /已撤销/));
      assert.equal(await ui.count('inspector', '#compaction-undo'), 0, 'an undone compaction cannot be undone again');
      assert.equal(await ui.count('inspector', '#compaction-diff'), 0, 'an undone compaction offers no diff');
      await ui.evaluate('inspector', "document.getElementById('timeline-section').scrollIntoView({ block: 'start' })");
      await shoot(api, '07-undo');
    });

    test(`[ui] walkthrough${tag} 8: pruning the memory in the inspector, then Undo on the toast, restores it on disk`, async () => {
      assert.ok(remembered, 'step 2 saved no memory to prune');
      const file = path.join(memoryDir(), remembered);
      const indexFile = path.join(memoryDir(), 'MEMORY.md');
      const bytes = fs.readFileSync(file);
      const index = fs.readFileSync(indexFile);
      await openInspector(api);
      await api.inspector()!.refresh();
      await ui.evaluate('inspector', "document.getElementById('memory-section').scrollIntoView({ block: 'start' })");
      await ui.click('inspector', `[data-file="${remembered}"] > .tree-row`);
      await ui.click('inspector', '#entry-prune');
      await waitUntil('the file to leave', () => !fs.existsSync(file));
      // The toast names what was pruned and offers Undo: in the inspector, or as VS Code's notification.
      const undo = chinese() ? '撤销' : 'Undo';
      const toast = await findToast(undo);
      assert.match(toast.text, say(/Pruned/, /已修剪|修剪/));
      await ui.evaluate(
        'inspector',
        "document.getElementById('inspector-status')?.scrollIntoView({ block: 'center' })",
      );
      await shoot(api, '08-prune-toast');
      await toast.clickUndo();
      await waitUntil(
        'the file and its line to come back',
        () => fs.existsSync(file) && fs.readFileSync(indexFile).equals(index),
      );
      assert.deepEqual(fs.readFileSync(file), bytes);
      await waitUntil('the Undo to go once used', async () => (await ui.count('inspector', '#status-undo')) === 0);
      await api.inspector()!.refresh();
      await ui.text('inspector', `#memory-tree [data-file="${remembered}"]`);
      assert.equal(
        await ui.count('inspector', `#memory-tree [data-file="${remembered}"]`),
        1,
        'the restored entry is back in the tree',
      );
      await shoot(api, '08-restored');
    });

    test(`[ui] walkthrough${tag} 9: Rewind code puts greet.js back as it was before the edit, and Undo takes it back`, async () => {
      await ensureDemo();
      // The chat beside the rewind's diff (the inspector is closed, as the preview would cover it).
      api.inspector()?.dispose();
      await vscode.commands.executeCommand('engram.focusChat');
      const file = path.join(workspace(), 'src', 'greet.js');
      const edited = fs.readFileSync(file, 'utf8');
      assert.match(edited, /Welcome/, 'step 4 left greet.js edited');
      // "Before this message": Rewind code on the edit's own message puts greet.js back as it was before it.
      const edit = api
        .chat()
        .snapshot()
        .items.find((i) => i.kind === 'user' && i.text === typed('edit'));
      assert.ok(edit?.kind === 'user' && edit.turn !== undefined, `the edit is no turn: ${JSON.stringify(edit)}`);
      const users = () =>
        api
          .chat()
          .snapshot()
          .items.filter((i) => i.kind === 'user')
          .map((i) => i.id);
      const conversation = users();
      const prompts = confirmRewinds(api);
      try {
        // The edit is near the top of the chat: scrolled there from the top, as a person would (the chat
        // draws only what is near the view: the message is drawn once the list comes near it).
        await ui.evaluate(
          'chat',
          `new Promise((done) => { const list = document.querySelector('.virtual-list'); list.scrollTop = 0;
            const step = () => { const item = document.querySelector('[data-item="${edit.id}"]');
              const end = list.scrollTop + list.clientHeight >= list.scrollHeight - 1;
              if (!item && !end) { list.scrollTop += 200; requestAnimationFrame(step); return; }
              item?.scrollIntoView({ block: 'center' }); requestAnimationFrame(() => requestAnimationFrame(done)); };
            requestAnimationFrame(step); })`,
        );
        await ui.click('chat', `[data-item="${edit.id}"] .rewind-code`);
        await waitUntil(
          'greet.js to be rewound',
          () => fs.readFileSync(file, 'utf8') === edited.replace('Welcome', 'Hello'),
          30_000,
        );
        // What will change was shown first: "Now ↔ after turn N" in the diff editor, and the question.
        assert.ok(
          tabs().some((l) => l.includes('↔')),
          `no preview of the rewind among the tabs: ${JSON.stringify(tabs())}`,
        );
        const turn = edit.turn;
        assert.match(
          prompts.asked[0] ?? '',
          say(
            new RegExp(`Rewind 1 file to before this message \\(turn ${turn}\\)\\?`),
            new RegExp(`将 1 个文件回退到这条消息之前（第 ${turn} 轮）`),
          ),
        );
        await waitUntil('the outcome to be told', () => prompts.asked.length >= 2);
        assert.match(
          prompts.asked[1],
          say(new RegExp(`Rewound to before this message \\(turn ${turn}\\)`), /已回退到这条消息之前/),
          prompts.asked.join('\n'),
        );
        // Code only: the conversation is as it was, the edit's turn in it.
        assert.deepEqual(users(), conversation);
        await shoot(api, '09-rewind-code');
        await vscode.commands.executeCommand('engram.undoRewind');
        await waitUntil('the edit to be back', () => fs.readFileSync(file, 'utf8') === edited, 30_000);
      } finally {
        prompts.restore();
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      }
    });
  });
}

walkthrough('');
walkthrough(' [zh-cn]');
