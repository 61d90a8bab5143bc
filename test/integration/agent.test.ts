import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { projectDir } from '../../src/core/conversation/projectKey';
import { engram, freshChat, sendFromUi, useSettings, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// A real multi-turn, tool-using conversation in the Chat view against the project's Anthropic-compatible
// test server (real @anthropic-ai/sdk over real HTTP), with permission prompts answered by clicking.

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const stateFile = () => path.join(process.env.ENGRAM_DATA_DIR!, 'test-agent-session.json');

function transcriptLines(sessionId: string): Array<Record<string, unknown>> {
  const file = path.join(projectDir(process.env.ENGRAM_DATA_DIR!, workspace()), `${sessionId}.jsonl`);
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.endsWith('\n'), 'every transcript line ends with a newline');
  return text
    .trimEnd()
    .split('\n')
    .map((line, i) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`transcript line ${i + 1} is not JSON: ${line.slice(0, 80)}`);
      }
    });
}

/** The keys Claude Code writes on conversation lines (see ../shared/fixtures/claude-code-2.1.88). */
function assertClaudeCodeShape(lines: Array<Record<string, unknown>>, sessionId: string): void {
  const conversation = lines.filter((l) => l.type === 'user' || l.type === 'assistant');
  assert.ok(conversation.length > 0);
  for (const line of conversation) {
    for (const key of [
      'parentUuid',
      'isSidechain',
      'type',
      'message',
      'uuid',
      'timestamp',
      'userType',
      'cwd',
      'sessionId',
      'version',
    ]) {
      assert.ok(key in line, `line ${String(line.uuid)} has no ${key}`);
    }
    assert.equal(line.sessionId, sessionId);
    assert.equal(line.isSidechain, false);
    const message = line.message as { role: string; id?: string; usage?: unknown; content: unknown };
    assert.equal(message.role, line.type);
    if (line.type === 'assistant') {
      assert.match(String(message.id), /^msg_/);
      assert.ok(message.usage, 'assistant lines carry usage');
      assert.equal((message.content as unknown[]).length, 1, 'one line per streamed content block');
    }
  }
  const uuids = new Set(conversation.map((l) => l.uuid));
  for (const line of conversation.slice(1))
    assert.ok(uuids.has(line.parentUuid), `parent of ${String(line.uuid)} is missing`);
  const results = conversation.filter(
    (l) =>
      Array.isArray((l.message as { content: unknown }).content) &&
      (l.message as { content: Array<{ type: string }> }).content.some((b) => b.type === 'tool_result'),
  );
  for (const r of results)
    assert.ok(
      r.toolUseResult !== undefined && typeof r.sourceToolAssistantUUID === 'string',
      'tool result lines link to their call',
    );
}

suite('agent in the Chat view', () => {
  const testServer = useTestServer();
  // The background memory agents have their own tests; here every request is the conversation's.
  useSettings([
    ['engram.memory', 'extraction.enabled', false],
    ['engram.sessionNotes', 'enabled', false],
  ]);

  test('[ui] a multi-turn conversation with Grep, Read, Edit (permission clicked in the view) and Bash', async () => {
    const api = await freshChat();
    const server = testServer();
    server.enqueue(
      {
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', name: 'Grep', input: { pattern: 'function greet', output_mode: 'files_with_matches' } },
        ],
      },
      { content: [{ type: 'tool_use', name: 'Read', input: { file_path: 'src/greet.js' } }] },
      {
        content: [
          {
            type: 'tool_use',
            name: 'Edit',
            input: { file_path: 'src/greet.js', old_string: 'Hello, ', new_string: 'Hi there, ' },
          },
        ],
      },
      {
        content: [
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: "node -e \"console.log(require('./src/greet.js').greet('Ada'))\"" },
          },
        ],
      },
      { content: [{ type: 'text', text: 'Done: **greet** now says "Hi there".' }] },
    );
    await sendFromUi('Make greet say Hi there');
    // Each click names its card: right after Edit's "Allow once" its card still has its other buttons
    // until the view redraws, and a bare selector would click Edit's "Always allow" instead of Bash's.
    await ui.click('chat', '.item-permission:has-text("Edit wants to run") [id^="allow-once-"]', 30_000);
    await ui.click('chat', '.item-permission:has-text("Bash wants to run") [id^="allow-session-"]', 30_000);
    await ui.waitForText('chat', '.item-assistant', 'now says', 30_000);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy);

    assert.equal(
      fs.readFileSync(path.join(workspace(), 'src/greet.js'), 'utf8').includes('Hi there, '),
      true,
      'the edit was not applied',
    );
    const items = api.chat().snapshot().items;
    const tools = items.filter((i) => i.kind === 'tool');
    assert.deepEqual(
      tools.map((t) => t.kind === 'tool' && `${t.name}:${t.status}`),
      ['Grep:done', 'Read:done', 'Edit:done', 'Bash:done'],
    );
    const bash = tools[3];
    assert.ok(bash.kind === 'tool' && bash.result?.includes('Hi there, Ada!'), 'Bash ran the edited code');
    assert.equal(
      items.filter((i) => i.kind === 'permission').length,
      2,
      'read-only tools asked nothing; Edit and Bash asked',
    );
    await ui.screenshot('chat-conversation');

    // Second turn: Bash is now allowed for the session, so no prompt appears.
    server.enqueue(
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'ls src' } }] },
      { content: [{ type: 'text', text: 'src holds greet.js.' }] },
    );
    await sendFromUi('What is in src?');
    await ui.waitForText('chat', '.item-assistant', 'src holds greet.js', 30_000);
    await waitUntil('the second turn to end', () => !api.chat().snapshot().busy);
    assert.equal(
      api
        .chat()
        .snapshot()
        .items.filter((i) => i.kind === 'permission').length,
      2,
    );

    // Every request the extension sent was one the API accepts, and the cache was used from the 2nd call on.
    assert.equal(server.requests.length, 7);
    for (const r of server.requests) assert.equal(r.status, 200, r.error);
    assert.ok(
      server.requests.every((r) => JSON.stringify(r.body).includes('cache_control')),
      'requests carry cache breakpoints',
    );
    const gaugeUsed = api.chat().snapshot().gauge.usedTokens;
    assert.ok(gaugeUsed > 0, 'the gauge counts the conversation');

    const sessionId = api.chat().snapshot().sessionId!;
    const lines = transcriptLines(sessionId);
    assertClaudeCodeShape(lines, sessionId);
    const history = fs
      .readFileSync(path.join(process.env.ENGRAM_DATA_DIR!, 'history.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { display: string; sessionId: string });
    assert.deepEqual(
      history.filter((h) => h.sessionId === sessionId).map((h) => h.display),
      ['Make greet say Hi there', 'What is in src?'],
    );
    fs.writeFileSync(stateFile(), JSON.stringify({ sessionId, lines: lines.length, requests: server.requests.length }));
  });

  test('[ui] the stop button cancels a streaming answer and leaves a conversation the API accepts', async () => {
    const api = await freshChat();
    const server = testServer();
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    server.enqueue({ content: [{ type: 'text', text: long }], chunkDelayMs: 50 });
    const before = server.requests.length;
    await sendFromUi('Tell me a long story');
    await ui.waitForText('chat', '.item-assistant', 'word', 30_000);
    await ui.click('chat', '#stop');
    await ui.waitForText('chat', '.item-notice', 'Stopped.', 30_000);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy);
    server.enqueue({ content: [{ type: 'text', text: 'A short one then.' }] });
    await sendFromUi('Shorter, please');
    await ui.waitForText('chat', '.item-assistant', 'A short one then.', 30_000);
    const last = server.requests[server.requests.length - 1];
    assert.equal(server.requests.length, before + 2);
    assert.equal(last.status, 200, last.error);
  });

  test('[ui] an authentication error is shown in words with the action that fixes it', async () => {
    const api = await freshChat();
    const server = testServer();
    server.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    await sendFromUi('hello?');
    const text = await ui.waitForText('chat', '.notice-error', 'API key', 30_000);
    assert.match(text, /API key/i);
    assert.equal((await ui.text('chat', '.notice-error .notice-action')).trim(), 'Set API Key');
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy);
  });

  test('[ui] [after-reload] the session is resumed from its transcript after the window reloads', async () => {
    const before = JSON.parse(fs.readFileSync(stateFile(), 'utf8')) as { sessionId: string; lines: number };
    const api = await engram();
    const server = testServer();
    await vscode.commands.executeCommand('engram.focusChat');
    await waitUntil('the chat view', () => api.chatView.view !== undefined);
    await ui.click('chat', '[aria-label="Resume an earlier session"]');
    await ui.click('chat', `[data-session="${before.sessionId}"]`);
    await ui.waitForText('chat', '.item-user', 'Make greet say Hi there', 30_000);
    await ui.waitForText('chat', '.item-assistant', 'src holds greet.js');
    assert.equal(api.chat().snapshot().sessionId, before.sessionId);

    server.enqueue({ content: [{ type: 'text', text: 'Still here after the reload.' }] });
    await sendFromUi('Are you still there?');
    await ui.waitForText('chat', '.item-assistant', 'Still here after the reload', 30_000);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy);

    const request = server.requests[0];
    assert.equal(request.status, 200, request.error);
    const sent = JSON.stringify(request.body.messages);
    assert.ok(
      sent.includes('Make greet say Hi there') && sent.includes('What is in src?'),
      'the resumed request carries the earlier turns',
    );
    const lines = transcriptLines(before.sessionId);
    assert.ok(lines.length > before.lines, 'the resumed session appends to the same transcript');
    assertClaudeCodeShape(lines, before.sessionId);
    await ui.screenshot('chat-resumed');
  });
});
