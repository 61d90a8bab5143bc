import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { SUMMARY_REQUEST_MARKER } from '../../src/core/compaction/summaryPrompt';
import { EXTRACTION_MARKER } from '../../src/core/memory/autoMemory/memoryPrompts';
import { RECALL_PICK_MARKER } from '../../src/core/memory/autoMemory/modelRecall';
import { NOTES_UPDATE_MARKER } from '../../src/core/memory/sessionNotes/prompts';
import type { ChatItem } from '../../src/protocol/messages';
import { engram, freshChat, lastUserText, sendFromUi, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// The chat basics a newcomer reaches for, clicked in the real Chat view against the project's test
// server over real HTTP: the first-run screen, Copy and Insert on code blocks, per-turn tokens, Retry
// and Edit, @ file mentions, the model picker, /help /context /memory, and the view in Simplified Chinese.

const THEMES = [
  ['Default Light Modern', 'light'],
  ['Default Dark Modern', 'dark'],
] as const;
const CODE = 'function greet(name) {\n  return `Hello, ${name}!`;\n}';
const REPLY_WITH_CODE = `Here is a greeting:\n\n\`\`\`js\n${CODE}\n\`\`\`\n\nCall it with a name.`;

async function inThemes(shot: (kind: 'light' | 'dark') => Promise<void>): Promise<void> {
  const workbench = vscode.workspace.getConfiguration('workbench');
  try {
    for (const [theme, kind] of THEMES) {
      await workbench.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await waitUntil(
        `the ${kind} theme in the chat`,
        async () => (await ui.evaluate<boolean>('chat', `document.body.classList.contains('vscode-${kind}')`)) === true,
      );
      await shot(kind);
    }
  } finally {
    await workbench.update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
  }
}

function chatItems(api: Awaited<ReturnType<typeof engram>>): ChatItem[] {
  return api.chat().snapshot().items;
}

/** Empties the prompt box (typing appends, as a person's keys would). */
async function clearPrompt(): Promise<void> {
  await ui.evaluate('chat', `document.getElementById('prompt').value = ''`);
}

suite('chat basics', () => {
  const testServer = useTestServer();

  test('[ui] chat first run: a newcomer without a key sets one, or keeps the offline demo', async () => {
    const api = await freshChat();
    const envKey = process.env.ANTHROPIC_API_KEY;
    const config = vscode.workspace.getConfiguration('engram');
    delete process.env.ANTHROPIC_API_KEY;
    try {
      await api.chat().refreshSetup();
      await ui.waitForText('chat', '#setup', 'Welcome to Engram');
      assert.match(await ui.text('chat', '#setup'), /Secret Storage[\s\S]*base URL[\s\S]*offline demo/);
      await inThemes(async (kind) => {
        const shot = await ui.screenshot(`chat-first-run-${kind}`);
        assert.ok(shot.bytes > 10_000, `${shot.file} is too small`);
      });

      // "Set API Key…" opens VS Code's password box; the key goes to Secret Storage and the screen goes.
      await ui.click('chat', '#setup-apiKey');
      await ui.focusInputBox('Anthropic API key');
      for (const key of 'sk-ant-first-run') await ui.press(key);
      await ui.press('Enter');
      await waitUntil(
        'the first-run screen to go once a key is stored',
        async () => (await ui.count('chat', '#setup')) === 0,
      );
      assert.equal(await ui.count('chat', '.chat-empty'), 1);
      await vscode.commands.executeCommand('engram.clearApiKey');
      await api.chat().refreshSetup();
      await ui.waitForText('chat', '#setup', 'Welcome to Engram');

      // "Keep the offline demo" turns the demo on and is remembered.
      await ui.click('chat', '#setup-demo');
      await waitUntil(
        'the offline demo to be on',
        () => vscode.workspace.getConfiguration('engram').get('offlineDemo') === true,
      );
      await waitUntil('the first-run screen to go', async () => (await ui.count('chat', '#setup')) === 0);
      await ui.waitForText('chat', '.chat-model', 'offline demo model');
      await config.update('offlineDemo', undefined, vscode.ConfigurationTarget.Global);
      await api.chat().refreshSetup();
      assert.equal(api.chat().snapshot().setupNeeded, false, 'the choice stays made');
    } finally {
      process.env.ANTHROPIC_API_KEY = envKey;
      await config.update('offlineDemo', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    }
  });

  test('[ui] chat code blocks: Copy and Insert, per-turn tokens with the cache share, Retry and Edit', async () => {
    const api = await freshChat();
    const server = testServer();
    server.enqueue({
      content: [{ type: 'text', text: REPLY_WITH_CODE }],
      usage: { input_tokens: 100, cache_read_input_tokens: 300, cache_creation_input_tokens: 0, output_tokens: 20 },
    });
    await sendFromUi('show me a greeting function');
    await ui.waitForText('chat', '.item-turn', '75% from the cache');
    assert.match(await ui.text('chat', '.item-turn .turn-tokens'), /^400 in · 20 out · 75% from the cache$/);

    // The web test host's clipboard works only where the browser grants it: checked where it does.
    await vscode.env.clipboard.writeText('probe');
    const clipboardWorks = (await vscode.env.clipboard.readText()) === 'probe';
    await ui.click('chat', '.code-actions .light-button:nth-child(1)');
    if (clipboardWorks)
      await waitUntil('the code on the clipboard', async () => (await vscode.env.clipboard.readText()) === CODE);

    const doc = await vscode.workspace.openTextDocument({ content: '// before\n', language: 'javascript' });
    const editor = await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    editor.selection = new vscode.Selection(1, 0, 1, 0);
    await vscode.commands.executeCommand('engram.focusChat');
    await ui.click('chat', '.code-actions .light-button:nth-child(2)');
    await waitUntil('the code inserted at the cursor', () => doc.getText() === `// before\n${CODE}`);

    await inThemes(async (kind) => {
      const shot = await ui.screenshot(`chat-reply-code-tokens-${kind}`);
      assert.ok(shot.bytes > 10_000, `${shot.file} is too small`);
    });

    // Background work after a turn (memory extraction, notes) gets its own answer and is waited for, so it
    // never takes the reply queued for the next prompt.
    const background = [EXTRACTION_MARKER, NOTES_UPDATE_MARKER, SUMMARY_REQUEST_MARKER, RECALL_PICK_MARKER];
    server.setResponder((b) =>
      background.some((m) => JSON.stringify(b.messages).includes(m))
        ? { content: [{ type: 'text', text: 'Nothing new.' }] }
        : undefined,
    );
    await api.chat().idleForTests();
    // Retry: the same prompt again, on the conversation before it (nothing of the first answer is sent).
    server.enqueue({ content: [{ type: 'text', text: 'A second answer.' }] });
    let sent = server.requests.length;
    await ui.click('chat', '.item-turn.is-last .light-button');
    await ui.waitForText('chat', '.item-assistant', 'A second answer.');
    let body = server.requests[sent].body;
    assert.equal(body.messages.length, 1);
    assert.equal(lastUserText(body), 'show me a greeting function');
    await waitUntil('the retried turn to end', () => !api.chat().snapshot().busy);
    assert.deepEqual(
      chatItems(api)
        .filter((i) => i.kind === 'user' || i.kind === 'assistant')
        .map((i) => (i.kind === 'assistant' ? i.text : `> ${i.kind === 'user' ? i.text : ''}`)),
      ['> show me a greeting function', 'A second answer.'],
    );

    await api.chat().idleForTests();
    // Edit: the last prompt is replaced, and the reply follows the new one.
    server.enqueue({ content: [{ type: 'text', text: 'Goodbye it is.' }] });
    sent = server.requests.length;
    await ui.click('chat', '.item-user.is-last .light-button');
    await ui.waitForText('chat', '#editing', 'Editing your last message');
    assert.equal(
      await ui.evaluate<string>('chat', `document.getElementById('prompt').value`),
      'show me a greeting function',
    );
    await clearPrompt();
    await sendFromUi('show me a farewell function');
    await ui.waitForText('chat', '.item-assistant', 'Goodbye it is.');
    body = server.requests[sent].body;
    assert.equal(body.messages.length, 1);
    assert.equal(lastUserText(body), 'show me a farewell function');
    await waitUntil('the edited turn to end', () => !api.chat().snapshot().busy);
    assert.deepEqual(
      chatItems(api)
        .filter((i) => i.kind === 'user')
        .map((i) => i.kind === 'user' && i.text),
      ['show me a farewell function'],
    );

    await api.chat().idleForTests();
    // The conversation goes on from the edited turn.
    server.enqueue({ content: [{ type: 'text', text: 'Third.' }] });
    sent = server.requests.length;
    await sendFromUi('and one more');
    await ui.waitForText('chat', '.item-assistant', 'Third.');
    assert.deepEqual(
      server.requests[sent].body.messages.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    await api.chat().idleForTests();
    server.setResponder(undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('[ui] chat @ mentions: completion from the workspace, and the chosen file goes with the message', async () => {
    const api = await freshChat();
    const server = testServer();
    const root = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const file = path.join(root, 'mention-sample.txt');
    fs.writeFileSync(file, 'The password for the shed is pelican.\n');
    try {
      await ui.fill('chat', '#prompt', 'what does @mention-sam');
      await ui.waitForText('chat', '#mentions .mention', 'mention-sample.txt');
      await ui.press('Enter');
      await waitUntil(
        'the chosen path in the prompt',
        async () =>
          (await ui.evaluate<string>('chat', `document.getElementById('prompt').value`)) ===
          'what does @mention-sample.txt ',
      );
      assert.equal(await ui.count('chat', '#mentions:not([hidden])'), 0, 'the list closes');
      server.enqueue({ content: [{ type: 'text', text: 'It says pelican.' }] });
      const sent = server.requests.length;
      await ui.fill('chat', '#prompt', 'say?');
      await ui.press('Enter');
      await ui.waitForText('chat', '.item-assistant', 'It says pelican.');
      const text = lastUserText(server.requests[sent].body);
      assert.match(text, /^what does @mention-sample\.txt say\?<engram-file path="mention-sample\.txt">/);
      assert.match(text, /The password for the shed is pelican\./);
      assert.match(await ui.text('chat', '.item-user .item-files'), /Attached: mention-sample\.txt/);
      const user = chatItems(api).find((i) => i.kind === 'user');
      assert.ok(user?.kind === 'user');
      assert.equal(user.text, 'what does @mention-sample.txt say?');
      assert.deepEqual(user.files, ['mention-sample.txt']);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  test('[ui] chat slash commands: /help and /context answer here, /memory opens the memory pane', async () => {
    const api = await freshChat();
    const server = testServer();
    const before = server.requests.length;
    await sendFromUi('/help');
    await ui.waitForText('chat', '.item-help', 'What you can type here');
    assert.match(await ui.text('chat', '.item-help'), /\/compact \[focus\][\s\S]*\/memory[\s\S]*\/context[\s\S]*@file/);
    await sendFromUi('/context');
    await ui.waitForText('chat', '.item-context', 'Context:');
    assert.match(await ui.text('chat', '.item-context'), /of 200,000 tokens[\s\S]*Category[\s\S]*Share/);
    assert.equal(server.requests.length, before, 'no model call for /help or /context');
    assert.equal(
      chatItems(api).filter((i) => i.kind === 'user').length,
      0,
      'local commands are not prompts to retry or edit',
    );

    await sendFromUi('/memory');
    await waitUntil('the inspector to open', () => api.inspector() !== undefined);
    await ui.waitForText('inspector', '#memory-section', 'Memory');
    assert.equal(server.requests.length, before);
    api.inspector()?.panel.dispose();
  });

  test('[ui] [zh-cn] chat in Simplified Chinese: the view, /help and a reply with tokens', async () => {
    await freshChat();
    const server = testServer();
    assert.equal(vscode.env.language, 'zh-cn');
    await ui.waitForText('chat', '#send', '发送');
    await sendFromUi('/help');
    await ui.waitForText('chat', '.item-help', '可以在这里输入的命令');
    server.enqueue({
      content: [{ type: 'text', text: REPLY_WITH_CODE }],
      usage: { input_tokens: 100, cache_read_input_tokens: 300, cache_creation_input_tokens: 0, output_tokens: 20 },
    });
    await sendFromUi('写一个问候函数');
    await ui.waitForText('chat', '.item-turn', '来自缓存');
    assert.match(await ui.text('chat', '.code-actions'), /复制[\s\S]*插入/);
    assert.match(await ui.text('chat', '.item-turn'), /输入 400 · 输出 20 · 75% 来自缓存[\s\S]*重试/);
    const shot = await ui.screenshot('chat-zh-cn');
    assert.ok(shot.bytes > 10_000);
  });
});
