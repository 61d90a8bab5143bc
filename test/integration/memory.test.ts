import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { projectDir } from '../../src/core/conversation/projectKey';
import { EXTRACTION_MARKER } from '../../src/core/memory/autoMemory/memoryPrompts';
import type { ScriptedReply } from '../../src/testServer/anthropicTestServer';
import { freshChat, lastUserText, sendFromUi, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// Memory seen from the Chat view: a conversation that crosses the notes threshold gets session notes
// written by the forked updater, and the chat says so with a link that opens them.

const NOTES_MARKER = '<engram-session-notes-update>';

suite('memory in the Chat view', () => {
  const testServer = useTestServer();
  const config = () => vscode.workspace.getConfiguration('engram.sessionNotes');
  suiteSetup(() => config().update('initTokens', 1000, vscode.ConfigurationTarget.Global));
  suiteTeardown(() => config().update('initTokens', undefined, vscode.ConfigurationTarget.Global));

  test('[ui] session notes are written in the background past the threshold, announced with a link', async () => {
    await freshChat();
    const server = testServer();
    let notesPath = '';
    let updaterCalls = 0;
    server.setResponder((body): ScriptedReply => {
      const text = lastUserText(body);
      if (text.includes(NOTES_MARKER)) {
        updaterCalls++;
        notesPath = /\/[^\s`'"]*session-memory\/summary\.md/.exec(text)?.[0] ?? notesPath;
        if (updaterCalls === 1) {
          return {
            content: [
              {
                type: 'tool_use',
                name: 'Edit',
                input: {
                  file_path: notesPath,
                  old_string: '_What is in progress right now, what is still open, and the very next step_\n',
                  new_string:
                    '_What is in progress right now, what is still open, and the very next step_\nFixing the greeting in src/greet.js.\n',
                },
              },
            ],
          };
        }
        return { content: [{ type: 'text', text: 'Notes updated.' }] };
      }
      // The main conversation: big enough (by the usage it reports) to pass the 1,000-token mark.
      return {
        content: [{ type: 'text', text: 'Noted, the greeting lives in src/greet.js.' }],
        usage: { input_tokens: 1500 },
      };
    });
    await sendFromUi('Remember where the greeting lives');
    await ui.waitForText('chat', '.item-notice', 'Session notes written', 45_000);
    assert.ok(notesPath, 'the updater was not called');
    assert.match(
      fs.readFileSync(notesPath, 'utf8'),
      /# Current State\n_[^\n]*_\nFixing the greeting in src\/greet\.js\./,
    );
    await ui.click('chat', '.item-notice:has-text("Session notes written") .notice-link');
    await waitUntil(
      'the notes to open in an editor',
      () => vscode.window.activeTextEditor?.document.uri.fsPath === notesPath,
    );
    await ui.screenshot('chat-notes-updated');
  });
});

suite('remember', () => {
  const testServer = useTestServer();

  test('[ui] "Engram: Remember" has the agent write a topic file and its index line, with provenance and no prompt', async () => {
    const api = await freshChat();
    const server = testServer();
    // The workspace is its own git repository, so its memory is keyed by the workspace path.
    const memoryDir = path.join(
      projectDir(process.env.ENGRAM_DATA_DIR!, vscode.workspace.workspaceFolders![0].uri.fsPath),
      'memory',
    );
    const topic = path.join(memoryDir, 'greeting-style.md');
    server.setResponder((body): ScriptedReply | undefined => {
      const text = lastUserText(body);
      if (text.includes(EXTRACTION_MARKER)) return { content: [{ type: 'text', text: 'Nothing new.' }] };
      const wrote = body.messages.some(
        (m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'),
      );
      if (!wrote) {
        return {
          content: [
            {
              type: 'tool_use',
              name: 'Write',
              input: {
                file_path: topic,
                content:
                  '---\nname: Greeting style\ndescription: The user wants greetings to say "Hi there"\ntype: feedback\n---\nGreetings say "Hi there".\n**Why:** the user asked for it.\n**How to apply:** use it in every greet function.\n',
              },
            },
          ],
        };
      }
      return { content: [{ type: 'text', text: 'Saved.' }] };
    });
    void vscode.commands.executeCommand('engram.remember', 'greetings should say Hi there');
    await ui.waitForText('chat', '.item-notice', 'Memory saved', 45_000);
    assert.equal(api.chat().memoryDirectory, memoryDir);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy);
    const file = fs.readFileSync(topic, 'utf8');
    assert.match(file, /originSessionId: ['"]?[\w-]+/);
    const index = fs.readFileSync(path.join(memoryDir, 'MEMORY.md'), 'utf8');
    assert.match(index, /\[Greeting style\]\(greeting-style\.md\)/);
    const items = api.chat().snapshot().items;
    assert.equal(items.filter((i) => i.kind === 'permission').length, 0, 'writing memory needs no permission prompt');
    assert.ok(items.some((i) => i.kind === 'user' && i.text === 'Remember: greetings should say Hi there'));
    await api.chat().idleForTests();
    assert.equal(
      server.requests.filter((r) => lastUserText(r.body).includes(EXTRACTION_MARKER)).length,
      0,
      'the turn where the main agent wrote memory skips background extraction',
    );
    server.setResponder(undefined);
  });
});
