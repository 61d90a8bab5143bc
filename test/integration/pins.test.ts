import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ScriptedReply } from '../../src/testServer/anthropicTestServer';
import type { EngramApi } from '../../src/extension';
import {
  answerBackground,
  freshChat,
  inspectorInBothThemes,
  inThemes,
  openInspector,
  refreshUntil,
  sendFromUi,
  useSettings,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// Issue 24, pins (done-when): a reply pinned from the chat, and text selected in a prompt pinned with
// "Pin selection", are in every request sent after pinning: through two manual compactions (the palette
// and the command), a resume from Earlier sessions and an undo. Removing the pin in the inspector stops
// it being carried. The pinned message and the inspector's pins list are photographed in a light and a
// dark theme, and in Simplified Chinese.

const RULE = 'Always run the linter with --strict before committing (PIN-7731).';
const SELECTED = 'staging-db-42';

const settings: Array<[string, string, unknown]> = [
  ['engram.compaction', 'preview', false],
  ['engram.compaction', 'keepMinTokens', 50],
  ['engram.compaction', 'keepMaxTokens', 600],
  ['engram.compaction', 'keepMinTextMessages', 2],
  // Without notes a manual compaction asks the model for a summary, which never repeats the rule.
  ['engram.sessionNotes', 'enabled', false],
  ['engram.memory', 'extraction.enabled', false],
];

const usage = { input_tokens: 2_000, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const reply = (text: string): ScriptedReply => ({ content: [{ type: 'text', text }], usage });

interface Chat {
  api: EngramApi;
  send(prompt: string, answer: string): Promise<void>;
}

function chatOn(api: EngramApi, main: ScriptedReply[]): Chat {
  return {
    api,
    send: async (prompt, answer) => {
      main.push(reply(answer));
      await sendFromUi(prompt);
      await ui.waitForText('chat', '.item-assistant', answer.slice(0, 40), 60_000);
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);
    },
  };
}

function itemId(api: EngramApi, kind: 'user' | 'assistant', text: string): string {
  const item = api
    .chat()
    .snapshot()
    .items.find((i) => i.kind === kind && i.text.includes(text));
  assert.ok(item, `a ${kind} message with ${text}`);
  return item.id;
}

const pins = (api: EngramApi) => api.chat().inspectorContext().pins?.list() ?? [];
const compactions = (api: EngramApi) =>
  api
    .chat()
    .inspectorContext()
    .timeline.filter((t) => t.kind === 'compaction').length;

/** Selects `text` inside the message `id` as a person would drag over it, then presses "Pin selection". */
async function pinSelection(id: string, text: string): Promise<void> {
  await ui.evaluate(
    'chat',
    `(() => {
      const el = document.querySelector('[data-item="${id}"] .item-text');
      const node = el.firstChild;
      const at = node.textContent.indexOf(${JSON.stringify(text)});
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + ${text.length});
      const selection = document.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    })()`,
  );
  await ui.click('chat', '#pin-selection:not([hidden])');
}

suite('pins', () => {
  const testServer = useTestServer();
  useSettings(settings);

  test('[ui] a pinned reply and a pinned selection are in every request after: two compactions, a resume, an undo; Remove stops one', async function () {
    this.timeout(300_000);
    const server = testServer();
    const main: ScriptedReply[] = [];
    server.setResponder((body) => answerBackground(body) ?? main.shift() ?? reply('(no scripted reply left)'));
    const chat = chatOn(await freshChat(), main);
    const { api } = chat;
    const filler = (word: string) => `${word} `.repeat(60);

    await chat.send(`How do we commit here? ${filler('question')}`, `${RULE} ${filler('detail')}`);
    const replyId = itemId(api, 'assistant', 'PIN-7731');
    await ui.click('chat', `[data-item="${replyId}"] .pin-button`);
    await ui.waitForText('chat', `[data-item="${replyId}"] .pin-mark`, 'Pinned');
    await waitUntil('the pin in the session', () => pins(api).length === 1);
    const pinnedAt = server.requests.length;

    await chat.send(`Which database do the tests use? It is ${SELECTED}, I think. ${filler('more')}`, 'Yes, that one.');
    await pinSelection(itemId(api, 'user', SELECTED), SELECTED);
    await waitUntil('the selection pinned', () => pins(api).length === 2);
    assert.deepEqual(
      pins(api).map((p) => [p.text, p.source.kind]),
      [
        [`${RULE} ${filler('detail')}`, 'message'],
        [SELECTED, 'selection'],
      ],
    );
    await inThemes('chat', async (kind) => {
      await ui.evaluate(
        'chat',
        `document.querySelector('[data-item="${replyId}"]').scrollIntoView({ block: 'start' })`,
      );
      await ui.screenshot(`pins-chat-${kind}`);
    });
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);

    // Two manual compactions: from the palette, then by the command.
    await chat.send(`And the release? ${filler('release')}`, `Tag it. ${filler('tag')}`);
    await ui.palette('Engram: Full Compact');
    await waitUntil('the focus box', async () => (await ui.workbenchText('.quick-input-widget')).includes('focus on'));
    await ui.press('Enter'); // no focus: a general summary
    await waitUntil('the first compaction', () => compactions(api) === 1, 60_000);
    await chat.send(`After one: ${filler('one')}`, `Fine. ${filler('fine')}`);
    await vscode.commands.executeCommand('engram.fullCompact', '');
    await waitUntil('the second compaction', () => compactions(api) === 2, 60_000);
    await chat.send('After two: anything else?', 'Nothing else.');
    const sessionId = api.chat().inspectorContext().sessionId!;

    // Resume from Earlier sessions, then undo the newest compaction.
    await freshChat();
    await ui.click('chat', 'vscode-button[title="Resume an earlier session"]');
    await ui.click('chat', `.chat-session[data-session="${sessionId}"]`);
    await waitUntil('the resumed session', () => api.chat().inspectorContext().sessionId === sessionId, 30_000);
    await waitUntil('its pins', () => pins(api).length === 2);
    await chat.send('After the resume: still there?', 'Still here.');
    assert.equal(await api.chat().undoLastCompaction(), true);
    await chat.send('After the undo: and now?', 'Now too.');

    const after = server.requests.slice(pinnedAt).map((r) => JSON.stringify(r.body.messages));
    assert.ok(after.length >= 8, `${after.length} requests after pinning`);
    after.forEach((sent, i) => {
      assert.ok(sent.includes('PIN-7731'), `request ${i + 1} after pinning carries the pinned reply`);
      if (i > 1) assert.ok(sent.includes(SELECTED), `request ${i + 1} carries the pinned selection`);
    });

    // The inspector lists both with their cost; Remove stops the reply being carried.
    await openInspector(api);
    await refreshUntil(api, '#pins-budget', '2 pins');
    assert.match(await ui.text('inspector', '#pins-budget'), /2 pins · [\d,]+ of 4,000 tokens/);
    assert.match(await ui.text('inspector', '#pins-section .pins-list'), /PIN-7731[\s\S]*staging-db-42/);
    await inspectorInBothThemes('pins-inspector', 'pins-section');
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    // A budget the pins exceed: the list warns before a compaction would leave the older pin out.
    const compaction = vscode.workspace.getConfiguration('engram.compaction');
    await compaction.update('pinBudgetTokens', 50, vscode.ConfigurationTarget.Global);
    await refreshUntil(api, '#pins-warning', 'would leave out 1 pin');
    assert.match(await ui.text('inspector', '#pins-warning'), /leave out 1 pin: over the 50-token budget/);
    assert.match(await ui.text('inspector', '#pins-section .pin-cut'), /PIN-7731[\s\S]*/);
    await ui.evaluate('inspector', "document.getElementById('pins-section').scrollIntoView({ block: 'start' })");
    await ui.screenshot('pins-inspector-over-budget');
    await compaction.update('pinBudgetTokens', undefined, vscode.ConfigurationTarget.Global);
    await refreshUntil(api, '#pins-budget', 'of 4,000 tokens');
    const rulePin = pins(api).find((p) => p.text.includes('PIN-7731'))!;
    await ui.click('inspector', `[id="unpin-${rulePin.id}"]`);
    await waitUntil('the pin removed', () => pins(api).length === 1);
    await refreshUntil(api, '#pins-budget', '1 pin ');
    await vscode.commands.executeCommand('engram.fullCompact', '');
    await waitUntil('a compaction after the unpin', () => compactions(api) === 3, 60_000);
    await chat.send('After the unpin?', 'Understood.');
    const last = JSON.stringify(server.requests[server.requests.length - 1].body.messages);
    assert.ok(!last.includes('PIN-7731'), 'the unpinned reply is no longer carried');
    assert.ok(last.includes(SELECTED), 'the other pin still is');
    api.inspector()?.panel.dispose();
  });

  test('[ui] [zh-cn] pins in Simplified Chinese: the pin mark in the chat and the inspector list', async function () {
    this.timeout(120_000);
    assert.equal(vscode.env.language, 'zh-cn');
    const server = testServer();
    const main: ScriptedReply[] = [];
    server.setResponder((body) => answerBackground(body) ?? main.shift() ?? reply('(no scripted reply left)'));
    const chat = chatOn(await freshChat(), main);
    await chat.send('提交前要做什么？', `提交前务必运行 lint --strict（PIN-7731）。`);
    const replyId = itemId(chat.api, 'assistant', 'PIN-7731');
    await ui.click('chat', `[data-item="${replyId}"] .pin-button`);
    await ui.waitForText('chat', `[data-item="${replyId}"] .pin-mark`, '已固定');
    await ui.screenshot('pins-chat-zh-cn');
    await openInspector(chat.api);
    await refreshUntil(chat.api, '#pins-budget', '1 个固定项');
    assert.match(await ui.text('inspector', '#pins-section'), /固定项[\s\S]*Engram 的回复[\s\S]*移除/);
    await ui.evaluate('inspector', "document.getElementById('pins-section').scrollIntoView({ block: 'start' })");
    await ui.screenshot('pins-inspector-zh-cn');
    chat.api.inspector()?.panel.dispose();
  });
});
