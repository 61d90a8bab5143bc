import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { projectDir } from '../../src/core/conversation/projectKey';
import type { MessagesRequestBody } from '../../src/testServer/anthropicTestServer';
import {
  engram,
  freshChat,
  inspectorInBothThemes,
  lastUserText,
  openInspector,
  refreshUntil,
  sendFromUi,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// Recall seen and corrected from the chat (issue 22): a message draws a memory, the line under it names
// the memory, its file and the words that matched (light and dark); "Not relevant" takes it out of the
// next request and records it for those words, so the same kind of message attaches nothing; the
// inspector shows the record on the memory, and its Undo takes it back.

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const memoryDir = () => path.join(projectDir(process.env.ENGRAM_DATA_DIR!, workspace()), 'memory');
const THEMES = [
  ['Default Light Modern', 'light'],
  ['Default Dark Modern', 'dark'],
] as const;

const FILES: Array<[file: string, title: string, description: string]> = [
  ['project_deploy.md', 'Deploy process', 'staging deploys from main; production only from a pushed tag'],
  ['feedback_css.md', 'Styling rules', 'Tailwind utility classes only, colours from the config tokens'],
  ['reference_sentry.md', 'Sentry', 'browser errors go to the Sentry project shopfront-web'],
];

function seed(): void {
  const dir = memoryDir();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, title, description] of FILES) {
    fs.writeFileSync(
      path.join(dir, file),
      `---\nname: ${title}\ndescription: ${description}\ntype: project\n---\n\n${description}.\n`,
    );
  }
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), `${FILES.map(([f, t, d]) => `- [${t}](${f}) — ${d}`).join('\n')}\n`);
}

function userTexts(body: MessagesRequestBody): string {
  return JSON.stringify(body.messages.filter((m) => m.role === 'user'));
}

suite('recall feedback in the chat', () => {
  const testServer = useTestServer();
  suiteSetup(seed);
  suiteTeardown(async () => {
    testServer().setResponder(undefined);
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    (await engram()).inspector()?.dispose();
    (await engram()).chat().newChat();
    fs.rmSync(memoryDir(), { recursive: true, force: true });
  });

  test('[ui] recall: the attached memory and its words under the message, Not relevant, nothing for the same words, Undo in the inspector', async () => {
    const api = await freshChat();
    const server = testServer();
    // The background memory pass asks too (after each turn): it is told there is nothing to save.
    const turns: MessagesRequestBody[] = [];
    server.setResponder((body) => {
      const text = lastUserText(body);
      if (text.startsWith('How does a tag'))
        return (turns.push(body), { content: [{ type: 'text', text: 'First answer.' }] });
      if (text.startsWith('Deploy a tag'))
        return (turns.push(body), { content: [{ type: 'text', text: 'Second answer.' }] });
      return { content: [{ type: 'text', text: 'Nothing to save.' }] };
    });
    await sendFromUi('How does a tag get deployed to production?');
    await ui.waitForText('chat', '.item-assistant', 'First answer.');
    const line = await ui.text('chat', '.item-recall .recall-line[data-file="project_deploy.md"]');
    assert.match(line, /Deploy process/);
    assert.match(line, /project_deploy\.md/);
    const words = await ui.text('chat', '.recall-line[data-file="project_deploy.md"] .recall-words');
    assert.match(words, /^matched: /);
    assert.deepEqual(words.slice('matched: '.length).split(', ').sort(), ['deployed', 'production', 'tag']);
    assert.equal(await ui.count('chat', '.item-recall .recall-line'), 1, 'only the memory that fits');
    assert.match(
      userTexts(turns[0]),
      /engram-memory file=\\"project_deploy\.md\\"[\s\S]*production only from a pushed tag/,
    );

    const workbench = vscode.workspace.getConfiguration('workbench');
    for (const [theme, kind] of THEMES) {
      await workbench.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await waitUntil(
        `the ${kind} theme in the chat`,
        async () => (await ui.evaluate<boolean>('chat', `document.body.classList.contains('vscode-${kind}')`)) === true,
      );
      const shot = await ui.screenshot(`recall-attached-${kind}`);
      assert.ok(shot.bytes > 10_000, `${shot.file} is too small`);
    }

    await ui.click('chat', '.recall-line[data-file="project_deploy.md"] .light-button');
    await ui.waitForText('chat', '.recall-line[data-file="project_deploy.md"]', 'Not relevant: left out');
    const usageFile = path.join(memoryDir(), '.usage.json');
    await waitUntil(
      'the record in .usage.json',
      () => fs.existsSync(usageFile) && fs.readFileSync(usageFile, 'utf8').includes('notRelevant'),
    );
    const usage = JSON.parse(fs.readFileSync(usageFile, 'utf8')) as {
      entries: Record<string, { notRelevant?: string[][] }>;
    };
    assert.deepEqual([...(usage.entries['project_deploy.md'].notRelevant?.[0] ?? [])].sort(), [
      'deployed',
      'production',
      'tag',
    ]);
    for (const [theme, kind] of THEMES) {
      await workbench.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await waitUntil(
        `the ${kind} theme in the chat`,
        async () => (await ui.evaluate<boolean>('chat', `document.body.classList.contains('vscode-${kind}')`)) === true,
      );
      await ui.screenshot(`recall-not-relevant-${kind}`);
    }

    await sendFromUi('Deploy a tag to production, please');
    await ui.waitForText('chat', '.item-assistant', 'Second answer.');
    assert.equal(await ui.count('chat', '.item-recall'), 1, 'nothing attached to the second message');
    const second = userTexts(turns[1]);
    assert.doesNotMatch(second, /production only from a pushed tag/, 'the memory left the conversation');
    assert.match(second, /Not relevant to this message/);

    await openInspector(api);
    await refreshUntil(api, '[data-file="project_deploy.md"]', 'Deploy process');
    await ui.click('inspector', '[data-file="project_deploy.md"] > .tree-row');
    const fact = await ui.waitForText('inspector', '#entry-not-relevant', 'production');
    for (const word of ['tag', 'deployed', 'production']) assert.match(fact, new RegExp(`\\b${word}\\b`));
    await inspectorInBothThemes('recall-not-relevant-inspector', 'memory-section');
    await ui.click('inspector', '#entry-not-relevant-undo-0');
    await ui.waitForText('inspector', '#inspector-status', 'may be recalled again');
    await waitUntil('the record to go', () => !fs.readFileSync(usageFile, 'utf8').includes('notRelevant'));
    await waitUntil(
      'the inspector to drop the record',
      async () => (await ui.count('inspector', '#entry-not-relevant')) === 0,
    );
  });
});
