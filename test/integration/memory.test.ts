import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as vscode from 'vscode';
import type { MessagesRequestBody, ScriptedReply } from '../../src/server/anthropicTestServer';
import { startTestServer, type TestServer } from '../../src/server/anthropicTestServer';
import type { EngramApi } from '../../src/extension';
import { ui, waitUntil } from './ui';

// Memory seen from the Chat view: a conversation that crosses the notes threshold gets session notes
// written by the forked updater, and the chat says so with a link that opens them.

const NOTES_MARKER = '<engram-session-notes-update>';

function lastUserText(body: MessagesRequestBody): string {
  const last = body.messages[body.messages.length - 1];
  if (typeof last.content === 'string') return last.content;
  return last.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

suite('memory in the Chat view', () => {
  let server: TestServer;
  const config = () => vscode.workspace.getConfiguration('engram.sessionNotes');

  suiteSetup(async () => {
    server = await startTestServer({});
    process.env.ANTHROPIC_BASE_URL = server.url;
    process.env.ANTHROPIC_API_KEY = 'test-key';
    await config().update('initTokens', 1000, vscode.ConfigurationTarget.Global);
  });
  suiteTeardown(async () => {
    server.setResponder(undefined);
    await config().update('initTokens', undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  test('[ui] session notes are written in the background past the threshold, announced with a link', async () => {
    const api = await vscode.extensions.getExtension<EngramApi>('engram-dev.engram')!.activate();
    api.chat().newChat();
    await vscode.commands.executeCommand('engram.focusChat');
    await waitUntil('the chat view', () => api.chatView.view !== undefined);
    let notesPath = '';
    let updaterCalls = 0;
    server.setResponder((body): ScriptedReply => {
      const text = lastUserText(body);
      if (text.includes(NOTES_MARKER)) {
        updaterCalls++;
        notesPath = /\/[^\s`'"]*session-memory\/summary\.md/.exec(text)?.[0] ?? notesPath;
        if (updaterCalls === 1) {
          return { content: [{ type: 'tool_use', name: 'Edit', input: {
            file_path: notesPath,
            old_string: '_What is in progress right now, what is still open, and the very next step_\n',
            new_string: '_What is in progress right now, what is still open, and the very next step_\nFixing the greeting in src/greet.js.\n',
          } }] };
        }
        return { content: [{ type: 'text', text: 'Notes updated.' }] };
      }
      // The main conversation: big enough (by the usage it reports) to pass the 1,000-token mark.
      return { content: [{ type: 'text', text: 'Noted, the greeting lives in src/greet.js.' }], usage: { input_tokens: 1500 } };
    });
    await ui.fill('chat', '#prompt', 'Remember where the greeting lives');
    await ui.press('Enter');
    await ui.waitForText('chat', '.item-notice', 'Session notes written', 45_000);
    assert.ok(notesPath, 'the updater was not called');
    assert.match(fs.readFileSync(notesPath, 'utf8'), /# Current State\n_[^\n]*_\nFixing the greeting in src\/greet\.js\./);
    await ui.click('chat', '.notice-link');
    await waitUntil('the notes to open in an editor', () => vscode.window.activeTextEditor?.document.uri.fsPath === notesPath);
    await ui.screenshot('chat-notes-updated');
  });
});
