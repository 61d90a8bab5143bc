// Forked agents: shared prefix (and prompt cache), own permission rule, own sidechain transcript.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fork, forkMessages } from '../../../src/core/agent/forkedAgent';
import { subagentTranscriptPath } from '../../../src/core/conversation/projectKey';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import type { ApiMessage, ContentBlock, SystemBlock, UserLine } from '../../../src/core/conversation/types';
import { assertApiValid, startSession } from '../support/agentHarness';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;

const BIG_SYSTEM: SystemBlock[] = [{ type: 'text', text: 'Stable guidance for the test. '.repeat(300) }];

function strip(messages: ApiMessage[]): unknown {
  return JSON.parse(JSON.stringify(messages, (k, v) => (k === 'cache_control' ? undefined : v)));
}

describe('fork', () => {
  it('shares the parent prefix byte for byte (and its cache), denies what its rule denies, and writes a sidechain transcript', async () => {
    workspace = tempDir('engram-ws-');
    dataDir = tempDir('engram-data-');
    const { session } = await startSession(server, { workspace, dataDir });
    session.agent.setSystem(BIG_SYSTEM);
    server.enqueue({ content: [{ type: 'text', text: 'Parent answer.' }] });
    await session.agent.runTurn('parent question');
    const parentRequest = server.requests[server.requests.length - 1];
    const parentMessages = session.agent.messages.slice();

    server.enqueue(
      { content: [{ type: 'tool_use', id: 'toolu_rm', name: 'Bash', input: { command: 'rm -rf /' } }] },
      { content: [{ type: 'text', text: 'Notes written.' }] },
    );
    const first = server.requests.length;
    const result = await fork({
      parent: session.agent,
      extraUserMessage: 'Update the session notes.',
      canUseTool: (tool) =>
        tool.name === 'Edit'
          ? { allow: true }
          : { allow: false, reason: 'Only Edit on the notes file is allowed here.' },
      maxTurns: 3,
      agentId: 'notes1',
    });

    assert.equal(result.reason, 'end_turn');
    assert.equal(result.text, 'Notes written.');
    assert.equal(result.modelCalls, 2);
    assert.deepEqual(session.agent.messages, parentMessages, 'the parent conversation is untouched');

    const forkFirst = server.requests[first];
    assert.deepEqual(forkFirst.body.system, parentRequest.body.system, 'same system prompt');
    assert.deepEqual(forkFirst.body.tools, parentRequest.body.tools, 'same tool schemas');
    assert.deepEqual(
      strip(forkFirst.body.messages.slice(0, parentRequest.body.messages.length)),
      strip(parentRequest.body.messages),
      'same message prefix',
    );
    assert.deepEqual(
      strip(forkFirst.body.messages.slice(0, parentMessages.length)),
      strip(
        parentMessages.map((m) => ({
          role: m.role,
          content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content,
        })) as ApiMessage[],
      ),
      'then the parent answer, unchanged',
    );
    assert.ok((forkFirst.usage?.cache_read_input_tokens ?? 0) > 0, 'the fork read the parent cache');

    const denied = server.requests[first + 1].body.messages.at(-1)?.content as ContentBlock[];
    assert.deepEqual(strip([{ role: 'user', content: [denied[0]] }]), [
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_rm',
            content: 'Only Edit on the notes file is allowed here.',
            is_error: true,
          },
        ],
      },
    ]);
    assert.ok(result.usage.output_tokens > 0);

    const file = subagentTranscriptPath(dataDir, workspace, session.sessionId, 'notes1');
    const lines = (await readTranscript(file)).lines.filter((l) => l.type === 'user' || l.type === 'assistant');
    assert.ok(lines.length >= 4);
    assert.ok(lines.every((l) => l.isSidechain === true && l.agentId === 'notes1'));
    assert.equal((lines[0] as UserLine).message.content, 'Update the session notes.');
  });

  it('stops at maxTurns, answering the calls it will not run', async () => {
    workspace = tempDir('engram-ws-');
    dataDir = tempDir('engram-data-');
    const { session } = await startSession(server, { workspace, dataDir });
    server.enqueue({ content: [{ type: 'text', text: 'hello' }] });
    await session.agent.runTurn('hi');
    server.enqueue(
      { content: [{ type: 'tool_use', name: 'Grep', input: { pattern: 'x' } }] },
      { content: [{ type: 'tool_use', name: 'Grep', input: { pattern: 'y' } }] },
    );
    const result = await fork({
      parent: session.agent,
      extraUserMessage: 'look',
      canUseTool: () => ({ allow: true }),
      maxTurns: 2,
    });
    assert.equal(result.reason, 'max_turns');
    assert.equal(result.modelCalls, 2);
    assertApiValid(result.messages);
    const last = result.messages.at(-1)?.content as ContentBlock[];
    assert.match(String(last[0].type === 'tool_result' && last[0].content), /limit/);
  });

  it('can run from an afterModelResponse hook while the parent waits on tool calls', async () => {
    workspace = tempDir('engram-ws-');
    dataDir = tempDir('engram-data-');
    const { session } = await startSession(server, { workspace, dataDir });
    server.enqueue(
      { content: [{ type: 'tool_use', id: 'toolu_p', name: 'Grep', input: { pattern: 'zzz' } }] }, // parent
      { content: [{ type: 'text', text: 'side task done' }] }, // fork
      { content: [{ type: 'text', text: 'parent done' }] }, // parent again
    );
    const forkTexts: string[] = [];
    session.agent.hooks.afterModelResponse.add('side', async ({ agent, response }) => {
      if (response.stopReason !== 'tool_use') return;
      const r = await fork({
        parent: agent,
        extraUserMessage: 'side task',
        canUseTool: () => ({ allow: false, reason: 'no' }),
        maxTurns: 1,
      });
      forkTexts.push(r.text);
    });
    const result = await session.agent.runTurn('search');
    assert.equal(result.text, 'parent done');
    assert.deepEqual(forkTexts, ['side task done']);
    assert.ok(server.requests.slice(-3).every((r) => r.status === 200));
  });
});

describe('forkMessages', () => {
  const prefix: ApiMessage[] = [{ role: 'user', content: 'q' }];

  it('appends a user message after a finished answer, reusing the same message objects', () => {
    const withAnswer: ApiMessage[] = [...prefix, { role: 'assistant', content: [{ type: 'text', text: 'a' }] }];
    const out = forkMessages(withAnswer, 'extra');
    assert.equal(out[0], withAnswer[0]);
    assert.equal(out[1], withAnswer[1]);
    assert.deepEqual(out[2], { role: 'user', content: [{ type: 'text', text: 'extra' }] });
  });

  it('answers pending tool calls as not run here, in the same message as the text', () => {
    const pending: ApiMessage[] = [
      ...prefix,
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] },
    ];
    const out = forkMessages(pending, 'extra');
    const content = out[2].content as ContentBlock[];
    assert.equal(content[0].type, 'tool_result');
    assert.deepEqual(content[1], { type: 'text', text: 'extra' });
    assertApiValid(out);
  });

  it('joins the text to a trailing user message without changing the original', () => {
    const out = forkMessages(prefix, 'extra');
    assert.deepEqual(out, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'q' },
          { type: 'text', text: 'extra' },
        ],
      },
    ]);
    assert.equal(prefix[0].content, 'q');
  });
});
