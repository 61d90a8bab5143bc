import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { projectDir } from '../../src/core/conversation/projectKey';
import type { EngramApi } from '../../src/extension';
import type { ScriptedReply } from '../../src/testServer/anthropicTestServer';
import type { InspectorController } from '../../src/vscode/inspector/inspectorController';
import {
  answerBackground,
  chatInBothThemes,
  freshChat,
  inspectorInBothThemes,
  sendFromUi,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// Memory health in the real host (issue 32): the workspace (a git repository) has a package.json without
// a "deploy" script and a file the memories name, which the test deletes while the Health view is open
// (the workspace watcher re-checks it). The Health view lists both stale memories first with the
// reference, its kind and why, the duplicate pair with Merge and the tabs-vs-spaces contradiction with
// its note; the chat says so when a session opens, its Review opens the Health view; Update opens the
// topic file at the stale line; Prune and its Undo work from the Health view; Merge of the duplicate
// pair and its Undo too. Screenshots in a light and a dark theme, in English and in Chinese.

const zh = () => vscode.env.language === 'zh-cn';
const shotName = (name: string) => (zh() ? `${name}-zh` : name);
const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const memoryDir = () => path.join(projectDir(process.env.ENGRAM_DATA_DIR!, workspace()), 'memory');
const legacy = () => path.join(workspace(), 'src', 'legacy', 'session.ts');
const manifest = () => path.join(workspace(), 'package.json');

const MEMORIES: Record<string, [title: string, type: string, body: string]> = {
  'project_session_store.md': [
    'Where sessions are stored',
    'project',
    'Sessions are kept in `src/legacy/session.ts`; read it before changing login.',
  ],
  'project_deploy.md': ['How to deploy', 'project', 'Ship a release with `npm run deploy` from the main branch.'],
  'feedback_indent_tabs.md': ['Indent with tabs', 'feedback', 'Indent code with tabs in this repository.'],
  'feedback_indent_spaces.md': ['Indent with spaces', 'feedback', 'Indent code with two spaces, never tabs.'],
  'reference_greeting.md': [
    'Greeting source',
    'reference',
    'The greeting banner text lives in src/greet.js and the greeting tests mock the clock.',
  ],
  'reference_greeting_copy.md': [
    'Greeting source (again)',
    'reference',
    'Greeting banner text lives in src/greet.js; the greeting tests mock the clock.',
  ],
};

function seed(): void {
  const dir = memoryDir();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  for (const [file, [title, type, body]] of Object.entries(MEMORIES)) {
    fs.writeFileSync(
      path.join(dir, file),
      `---\nname: ${title}\ndescription: ${title}\ntype: ${type}\n---\n\n${body}\n`,
    );
    lines.push(`- [${title}](${file}) — ${title.toLowerCase()}`);
  }
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), `${lines.join('\n')}\n`);
  const recalled = { recalls: 3, reads: 0, lastUsed: new Date(Date.now() - 3_600_000).toISOString() };
  fs.writeFileSync(
    path.join(dir, '.usage.json'),
    JSON.stringify({ version: 1, entries: { 'project_deploy.md': recalled } }),
  );
  fs.writeFileSync(manifest(), `${JSON.stringify({ name: 'sample', scripts: { test: 'node --test' } }, null, 2)}\n`);
  fs.mkdirSync(path.dirname(legacy()), { recursive: true });
  fs.writeFileSync(legacy(), 'export const sessions = new Map();\n');
}

const row = (file: string) => `#health-list .health-row[data-file="${file}"]`;

function memoryHealth(tag: string): void {
  suite(`memory health${tag}`, () => {
    const testServer = useTestServer();
    let api: EngramApi;
    suiteSetup(async () => {
      seed();
      api = await freshChat();
    });
    suiteTeardown(async () => {
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
      api.inspector()?.dispose();
      api.chat().newChat();
      fs.rmSync(memoryDir(), { recursive: true, force: true });
      fs.rmSync(manifest(), { force: true });
      fs.rmSync(path.join(workspace(), 'src', 'legacy'), { recursive: true, force: true });
    });

    test(`[ui]${tag} the Health view shows stale, duplicate and contradicting memories; the chat says so; Update, Prune and Merge with Undo`, async () => {
      // The palette's command opens the inspector at the Health view and checks now.
      await vscode.commands.executeCommand('engram.checkMemoryHealth');
      await waitUntil('the inspector panel', () => api.inspector() !== undefined);
      const summary = await ui.waitForText(
        'inspector',
        '#health-summary',
        zh() ? '1 条过时，1 对重复，1 对矛盾' : '1 stale, 1 duplicate pair, 1 contradiction',
        30_000,
      );
      assert.ok(summary);
      // The file a memory names is deleted: the workspace watcher re-checks it, the view follows.
      fs.rmSync(legacy());
      await ui.waitForText(
        'inspector',
        '#health-summary',
        zh() ? '2 条过时，1 对重复，1 对矛盾' : '2 stale, 1 duplicate pair, 1 contradiction',
        30_000,
      );
      // Problems first: the two stale memories, then the contradiction, then the duplicates.
      const order = await ui.evaluate<string[]>(
        'inspector',
        "[...document.querySelectorAll('#health-list .health-row')].map((r) => r.dataset.file)",
      );
      assert.deepEqual(order.slice(0, 2).sort(), ['project_deploy.md', 'project_session_store.md']);
      assert.deepEqual(order.slice(2, 4).sort(), ['feedback_indent_spaces.md', 'feedback_indent_tabs.md']);
      assert.deepEqual(order.slice(4).sort(), ['reference_greeting.md', 'reference_greeting_copy.md']);
      const session = await ui.text('inspector', row('project_session_store.md'));
      assert.match(session, /src\/legacy\/session\.ts/);
      assert.match(session, zh() ? /路径/ : /path/);
      assert.match(session, /no file or folder src\/legacy\/session\.ts/);
      const deploy = await ui.text('inspector', row('project_deploy.md'));
      assert.match(deploy, /npm run deploy/);
      assert.match(deploy, /no script "deploy" in package\.json/);
      assert.match(deploy, zh() ? /召回 3 次/ : /recalled 3/);
      assert.match(await ui.text('inspector', row('feedback_indent_tabs.md')), /indentation: .*tabs/);
      assert.equal(await ui.count('inspector', `${row('reference_greeting.md')} .health-merge`), 1);
      await inspectorInBothThemes(shotName('memory-health'), 'health-section');

      // A session opens: the chat says how many memories went stale, and Review opens the Health view.
      testServer().setResponder(
        (body): ScriptedReply => answerBackground(body) ?? { content: [{ type: 'text', text: 'Hello.' }] },
      );
      await sendFromUi('hello');
      const notice = await ui.waitForText(
        'chat',
        '.item-notice',
        zh() ? '2 条记忆提到的东西已不存在' : '2 memories name things that no longer exist.',
        30_000,
      );
      assert.ok(notice);
      await chatInBothThemes(shotName('memory-health-notice'));
      await ui.click(
        'chat',
        '.item-notice:has-text("' + (zh() ? '已不存在' : 'no longer exist') + '") .notice-action vscode-button',
      );
      await waitUntil(
        'the inspector at its Health view',
        async () =>
          (await ui.evaluate<string | undefined>('inspector', 'document.activeElement?.id')) === 'health-section',
      );

      // Update: the topic file opens for editing at the stale reference.
      await ui.click('inspector', `${row('project_session_store.md')} .health-update`);
      const topic = path.join(memoryDir(), 'project_session_store.md');
      await waitUntil(
        'the topic file in an editor',
        () => vscode.window.activeTextEditor?.document.uri.fsPath === topic,
      );
      assert.equal(vscode.window.activeTextEditor!.selection.active.line, 6);

      const restore = (api.inspector()!.source as InspectorController).replacePromptsForTests({
        confirm: async () => false,
        offerUndo: async () => false,
      });
      try {
        // Prune from the Health view, then its Undo.
        const file = path.join(memoryDir(), 'project_deploy.md');
        const bytes = fs.readFileSync(file);
        await ui.click('inspector', `${row('project_deploy.md')} .health-prune`);
        await waitUntil('the pruned file to leave', () => !fs.existsSync(file));
        await ui.waitForText('inspector', '#inspector-status', zh() ? '已修剪' : 'Pruned "How to deploy"');
        await ui.waitForText('inspector', '#health-summary', zh() ? '1 条过时' : '1 stale', 20_000);
        await ui.click('inspector', '#status-undo');
        await waitUntil('the pruned file to come back', () => fs.existsSync(file));
        assert.deepEqual(fs.readFileSync(file), bytes);
        await ui.waitForText('inspector', '#health-summary', zh() ? '2 条过时' : '2 stale', 20_000);

        // Merge of the duplicate pair, then its Undo.
        const copy = path.join(memoryDir(), 'reference_greeting_copy.md');
        await ui.click('inspector', `${row('reference_greeting.md')} .health-merge`);
        await waitUntil('the copy to go into the trash', () => !fs.existsSync(copy));
        await ui.waitForText('inspector', '#inspector-status', zh() ? '合并' : 'Merged 2 memories');
        await ui.click('inspector', '#status-undo');
        await waitUntil('the copy to come back', () => fs.existsSync(copy));
        await ui.waitForText('inspector', '#health-summary', zh() ? '1 对重复' : '1 duplicate pair', 20_000);
      } finally {
        restore();
      }
    });
  });
}

memoryHealth('');
memoryHealth(' [zh-cn]');

suite('memory health in Restricted Mode', () => {
  let api: EngramApi;
  suiteSetup(async () => {
    seed();
    api = await freshChat();
  });
  suiteTeardown(() => {
    api.inspector()?.dispose();
    fs.rmSync(memoryDir(), { recursive: true, force: true });
    fs.rmSync(manifest(), { force: true });
    fs.rmSync(path.join(workspace(), 'src', 'legacy'), { recursive: true, force: true });
  });

  test('[ui] [untrusted] the Health view says it checks nothing until the folder is trusted', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the runner opened this folder in Restricted Mode');
    await vscode.commands.executeCommand('engram.checkMemoryHealth');
    await waitUntil('the inspector panel', () => api.inspector() !== undefined);
    const why = await ui.waitForText('inspector', '#health-unavailable', 'untrusted workspace', 30_000);
    assert.match(why, /trust the folder/);
    assert.equal(await ui.count('inspector', '#health-summary'), 0, 'no result: nothing was checked');
  });
});
