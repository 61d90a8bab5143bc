import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ApiMessage } from '../../src/core/conversation/types';
import type { MessagesRequestBody, ScriptedReply } from '../../src/testServer/anthropicTestServer';
import { PREVIEW_FILE } from '../../src/vscode/chat/compactionPreview';
import {
  chatInBothThemes,
  freshChat,
  sendFromUi,
  SUMMARY_PREVIEW_SETTINGS,
  useSettings,
  useTestServer,
} from './support';
import { ui, waitUntil } from './ui';

// `/compact` with the preview on (the default): the summary the model wrote opens in a Markdown editor,
// the person edits a line and applies it from the editor's title, and the next request opens with the
// edited text; a second `/compact` is cancelled from the palette and the conversation goes on as it was.
// The preview editor is photographed in a light and a dark theme.

const SUMMARY_MARKER = '<engram-compact-summary>';
const SUMMARY = [
  '1. Request and intent: answer four questions about the project.',
  '2. Key concepts: none.',
  '3. Files: none.',
  '4. Errors and fixes: none.',
  '5. Problem solving: none.',
  '6. All user messages: the four questions.',
  '7. Pending tasks: none.',
  '8. Current work: answering questions.',
  '9. Next step: wait for the next question.',
].join('\n');

const settings = SUMMARY_PREVIEW_SETTINGS;

const usage = { input_tokens: 2_000, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const reply = (text: string): ScriptedReply => ({ content: [{ type: 'text', text }], usage });
const isSummary = (body: MessagesRequestBody) => JSON.stringify(body.messages).includes(SUMMARY_MARKER);
const textOf = (m: ApiMessage) =>
  typeof m.content === 'string' ? m.content : m.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');

function previewEditor(): vscode.TextEditor | undefined {
  return vscode.window.visibleTextEditors.find((e) => e.document.uri.path.endsWith(`/${PREVIEW_FILE}`));
}

function previewTabs(): number {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.path.endsWith(`/${PREVIEW_FILE}`)).length;
}

suite('compaction preview', () => {
  const testServer = useTestServer();
  useSettings(settings);

  test('[ui] /compact opens the summary in an editor; an edited line is applied and sent, and Cancel leaves the conversation as it was', async function () {
    this.timeout(240_000);
    const api = await freshChat();
    const server = testServer();
    const main: ScriptedReply[] = [];
    let summaries = 0;
    server.setResponder((body) => {
      if (isSummary(body)) {
        summaries++;
        return reply(`<analysis>Four questions were answered.</analysis><summary>${SUMMARY}</summary>`);
      }
      return main.shift() ?? reply('(no scripted reply left)');
    });
    const turns = () => server.requests.filter((r) => !isSummary(r.body));
    const send = async (prompt: string, answer: string) => {
      main.push(reply(answer));
      await sendFromUi(prompt);
      await ui.waitForText('chat', '.item-assistant', answer, 60_000);
      await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 60_000);
    };
    const compactions = () =>
      api
        .chat()
        .inspectorContext()
        .timeline.filter((t) => t.kind === 'compaction');

    for (let i = 1; i <= 4; i++)
      await send(
        `Question ${i}: ${'tell me about the project. '.repeat(20)}`,
        `Answer ${i}: ${'it is a test. '.repeat(30)}`,
      );

    // 1. /compact writes the summary and shows it; nothing is applied yet.
    await sendFromUi('/compact');
    await waitUntil('the preview editor', () => previewEditor() !== undefined, 60_000);
    const editor = previewEditor()!;
    assert.equal(summaries, 1);
    assert.equal(editor.document.languageId, 'markdown');
    assert.match(editor.document.getText(), /^<!-- Engram: [\s\S]*-->\n1\. Request and intent: answer four questions/);
    assert.deepEqual(compactions(), [], 'nothing applied before Apply');
    await ui.waitForText('chat', '.item-notice', 'Review the summary in the editor', 20_000);
    await waitUntil('the chat to be free', () => !api.chat().snapshot().busy, 20_000);
    await chatInBothThemes('compaction-preview');

    // 2. Edit a line, then Apply from the editor's title.
    const line = editor.document
      .getText()
      .split('\n')
      .findIndex((l) => l.startsWith('9. Next step'));
    await editor.edit((b) =>
      b.replace(editor.document.lineAt(line).range, '9. Next step: write the release notes (edited in the preview).'),
    );
    await ui.clickWorkbench('.editor-actions [aria-label*="Apply Compaction Summary"]');
    await waitUntil('the compaction to apply', () => compactions().length === 1, 30_000);
    const applied = compactions()[0];
    assert.ok(
      applied.kind === 'compaction' && applied.event.summaryEdited === true,
      'the timeline knows the summary was edited',
    );
    await waitUntil('the preview editor to close', () => previewTabs() === 0, 20_000);
    await ui.waitForText('chat', '.item-notice', 'Your edited summary now opens the conversation', 20_000);

    await send('What is next?', 'Release notes, then.');
    const afterApply = turns()[turns().length - 1].body.messages;
    assert.match(textOf(afterApply[0]), /write the release notes \(edited in the preview\)/);
    assert.doesNotMatch(textOf(afterApply[0]), /wait for the next question/);
    assert.ok(!afterApply.some((m) => textOf(m).includes('Question 1:')), 'the summarised messages are gone');

    // 3. A second /compact, cancelled from the palette: the conversation goes on unchanged.
    await send(`Question 5: ${'and the tests? '.repeat(20)}`, `Answer 5: ${'they pass. '.repeat(30)}`);
    const beforeCancel = turns()[turns().length - 1].body.messages;
    await sendFromUi('/compact');
    await waitUntil('the second preview', () => previewEditor() !== undefined && summaries === 2, 60_000);
    await waitUntil('the chat to be free', () => !api.chat().snapshot().busy, 20_000);
    await ui.palette('Engram: Cancel Compaction');
    await waitUntil('the preview editor to close', () => previewTabs() === 0, 20_000);
    await ui.waitForText('chat', '.item-notice', 'Compaction cancelled', 20_000);
    assert.equal(compactions().length, 1, 'no second compaction');
    await send('Still there?', 'Yes, all of it.');
    const afterCancel = turns()[turns().length - 1].body.messages;
    assert.equal(afterCancel.length, beforeCancel.length + 2, 'the same conversation plus the new exchange');
    assert.equal(textOf(afterCancel[0]), textOf(beforeCancel[0]), 'it still opens with the edited summary');

    // 4. Closing the preview editor is a cancel too.
    await sendFromUi('/compact');
    await waitUntil('the third preview', () => previewEditor() !== undefined && summaries === 3, 60_000);
    await waitUntil('the chat to be free', () => !api.chat().snapshot().busy, 20_000);
    await vscode.window.showTextDocument(previewEditor()!.document);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    const cancelled =
      "[...document.querySelectorAll('.item-notice')].filter((n) => n.textContent.includes('Compaction cancelled')).length";
    await waitUntil('a second cancel notice', async () => (await ui.evaluate<number>('chat', cancelled)) === 2, 20_000);
    assert.equal(previewTabs(), 0);
    assert.equal(compactions().length, 1);
  });
});
