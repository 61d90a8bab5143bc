// Issue #20, part 2: an answer cut off mid-stream is kept, and marked as cut, in the conversation and in
// the transcript alike, so the model does not take it for a whole answer and a resumed session sends
// the same bytes. And a session opened as the hosts open it takes its stall limit and retries from the
// settings, and says each retry as the Chat view shows it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentEvent } from '../../../src/core/agent/events';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { resolveModelConfig } from '../../../src/core/llm/modelConfig';
import { openHostSession } from '../../../src/core/host/sessions';
import { resolveSettings } from '../../../src/core/settings/engramSettings';
import { assertApiValid, assertTranscriptMatches, startSession } from '../support/agentHarness';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();

function lastText(message: ApiMessage | undefined): string {
  assert.ok(message && Array.isArray(message.content));
  const last = message.content[message.content.length - 1];
  return last.type === 'text' ? last.text : `(${last.type})`;
}

describe('a reply cut off mid-stream', () => {
  it('is kept with a note that it was cut, in the conversation and the transcript, and the next request carries both', async () => {
    // 0 message_start, 1 content_block_start, 2 ping, 3.. text deltas: the connection drops after a few words.
    server.enqueue({
      content: [{ type: 'text', text: 'Step one is to open the file, step two is to ' }],
      dropAfterEvents: 4,
    });
    const { session } = await startSession(server, {
      workspace: tempDir('engram-ws-'),
      dataDir: tempDir('engram-data-'),
    });
    const result = await session.agent.runTurn('how?');
    assert.equal(result.reason, 'error');
    assert.equal(result.error?.kind, 'connectionDropped');
    const kept = session.agent.messages[1];
    assert.ok(Array.isArray(kept.content) && kept.content.length === 2, JSON.stringify(kept.content));
    assert.ok(
      kept.content[0].type === 'text' &&
        'Step one is to open the file, step two is to '.startsWith(kept.content[0].text),
    );
    assert.equal(lastText(kept), '[This reply was cut off: the connection broke before it was complete.]');
    assertApiValid(session.agent.messages);
    await assertTranscriptMatches(session.transcriptPath, session.agent.messages);

    server.enqueue({ content: [{ type: 'text', text: 'Step two is to save it.' }] });
    await session.agent.runTurn('go on');
    const sent = server.requests[server.requests.length - 1].body.messages;
    assert.equal(lastText(sent[1]), '[This reply was cut off: the connection broke before it was complete.]');
  });

  it('a reply with nothing said yet gets no note (nothing of it is kept)', async () => {
    server.enqueue(
      { content: [{ type: 'text', text: 'never arrives' }], dropAfterEvents: 1 },
      { content: [{ type: 'text', text: 'ok' }] },
    );
    const { session } = await startSession(server, {
      workspace: tempDir('engram-ws-'),
      dataDir: tempDir('engram-data-'),
    });
    const result = await session.agent.runTurn('hi');
    assert.equal(result.text, 'ok', 'retried: nothing had been shown');
    assert.equal(session.agent.messages.length, 2);
  });
});

describe('a session opened as the hosts open it, on a silent server', () => {
  it('gives up after the stall limit and the retries of its settings, saying each retry', async () => {
    const hang = { content: [{ type: 'text' as const, text: 'never sent' }], hang: true };
    server.enqueue(hang, hang);
    const session = await openHostSession(
      {
        dataDir: tempDir('engram-data-'),
        cwd: tempDir('engram-ws-'),
        model: resolveModelConfig({ baseUrl: server.url, model: 'claude-test' }, { ANTHROPIC_API_KEY: 'k' }, undefined),
        trusted: true,
        version: '0.0.0-test',
        entrypoint: 'test',
      },
      resolveSettings({
        'network.stallSeconds': 0.3,
        'network.maxRetries': 1,
        'sessionNotes.enabled': false,
        'memory.enabled': false,
      }).settings,
    );
    const events: AgentEvent[] = [];
    session.agent.on((e) => events.push(e));
    const started = Date.now();
    const result = await session.runTurn('hello?');
    const ms = Date.now() - started;
    await session.finish();
    assert.equal(result.reason, 'error');
    assert.match(
      result.error?.message ?? '',
      new RegExp(`^No data from ${server.url}/v1/messages for 0\\.3 s: .*Gave up after 2 attempts`, 's'),
    );
    const retries = events.filter((e) => e.type === 'retrying');
    assert.equal(retries.length, 1);
    assert.match(retries[0].type === 'retrying' ? retries[0].reason : '', /No data from/);
    assert.ok(ms < 2 * 300 + 1_250 + 1_500, `ended after ${ms} ms`);
  });
});
