// The agent loop against the test server over real HTTP, with the real tools in a temp workspace.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DENIED_BY_USER } from '../../../src/core/agent/permissions';
import { CANCELLED_BY_USER } from '../../../src/core/agent/toolRunner';
import { readTranscript } from '../../../src/core/conversation/transcriptReader';
import type { AssistantLine, SystemLine } from '../../../src/core/conversation/types';
import { assertApiValid, assertTranscriptMatches, probeTool, startSession, toolResults } from '../support/agentHarness';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();
let workspace: string;
let dataDir: string;

function freshDirs(): void {
  workspace = tempDir('engram-ws-');
  dataDir = tempDir('engram-data-');
  fs.mkdirSync(path.join(workspace, 'src'));
  fs.writeFileSync(path.join(workspace, 'src', 'greet.ts'), "export const greeting = 'hello';\n");
}

describe('a turn with tools', () => {
  it('runs Grep, Read, Edit and Bash in a loop until the model stops, asking only for the writing tools', async () => {
    freshDirs();
    const file = path.join(workspace, 'src', 'greet.ts');
    server.enqueue(
      {
        content: [
          { type: 'text', text: 'Let me find it.' },
          { type: 'tool_use', name: 'Grep', input: { pattern: 'greeting', path: workspace } },
        ],
      },
      { content: [{ type: 'tool_use', name: 'Read', input: { file_path: file } }] },
      {
        content: [
          { type: 'tool_use', name: 'Edit', input: { file_path: file, old_string: "'hello'", new_string: "'hi'" } },
        ],
      },
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'cat src/greet.ts' } }] },
      { content: [{ type: 'text', text: 'Changed the greeting to hi.' }] },
    );
    const { session, events, asked } = await startSession(server, { workspace, dataDir });
    const first = server.requests.length;
    const result = await session.agent.runTurn('Change the greeting to hi');

    assert.equal(result.reason, 'end_turn');
    assert.equal(result.text, 'Changed the greeting to hi.');
    assert.equal(result.modelCalls, 5);
    assert.equal(fs.readFileSync(file, 'utf8'), "export const greeting = 'hi';\n");
    assert.deepEqual(
      asked.map((a) => a.toolName),
      ['Edit', 'Bash'],
    );
    assert.ok(
      server.requests.slice(first).every((r) => r.status === 200),
      'every request was valid',
    );

    const messages = session.agent.messages;
    assert.equal(messages.length, 10);
    assert.match(String(toolResults(messages, 2)[0].content), /greet\.ts/);
    assert.match(String(toolResults(messages, 8)[0].content), /'hi'/);
    assert.deepEqual(
      events.filter((e) => e.type === 'toolCall').map((e) => e.type === 'toolCall' && e.name),
      ['Grep', 'Read', 'Edit', 'Bash'],
    );
    assert.equal(events[0].type, 'turnStart');
    assert.equal(events[events.length - 1].type, 'turnEnd');
    const u = result.usage;
    assert.ok(
      u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) > 0,
      'usage summed over the calls',
    );

    await assertTranscriptMatches(session.transcriptPath, messages);
    const lines = (await readTranscript(session.transcriptPath)).lines;
    const firstAnswer = lines.filter((l): l is AssistantLine => l.type === 'assistant').slice(0, 2);
    assert.equal(firstAnswer[0].message.id, firstAnswer[1].message.id, 'one line per block, one message id');
    assert.equal(firstAnswer[0].message.stop_reason, null);
    assert.equal(firstAnswer[1].message.stop_reason, 'tool_use');
  });

  it('runs concurrency-safe tools together and the others alone, answering in call order', async () => {
    freshDirs();
    const log: string[] = [];
    const live = { now: 0, max: 0 };
    const tools = [
      probeTool('Look', { concurrencySafe: true, log, live, delayMs: 40 }),
      probeTool('Change', { concurrencySafe: false, log, live, delayMs: 10 }),
    ];
    server.enqueue(
      {
        content: [
          { type: 'tool_use', id: 'toolu_a', name: 'Look', input: { tag: 'a' } },
          { type: 'tool_use', id: 'toolu_b', name: 'Look', input: { tag: 'b' } },
          { type: 'tool_use', id: 'toolu_c', name: 'Look', input: { tag: 'c' } },
          { type: 'tool_use', id: 'toolu_d', name: 'Change', input: { tag: 'd' } },
          { type: 'tool_use', id: 'toolu_e', name: 'Look', input: { tag: 'e' } },
        ],
      },
      { content: [{ type: 'text', text: 'done' }] },
    );
    const { session } = await startSession(server, { workspace, dataDir, tools });
    await session.agent.runTurn('look around');
    // Overlap is proved by the count of tools live at once, not by a clock (a loaded machine is slow).
    assert.equal(live.max, 3, 'three reads overlapped');
    const changeStart = log.indexOf('start Change:d');
    assert.ok(log.indexOf('end Look:c') < changeStart && changeStart < log.indexOf('start Look:e'), log.join(', '));
    assert.deepEqual(
      toolResults(session.agent.messages, 2).map((r) => r.tool_use_id),
      ['toolu_a', 'toolu_b', 'toolu_c', 'toolu_d', 'toolu_e'],
    );
    await assertTranscriptMatches(session.transcriptPath, session.agent.messages);
  });
});

describe('long turns', () => {
  it('leaves no listeners piling up on the turn signal over many calls', async () => {
    freshDirs();
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 14; i++) {
        server.enqueue({
          content: [
            { type: 'tool_use', name: 'Read', input: { file_path: path.join(workspace, 'src', 'greet.ts') } },
            { type: 'tool_use', name: 'Bash', input: { command: `echo ${i}` } },
          ],
        });
      }
      server.enqueue({ content: [{ type: 'text', text: 'done' }] });
      const { session } = await startSession(server, { workspace, dataDir });
      const result = await session.agent.runTurn('loop', new AbortController().signal);
      assert.equal(result.modelCalls, 15);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(
        warnings.filter((w) => /listener/i.test(w)),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('permissions', () => {
  it('answers a denied call with an error result and leaves the file alone', async () => {
    freshDirs();
    const file = path.join(workspace, 'src', 'greet.ts');
    server.enqueue(
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: `rm ${file}` } }] },
      { content: [{ type: 'text', text: 'Understood, I will not delete it.' }] },
    );
    const { session, events } = await startSession(server, { workspace, dataDir, answer: () => 'deny' });
    const result = await session.agent.runTurn('delete it');
    assert.equal(result.reason, 'end_turn');
    assert.ok(fs.existsSync(file));
    const [denied] = toolResults(session.agent.messages, 2);
    assert.equal(denied.is_error, true);
    assert.equal(denied.content, DENIED_BY_USER);
    assert.ok(events.some((e) => e.type === 'permissionAnswered' && e.answer === 'deny'));
  });

  it('remembers "allow for this session" per tool name', async () => {
    freshDirs();
    server.enqueue(
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo one' } }] },
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo two' } }] },
      { content: [{ type: 'text', text: 'ok' }] },
    );
    const { session, asked } = await startSession(server, { workspace, dataDir, answer: () => 'allowSession' });
    await session.agent.runTurn('echo twice');
    assert.equal(asked.length, 1);
    assert.deepEqual(session.agent.permissions.allowedTools(), ['Bash']);
    assert.match(String(toolResults(session.agent.messages, 4)[0].content), /two/);
  });

  it('offers no tools in an untrusted workspace and runs none', async () => {
    freshDirs();
    server.enqueue(
      { content: [{ type: 'tool_use', name: 'Read', input: { file_path: path.join(workspace, 'src', 'greet.ts') } }] },
      { content: [{ type: 'text', text: 'I cannot read files here.' }] },
    );
    const { session } = await startSession(server, { workspace, dataDir, trusted: false });
    const first = server.requests.length;
    await session.agent.runTurn('read greet.ts');
    assert.equal(server.requests[first].body.tools, undefined);
    assert.match(String(toolResults(session.agent.messages, 2)[0].content), /not trusted/);
  });
});

describe('cancel and failures keep the conversation valid', () => {
  it('cancelled mid-stream: keeps the streamed text, and the next turn is accepted', async () => {
    freshDirs();
    server.enqueue({
      content: [{ type: 'text', text: 'This answer is long and streams slowly so that the user can stop it halfway.' }],
      chunkDelayMs: 40,
    });
    const { session, events } = await startSession(server, { workspace, dataDir });
    session.agent.on((e) => {
      if (e.type === 'textDelta') session.agent.cancel();
    });
    const result = await session.agent.runTurn('tell me a story');
    assert.equal(result.reason, 'cancelled');
    assert.ok(events.some((e) => e.type === 'turnEnd' && e.reason === 'cancelled'));
    assertApiValid(session.agent.messages);
    await assertTranscriptMatches(session.transcriptPath, session.agent.messages);

    server.enqueue({ content: [{ type: 'text', text: 'Continuing.' }] });
    const next = await session.agent.runTurn('go on');
    assert.equal(next.reason, 'end_turn');
    assert.equal(server.requests[server.requests.length - 1].status, 200);
  });

  it('cancelled after a complete tool call streamed: the call is answered as cancelled', async () => {
    freshDirs();
    server.enqueue({
      content: [
        { type: 'tool_use', id: 'toolu_s', name: 'Bash', input: { command: 'echo hi' } },
        { type: 'text', text: 'and some slow text after the call that keeps streaming' },
      ],
      chunkDelayMs: 30,
    });
    const { session } = await startSession(server, { workspace, dataDir });
    session.agent.on((e) => {
      if (e.type === 'toolCall') session.agent.cancel();
    });
    const result = await session.agent.runTurn('run it');
    assert.equal(result.reason, 'cancelled');
    const [answer] = toolResults(session.agent.messages, 2);
    assert.equal(answer.tool_use_id, 'toolu_s');
    assert.equal(answer.content, CANCELLED_BY_USER);
    assertApiValid(session.agent.messages);
    await assertTranscriptMatches(session.transcriptPath, session.agent.messages);
  });

  it('cancelled while a tool runs: every pending call gets "cancelled", and the next prompt joins that message', async () => {
    freshDirs();
    server.enqueue({
      content: [
        { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo quick' } },
        { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'sleep 5' } },
        { type: 'tool_use', id: 'toolu_3', name: 'Bash', input: { command: 'echo never' } },
      ],
    });
    const { session } = await startSession(server, { workspace, dataDir });
    session.agent.on((e) => {
      if (e.type === 'toolResult' && e.id === 'toolu_1') setTimeout(() => session.agent.cancel(), 100);
    });
    const started = Date.now();
    const result = await session.agent.runTurn('run three');
    assert.equal(result.reason, 'cancelled');
    assert.ok(Date.now() - started < 4000, 'did not wait for sleep 5');
    const results = toolResults(session.agent.messages, 2);
    assert.deepEqual(
      results.map((r) => r.tool_use_id),
      ['toolu_1', 'toolu_2', 'toolu_3'],
    );
    assert.match(String(results[0].content), /quick/);
    assert.equal(results[2].content, CANCELLED_BY_USER);
    assert.equal(results[2].is_error, true);
    assertApiValid(session.agent.messages);
    await assertTranscriptMatches(session.transcriptPath, session.agent.messages);

    server.enqueue({ content: [{ type: 'text', text: 'Stopped, as asked.' }] });
    await session.agent.runTurn('never mind');
    const last = server.requests[server.requests.length - 1];
    assert.equal(last.status, 200);
    assert.equal(last.body.messages.length, 3, 'the prompt joined the tool results message');
    await assertTranscriptMatches(session.transcriptPath, session.agent.messages);
  });

  it('a dropped stream keeps the partial answer, answers its complete call, and records the error', async () => {
    freshDirs();
    // 0 start, 1 text start, 2 ping, 3-5 text, 6 stop, 7 tool start, 8-11 json, 12 stop, 13 text start, 14 delta ...
    server.enqueue({
      content: [
        { type: 'text', text: 'I will list it.' },
        { type: 'tool_use', id: 'toolu_d', name: 'Bash', input: { command: 'ls' } },
        { type: 'text', text: 'More text that never arrives in full.' },
      ],
      dropAfterEvents: 15,
    });
    const { session, events } = await startSession(server, { workspace, dataDir });
    const result = await session.agent.runTurn('list');
    assert.equal(result.reason, 'error');
    assert.equal(result.error?.kind, 'connectionDropped');
    assert.ok(events.some((e) => e.type === 'error' && e.kind === 'connectionDropped'));
    const assistant = session.agent.messages[1];
    assert.ok(Array.isArray(assistant.content));
    assert.equal(assistant.content[0].type === 'text' && assistant.content[0].text, 'I will list it.');
    assert.equal(assistant.content[1].type, 'tool_use');
    const [answer] = toolResults(session.agent.messages, 2);
    assert.equal(answer.is_error, true);
    assert.match(String(answer.content), /Not run/);
    assertApiValid(session.agent.messages);
    await assertTranscriptMatches(session.transcriptPath, session.agent.messages);
    const lines = (await readTranscript(session.transcriptPath)).lines;
    assert.ok(lines.some((l) => l.type === 'system' && (l as SystemLine).subtype === 'api_error'));
  });

  it('reports retries as events and transcript lines, then succeeds', async () => {
    freshDirs();
    server.enqueue(
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
      { content: [{ type: 'text', text: 'fine now' }] },
    );
    const { session, events } = await startSession(server, { workspace, dataDir });
    const result = await session.agent.runTurn('hi');
    assert.equal(result.text, 'fine now');
    const retry = events.find((e) => e.type === 'retrying');
    assert.ok(
      retry &&
        retry.type === 'retrying' &&
        retry.attempt === 1 &&
        retry.maxRetries === 5 &&
        retry.kind === 'overloaded',
    );
    const lines = (await readTranscript(session.transcriptPath)).lines;
    const sys = lines.find((l) => l.type === 'system') as SystemLine | undefined;
    assert.equal(sys?.subtype, 'api_error');
    assert.equal(sys?.retryAttempt, 1);
  });

  it('surfaces "prompt is too long" as its own error kind', async () => {
    freshDirs();
    server.enqueue({
      error: {
        status: 400,
        type: 'invalid_request_error',
        message: 'prompt is too long: 210000 tokens > 200000 maximum',
      },
    });
    const { session } = await startSession(server, { workspace, dataDir });
    const result = await session.agent.runTurn('hi');
    assert.equal(result.reason, 'error');
    assert.equal(result.error?.kind, 'promptTooLong');
    assertApiValid(session.agent.messages);
  });
});

describe('reactive compaction hook', () => {
  it('retries with the shorter conversation it returns after "prompt is too long"', async () => {
    freshDirs();
    server.enqueue(
      { content: [{ type: 'text', text: 'first answer' }] },
      {
        error: {
          status: 400,
          type: 'invalid_request_error',
          message: 'prompt is too long: 210000 tokens > 200000 maximum',
        },
      },
      { content: [{ type: 'text', text: 'answered after compaction' }] },
    );
    const seen: number[] = [];
    const { session, events } = await startSession(server, {
      workspace,
      dataDir,
      recoverPromptTooLong: async ({ error, messages }) => {
        seen.push(error.promptTokens ?? 0);
        return messages.slice(-1);
      },
    });
    await session.agent.runTurn('one');
    const result = await session.agent.runTurn('two');
    assert.equal(result.text, 'answered after compaction');
    assert.deepEqual(seen, [210000]);
    assert.equal(server.requests.at(-1)?.body.messages.length, 1);
    assert.equal(session.agent.messages.length, 2);
    assert.ok(!events.some((e) => e.type === 'error'));
  });
});

describe('hooks', () => {
  it('runs afterModelResponse per answer and afterTurn once; a failing hook is logged, not thrown', async () => {
    freshDirs();
    server.enqueue(
      { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo x' } }] },
      { content: [{ type: 'text', text: 'ok' }] },
    );
    const errors: string[] = [];
    const { session } = await startSession(server, {
      workspace,
      dataDir,
      logger: { info() {}, warn() {}, error: (m) => void errors.push(m) },
    });
    const seen: string[] = [];
    session.agent.hooks.afterModelResponse.add('record', ({ response, messages }) => {
      seen.push(`${response.stopReason}@${messages.length}`);
    });
    session.agent.hooks.afterModelResponse.add('broken', () => {
      throw new Error('boom');
    });
    session.agent.hooks.afterTurn.add('turn', ({ result }) => void seen.push(`turn:${result.reason}`));
    await session.agent.runTurn('go');
    assert.deepEqual(seen, ['tool_use@2', 'end_turn@4', 'turn:end_turn']);
    assert.equal(errors.filter((m) => m.includes('broken')).length, 2);
  });
});
