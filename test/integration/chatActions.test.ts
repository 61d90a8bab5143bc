import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { ScriptedReply } from '../../src/testServer/anthropicTestServer';
import { answerBackground, chatInBothThemes, freshChat, sendFromUi, useSettings, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// Issue 31: actions on a message keep the reader where they are (Pin on an earlier reply used to jump the
// chat to its end, the confirmation out of sight), and a permission card says what it is waiting for and,
// once answered, what was answered ("Write was allowed", not "Write wants to run"); while it waits, the
// status line says so rather than "Working...". Screenshots in a light and a dark theme.

const usage = { input_tokens: 2_000, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const reply = (text: string): ScriptedReply => ({ content: [{ type: 'text', text }], usage });
const CARD_FILE = 'issue31-card.txt';

/** The chat list's scroll position, and how far its end is below the view. */
async function scroll(): Promise<{ top: number; below: number }> {
  return ui.evaluate(
    'chat',
    `(() => { const l = document.querySelector('.chat-items');
      return { top: l.scrollTop, below: l.scrollHeight - l.scrollTop - l.clientHeight }; })()`,
  );
}

suite('actions on chat messages', () => {
  const testServer = useTestServer();
  useSettings([
    ['engram.sessionNotes', 'enabled', false],
    ['engram.memory', 'extraction.enabled', false],
  ]);

  test('[ui] Pin on an earlier reply keeps the scroll position and shows its mark in view', async function () {
    this.timeout(240_000);
    const api = await freshChat();
    const main: ScriptedReply[] = [];
    testServer().setResponder((body) => answerBackground(body) ?? main.shift() ?? reply('(no scripted reply left)'));
    for (let i = 1; i <= 5; i++) {
      main.push(reply(`Reply ${i}: ${'here is a long explanation. '.repeat(40)}`));
      await sendFromUi(`Question ${i}: ${'tell me more. '.repeat(10)}`);
      await ui.waitForText('chat', '.item-assistant', `Reply ${i}:`, 60_000);
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);
    }
    const second = api
      .chat()
      .snapshot()
      .items.find((i) => i.kind === 'assistant' && i.text.startsWith('Reply 2:'));
    assert.ok(second, 'the second reply');
    // The reader scrolls up to the second reply, as a person would with the wheel (the chat draws only what
    // is near the view: the reply is drawn once the list comes near it).
    await ui.evaluate(
      'chat',
      `new Promise((done) => { const list = document.querySelector('.chat-items');
        const step = () => { const reply = document.querySelector('[data-item="${second.id}"]');
          if (!reply) { list.scrollTop -= 200; requestAnimationFrame(step); return; }
          reply.scrollIntoView({ block: 'start' }); requestAnimationFrame(() => requestAnimationFrame(done)); };
        step(); })`,
    );
    const before = await scroll();
    assert.ok(before.below > 300, `the chat is scrolled up (${JSON.stringify(before)})`);

    await ui.click('chat', `[data-item="${second.id}"] .pin-button`);
    await ui.waitForText('chat', `[data-item="${second.id}"] .pin-mark`, 'Pinned');
    const after = await scroll();
    assert.ok(Math.abs(after.top - before.top) <= 4, `scrollTop ${before.top} -> ${after.top}`);
    const mark = await ui.evaluate<{ list: number[]; mark: number[] }>(
      'chat',
      `(() => { const l = document.querySelector('.chat-items').getBoundingClientRect();
        const m = document.querySelector('[data-item="${second.id}"] .pin-mark').getBoundingClientRect();
        return { list: [l.top, l.bottom], mark: [m.top, m.bottom, m.height] }; })()`,
    );
    const [top, bottom, height] = mark.mark;
    assert.ok(
      height > 0 && top >= mark.list[0] - 2 && bottom <= mark.list[1] + 2,
      `the Pinned mark is in view: ${JSON.stringify(mark)}`,
    );
    await chatInBothThemes('pin-keeps-scroll');
  });

  /** A Write that asks: the card and the status line while it waits, then after "Allow once". */
  async function answerACard(words: { asks: string; waiting: string; allowed: string }, shot: string): Promise<void> {
    const api = await freshChat();
    const main: ScriptedReply[] = [
      {
        content: [
          { type: 'tool_use', name: 'Write', input: { file_path: CARD_FILE, content: 'written by the test\n' } },
        ],
        usage,
      },
      reply('The file is written.'),
    ];
    testServer().setResponder((body) => answerBackground(body) ?? main.shift() ?? reply('(no scripted reply left)'));
    await sendFromUi(`Write ${CARD_FILE}`);
    await ui.waitForText('chat', '.item-permission .permission-title', words.asks, 30_000);
    await ui.waitForText('chat', '.chat-status', words.waiting, 10_000);
    assert.doesNotMatch(await ui.text('chat', '.chat-status'), /Working|正在处理/);
    await ui.click('chat', '.item-permission [id^="allow-once-"]');
    await ui.waitForText('chat', '.item-permission .permission-title', words.allowed, 20_000);
    await ui.waitForText('chat', '.item-assistant', 'The file is written', 30_000);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 30_000);
    assert.doesNotMatch(await ui.text('chat', '.item-permission .permission-title'), new RegExp(words.asks));
    if (shot.endsWith('zh-cn')) assert.ok((await ui.screenshot(shot)).bytes > 10_000);
    else await chatInBothThemes(shot);
    fs.rmSync(path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, CARD_FILE), { force: true });
  }

  test('[ui] a permission card says "Waiting for your answer" while it waits and "was allowed" once answered', async function () {
    this.timeout(180_000);
    await answerACard(
      { asks: 'Write wants to run', waiting: 'Waiting for your answer', allowed: 'Write was allowed' },
      'permission-answered',
    );
  });

  test('[ui] [zh-cn] a permission card while it waits and once answered, in Simplified Chinese', async function () {
    this.timeout(180_000);
    assert.equal(vscode.env.language, 'zh-cn');
    await answerACard(
      { asks: 'Write 请求运行', waiting: '正在等待你的答复', allowed: '已允许 Write 运行' },
      'permission-answered-zh-cn',
    );
  });
});
