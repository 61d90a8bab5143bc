// Taking back the newest turn (the chat's retry and edit): the list and the transcript go back to what
// they were before its prompt, tool calls leave with their results, and a resume reads the new branch:
// after a send that failed for good (errors after every retry, or no connection), and even when the
// session is reopened from disk between the rewind and the retried prompt (a model change does that).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ApiMessage } from '../../../src/core/conversation/types';
import type { ScriptedReply } from '../../../src/testServer/anthropicTestServer';
import { assertApiValid, assertTranscriptMatches, startSession } from '../support/agentHarness';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();

function dirs(): { workspace: string; dataDir: string; file: string } {
  const workspace = tempDir('engram-ws-');
  const file = path.join(workspace, 'notes.txt');
  fs.writeFileSync(file, 'the answer is 42\n');
  return { workspace, dataDir: tempDir('engram-data-'), file };
}

const copy = (messages: readonly ApiMessage[]) => JSON.parse(JSON.stringify(messages)) as ApiMessage[];
/** The request as sent, without the prompt-cache marks the client adds. */
const uncached = (messages: readonly ApiMessage[]) =>
  (
    JSON.parse(JSON.stringify(messages, (k, v: unknown) => (k === 'cache_control' ? undefined : v))) as ApiMessage[]
  ).map((m) => ({
    role: m.role,
    content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content,
  }));

describe('rewinding the last turn', () => {
  it('drops a tool-using turn whole, and the retried turn is what a resume reads', async () => {
    const { workspace, dataDir, file } = dirs();
    server.enqueue(
      { content: [{ type: 'text', text: 'Hello.' }] },
      { content: [{ type: 'tool_use', name: 'Read', input: { file_path: file } }] },
      { content: [{ type: 'text', text: 'It says 42.' }] },
      { content: [{ type: 'text', text: 'Second try: 42.' }] },
    );
    const { session } = await startSession(server, { workspace, dataDir });
    const agent = session.agent;
    assert.equal(agent.rewindLastTurn(), undefined, 'nothing to take back before a turn');
    await agent.runTurn('hi');
    const afterFirst = copy(agent.messages);
    await agent.runTurn('what does notes.txt say?');
    assert.equal(agent.messages.length, afterFirst.length + 4, 'prompt, tool call, result, answer');

    assert.deepEqual(agent.rewindLastTurn(), { prompt: 'what does notes.txt say?' });
    assert.deepEqual(agent.messages, afterFirst);
    assert.equal(agent.rewindLastTurn(), undefined, 'only the newest turn can be taken back');

    const sent = server.requests.length;
    await agent.runTurn('what does notes.txt say, briefly?');
    const request = server.requests[sent].body;
    assert.deepEqual(
      uncached(request.messages.slice(0, afterFirst.length)),
      uncached(afterFirst),
      'the retry is sent on the turn before',
    );
    assert.equal(request.messages.length, afterFirst.length + 1, JSON.stringify(request.messages));
    assertApiValid(agent.messages);
    await assertTranscriptMatches(session.transcriptPath, agent.messages);
  });

  it('puts back the unanswered prompt a failed turn left, and refuses after the list was swapped', async () => {
    const { workspace, dataDir } = dirs();
    server.enqueue(
      { error: { status: 400, type: 'invalid_request_error', message: 'no' } },
      { content: [{ type: 'text', text: 'Answered both.' }] },
    );
    const { session } = await startSession(server, { workspace, dataDir });
    const agent = session.agent;
    await agent.runTurn('first');
    const unanswered = copy(agent.messages);
    assert.equal(unanswered.length, 1);
    await agent.runTurn('second');
    assert.deepEqual(agent.rewindLastTurn(), { prompt: 'second' });
    assert.deepEqual(agent.messages, unanswered);

    await agent.runTurn('third');
    assert.deepEqual(agent.messages[0].content, [
      { type: 'text', text: 'first' },
      { type: 'text', text: 'third' },
    ]);
    await assertTranscriptMatches(session.transcriptPath, agent.messages);
    agent.replaceMessages(copy(agent.messages));
    assert.equal(agent.rewindLastTurn(), undefined, 'a compaction or undo swapped the list');
  });

  // The first request and both retries fail: the turn ends in an error before the model wrote anything.
  const FAILED_SEND: Array<[string, ScriptedReply]> = [
    ['the API answers 500', { error: { status: 500, type: 'api_error', message: 'Internal server error' } }],
    ['the API is overloaded', { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }],
    ['the connection drops', { content: [{ type: 'text', text: 'never sent' }], dropAfterEvents: 0 }],
  ];
  const retry = { policy: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 10 } };
  const resume = (sessionId: string, where: { workspace: string; dataDir: string }) =>
    startSession(server, { ...where, resumeSessionId: sessionId, retry });

  for (const [what, failure] of FAILED_SEND) {
    it(`a send that failed for good (${what}), then Retry: a resume reads the prompt once, and the reply`, async () => {
      const where = dirs();
      server.enqueue(failure, failure, failure, { content: [{ type: 'text', text: 'Hello.' }] });
      const { session } = await startSession(server, { ...where, retry });
      const sent = server.requests.length;
      const failed = await session.agent.runTurn('hi');
      assert.equal(failed.reason, 'error');
      assert.equal(server.requests.length - sent, 3, 'the request and two retries');
      assert.deepEqual(session.agent.rewindLastTurn(), { prompt: 'hi' });
      assert.equal((await session.agent.runTurn('hi')).reason, 'end_turn');
      const expected: ApiMessage[] = [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
      ];
      assert.deepEqual(session.agent.messages, expected);
      const resumed = await resume(session.sessionId, where);
      assert.deepEqual(resumed.session.agent.messages, expected);
    });
  }

  it('is on disk before the retried prompt: a session reopened in between reads the conversation before the turn', async () => {
    const where = dirs();
    const fail: ScriptedReply = { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } };
    server.enqueue({ content: [{ type: 'text', text: 'Hello.' }] }, fail, fail, fail, {
      content: [{ type: 'text', text: 'Four.' }],
    });
    const { session } = await startSession(server, { ...where, retry });
    await session.agent.runTurn('hi');
    const before = copy(session.agent.messages);
    assert.equal((await session.agent.runTurn('what is 2 + 2?')).reason, 'error');
    session.agent.rewindLastTurn();
    // Reopened from the transcript right away, as the Chat view does when the model changed.
    const reopened = (await resume(session.sessionId, where)).session;
    assert.deepEqual(reopened.agent.messages, before);
    const sent = server.requests.length;
    await reopened.agent.runTurn('what is 2 + 2?');
    const asked = server.requests[sent].body.messages;
    assert.equal(asked.length, before.length + 1, 'the dropped prompt is not sent again');
    assert.equal(JSON.stringify(asked).split('what is 2 + 2?').length - 1, 1, JSON.stringify(asked));
    const again = await resume(session.sessionId, where);
    assert.deepEqual(again.session.agent.messages, [
      ...before,
      { role: 'user', content: 'what is 2 + 2?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Four.' }] },
    ]);
    await assertTranscriptMatches(session.transcriptPath, again.session.agent.messages);
  });

  it('takes back a first turn that failed: reopened, the conversation is empty', async () => {
    const where = dirs();
    server.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'no' } });
    const { session } = await startSession(server, where);
    await session.agent.runTurn('hi');
    session.agent.rewindLastTurn();
    assert.deepEqual((await resume(session.sessionId, where)).session.agent.messages, []);
  });
});
