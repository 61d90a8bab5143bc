// Taking back the newest turn (the chat's retry and edit): the list and the transcript go back to what
// they were before its prompt, tool calls leave with their results, and a resume reads the new branch.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ApiMessage } from '../../../src/core/conversation/types';
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
const uncached = (messages: readonly ApiMessage[]) => (JSON.parse(JSON.stringify(messages, (k, v: unknown) => (k === 'cache_control' ? undefined : v))) as ApiMessage[])
  .map((m) => ({ role: m.role, content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content }));

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
    assert.deepEqual(uncached(request.messages.slice(0, afterFirst.length)), uncached(afterFirst), 'the retry is sent on the turn before');
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
    assert.deepEqual(agent.messages[0].content, [{ type: 'text', text: 'first' }, { type: 'text', text: 'third' }]);
    await assertTranscriptMatches(session.transcriptPath, agent.messages);
    agent.replaceMessages(copy(agent.messages));
    assert.equal(agent.rewindLastTurn(), undefined, 'a compaction or undo swapped the list');
  });
});
