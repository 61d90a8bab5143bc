import assert from 'node:assert/strict';
import fs from 'node:fs';
import { acquireWriterLock } from '../../src/core/fs/writerLock';
import { readTranscript } from '../../src/core/conversation/transcriptReader';
import { TranscriptWriter } from '../../src/core/conversation/transcriptWriter';
import { answerBackground, freshChat, lastUserText, useTestServer } from './support';
import { waitUntil } from './ui';

// Issue #20, part 1, in the chat: a window holds its session only for a turn, so `engram -p --resume`
// (or another window) may take turns in between. The window's next message then comes after those
// turns, which it shows and the model gets; while another process has the turn, the window waits.

suite('one session, two writers', () => {
  const testServer = useTestServer();

  test('a turn another process added to the session is loaded, and the message follows it', async () => {
    const server = testServer();
    server.setResponder(
      (body) => answerBackground(body) ?? { content: [{ type: 'text', text: `answer to ${lastUserText(body)}` }] },
    );
    const api = await freshChat();
    await api.chat().send('first from the window');
    const file = api.chat().inspectorContext().transcriptPath;
    assert.ok(file && fs.existsSync(file), 'the session has a transcript');

    // What `engram -p --resume` leaves: its turn after the window's.
    const lines = (await readTranscript(file)).lines;
    const answer = [...lines].reverse().find((l) => l.type === 'assistant');
    const leaf = typeof answer?.uuid === 'string' ? answer.uuid : null;
    const sessionId = api.chat().currentSessionId ?? '';
    const terminal = new TranscriptWriter({
      file,
      sessionId,
      cwd: '/elsewhere',
      version: '0',
      entrypoint: 'cli',
      parentUuid: leaf,
    });
    await terminal.appendUserPrompt('asked from the terminal');
    await terminal.appendAssistantBlock(
      {
        id: 'msg_terminal',
        model: 'claude-test',
        stopReason: 'end_turn',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      { type: 'text', text: 'answered in the terminal' },
    );

    await api.chat().send('second from the window');
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 30_000);
    const sent = JSON.stringify(server.requests.at(-1)?.body.messages);
    for (const text of [
      'first from the window',
      'asked from the terminal',
      'answered in the terminal',
      'second from the window',
    ]) {
      assert.ok(sent.includes(text), `the request carries "${text}"`);
    }
    const items = JSON.stringify(api.chat().snapshot().items);
    assert.match(items, /This session was continued in another window or by engram -p/);
    assert.ok(items.includes('answered in the terminal'), 'the chat shows the terminal turn');
    assert.equal(api.chat().currentSessionId, sessionId, 'the same session goes on');
  });

  test('a turn waits while another process holds the session, and runs once it lets go', async () => {
    const server = testServer();
    server.setResponder((body) => answerBackground(body) ?? { content: [{ type: 'text', text: 'done' }] });
    const api = await freshChat();
    await api.chat().send('opens the session');
    const file = api.chat().inspectorContext().transcriptPath ?? '';
    const lock = await acquireWriterLock(file, { waitMs: 1000 });
    // Background work of the first turn (notes, memory) may still ask the model: count this turn's requests.
    const asked = (): number =>
      server.requests.filter((r) => lastUserText(r.body).includes('waits for the other writer')).length;
    const sending = api.chat().send('waits for the other writer');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(asked(), 0, 'nothing is sent while the other process has the turn');
    assert.equal(api.chat().snapshot().busy, true);
    await lock.release();
    await sending;
    assert.equal(asked(), 1, 'the turn ran after the lock was let go');
  });
});
