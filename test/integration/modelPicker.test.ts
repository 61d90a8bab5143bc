import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { freshChat, lastUserText, sendFromUi, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// The model picker on an open conversation, clicked in the real Chat view against the project's test
// server over real HTTP: the header button opens "Engram: Choose Model", and the next message goes to
// the chosen model with the conversation so far.

suite('chat model picker', () => {
  const testServer = useTestServer();

  test('[ui] chat model picker: the next message goes to the chosen model and the conversation continues', async () => {
    const api = await freshChat();
    const server = testServer();
    const config = vscode.workspace.getConfiguration('engram');
    const before = config.get<string>('model');
    const chosen = before === 'claude-haiku-4-5' ? 'claude-opus-4-5' : 'claude-haiku-4-5';
    // Each turn's background memory pass asks the same server: it gets its own quick answer, and the
    // test waits for it after each turn, so it never takes a reply scripted for the chat.
    server.setResponder((body) =>
      lastUserText(body).startsWith('[Engram background memory pass]')
        ? { content: [{ type: 'text', text: 'nothing to save' }] }
        : undefined,
    );
    try {
      server.enqueue({ content: [{ type: 'text', text: 'The first answer.' }] });
      let sent = server.requests.length;
      await sendFromUi('the first question');
      await ui.waitForText('chat', '.item-assistant', 'The first answer.');
      assert.equal(server.requests[sent].body.model, before);
      await waitUntil('the first turn to end', () => !api.chat().snapshot().busy);
      await api.chat().idleForTests();

      // The header button runs the command; the quick pick is answered as a person would.
      await ui.click('chat', '#model-picker');
      await ui.quickPick(chosen);
      await waitUntil(
        'the model setting to change',
        () => vscode.workspace.getConfiguration('engram').get('model') === chosen,
      );
      await ui.waitForText('chat', '.item-notice', `Model set to ${chosen}`);
      await ui.waitForText('chat', '#model-picker', chosen);

      server.enqueue({ content: [{ type: 'text', text: 'The second answer.' }] });
      sent = server.requests.length;
      await sendFromUi('the second question');
      await ui.waitForText('chat', '.item-assistant', 'The second answer.');
      const body = server.requests[sent].body;
      assert.equal(body.model, chosen);
      assert.deepEqual(
        body.messages.map((m) => m.role),
        ['user', 'assistant', 'user'],
      );
      assert.match(JSON.stringify(body.messages[0].content), /the first question/);
      assert.match(JSON.stringify(body.messages[1].content), /The first answer\./);
      assert.equal(lastUserText(body), 'the second question');
      await waitUntil('the second turn to end', () => !api.chat().snapshot().busy);
      await api.chat().idleForTests();

      // Again through the command palette, back to the first model: the third message goes there.
      await ui.palette('Engram: Choose Model...');
      await ui.quickPick(before!);
      await waitUntil(
        'the model setting to change back',
        () => vscode.workspace.getConfiguration('engram').get('model') === before,
      );
      await ui.waitForText('chat', '#model-picker', before!);
      server.enqueue({ content: [{ type: 'text', text: 'The third answer.' }] });
      sent = server.requests.length;
      await sendFromUi('the third question');
      await ui.waitForText('chat', '.item-assistant', 'The third answer.');
      assert.equal(server.requests[sent].body.model, before);
      assert.equal(server.requests[sent].body.messages.length, 5);
      await waitUntil('the third turn to end', () => !api.chat().snapshot().busy);
      const items = api
        .chat()
        .snapshot()
        .items.filter((i) => i.kind === 'user' || i.kind === 'assistant');
      assert.deepEqual(
        items.map((i) => i.kind),
        ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'],
        'the view keeps the earlier turns',
      );
    } finally {
      server.setResponder(undefined);
      await config.update('model', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    }
  });
});
