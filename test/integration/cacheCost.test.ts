import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ScriptedReply } from '../../src/testServer/anthropicTestServer';
import {
  answerBackground,
  chatInBothThemes,
  freshChat,
  inspectorInBothThemes,
  openInspector,
  sendFromUi,
  useSettings,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// The cost line (issue 24, "what the next turn costs"): after a reply the chat header and the inspector's
// gauge pane say the prompt cache is warm, count its time down, and give the next message's cost warm
// and cold in tokens and dollars; the warm figure reads exactly what the test server's cache stored.
// Photographed in a light and a dark theme, and in Simplified Chinese.

const settings: Array<[string, string, unknown]> = [
  ['engram.sessionNotes', 'enabled', false],
  ['engram.memory', 'extraction.enabled', false],
  ['engram', 'promptCache.ttl', '5m'],
];

const ANSWER = 'The project reads its settings once, at start-up, from config.json.';
const reply = (text: string): ScriptedReply => ({ content: [{ type: 'text', text }] });

suite('cost line', () => {
  const testServer = useTestServer();
  useSettings(settings);
  // inspectorInBothThemes leaves its last theme for the suite to reset.
  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
  });

  test('[ui] after a reply the chat header and the inspector show the warm cache counting down and the next message cost', async function () {
    this.timeout(180_000);
    const api = await freshChat();
    const server = testServer();
    server.setResponder((body) => answerBackground(body) ?? reply(ANSWER));
    await sendFromUi(`Where does the project read its settings? ${'Look closely at the start-up code. '.repeat(10)}`);
    await ui.waitForText('chat', '.item-assistant', ANSWER, 60_000);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);

    const line = await ui.waitForText('chat', '#chat-cache-cost', 'Cache warm', 20_000);
    assert.match(line, /Cache warm · [45]:\d\d left/);
    assert.match(line, /Next message:\s*warm ≈ [\d.]+K? tokens \$[\d.]+ · cold ≈ [\d.]+K? tokens \$[\d.]+/);
    // It counts down on its own, a second at a time.
    const left = () => ui.text('chat', '#chat-cache-cost .cache-state');
    const first = await left();
    await waitUntil('the countdown to move', async () => (await left()) !== first, 5_000);

    // The warm figure reads what the last request stored: the server's cache read + write for it.
    const main = server.requests.filter((r) => answerBackground(r.body) === undefined);
    const last = main[main.length - 1].usage;
    assert.ok(last);
    const cache = api.chat().gauge().cache;
    assert.ok(cache?.warm);
    const stored = (last.cache_read_input_tokens ?? 0) + (last.cache_creation_input_tokens ?? 0);
    assert.ok(stored > 1_000, 'the conversation was cached');
    assert.equal(cache.ifWarm.read, stored);
    assert.ok(cache.ifCold.write > cache.ifWarm.write, 'cold writes everything again');
    assert.match(
      await ui.evaluate<string>('chat', `document.getElementById('chat-cache-cost').title`),
      /If warm: [\d,]+ tokens read/,
    );
    await chatInBothThemes('cost-line-chat');

    await openInspector(api);
    const pane = await ui.waitForText('inspector', '#inspector-cache-cost', 'Cache warm', 20_000);
    assert.match(pane, /Next message:\s*warm ≈ .* · cold ≈ /);
    await inspectorInBothThemes('cost-line-inspector', 'gauge-section');
    api.inspector()?.panel.dispose();
  });

  test('[ui] [zh-cn] the cost line in Simplified Chinese, in the chat header and the inspector', async function () {
    this.timeout(180_000);
    const api = await freshChat();
    const server = testServer();
    server.setResponder((body) => answerBackground(body) ?? reply('设置在启动时从 config.json 读取一次。'));
    await sendFromUi(`项目在哪里读取设置？${'请仔细查看启动代码。'.repeat(20)}`);
    await ui.waitForText('chat', '.item-assistant', 'config.json', 60_000);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);
    const line = await ui.waitForText('chat', '#chat-cache-cost', '缓存有效', 20_000);
    assert.match(line, /下一条消息：有效时 ≈ .* 词元 \$[\d.]+ · 失效时 ≈ .* 词元 \$[\d.]+/);
    const chatShot = await ui.screenshot('cost-line-chat-zh-cn');
    assert.ok(chatShot.bytes > 10_000);
    await openInspector(api);
    await ui.waitForText('inspector', '#inspector-cache-cost', '缓存有效', 20_000);
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    await ui.evaluate('inspector', `document.getElementById('gauge-section').scrollIntoView({ block: 'start' })`);
    const shot = await ui.screenshot('cost-line-inspector-zh-cn');
    assert.ok(shot.bytes > 10_000);
    await vscode.commands.executeCommand('workbench.action.toggleSidebarVisibility');
    api.inspector()?.panel.dispose();
  });
});
