// The Anthropic adapter against the test server over real HTTP: streaming, errors, retries, caching.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type {
  ApiMessage,
  AssistantBlock,
  ContentBlock,
  SystemBlock,
  ToolSchema,
} from '../../../src/core/conversation/types';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import {
  AuthError,
  ConnectionDroppedError,
  ConnectionError,
  InvalidRequestError,
  ModelError,
  OverloadedError,
  PromptTooLongError,
  RateLimitError,
} from '../../../src/core/llm/errors';
import type { ModelRequest, StreamHandlers } from '../../../src/core/llm/modelClient';
import { streamWithRetry, type RetryInfo } from '../../../src/core/llm/retry';
import { startTestServer } from '../../../src/testServer/anthropicTestServer';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
let client: AnthropicModelClient;
const never = new AbortController().signal;
const fast = { policy: { baseDelayMs: 5, maxDelayMs: 20 } };

before(async () => {
  await server.ready();
  client = new AnthropicModelClient({ apiKey: 'test-key', baseUrl: server.url });
});

function request(messages: ApiMessage[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'claude-test',
    maxTokens: 1024,
    system: [{ type: 'text', text: 'You are a test.' }],
    tools: [],
    messages,
    ...extra,
  };
}

function recorder() {
  const log = {
    text: '',
    thinking: '',
    json: '',
    started: [] as AssistantBlock[],
    completed: [] as AssistantBlock[],
    usages: 0,
  };
  const handlers: StreamHandlers = {
    onTextDelta: (t) => void (log.text += t),
    onThinkingDelta: (t) => void (log.thinking += t),
    onToolInputDelta: (j) => void (log.json += j),
    onBlockStart: (b) => void log.started.push(b),
    onBlockComplete: (b) => void log.completed.push(b),
    onUsage: () => void log.usages++,
  };
  return { log, handlers };
}

async function rejects<T extends ModelError>(
  p: Promise<unknown>,
  type: abstract new (...args: never[]) => T,
): Promise<T> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof type, `expected ${type.name}, got ${String(e)}`);
    return e;
  }
  throw new Error(`expected ${type.name}`);
}

const READ_TOOL: ToolSchema = {
  name: 'Read',
  description: 'Reads a file.',
  input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
};

describe('streaming', () => {
  it('streams text through the handlers and returns the whole message', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'Hello there, this reply arrives in several pieces.' }] });
    const { log, handlers } = recorder();
    const res = await client.stream(request([{ role: 'user', content: 'hi' }]), handlers, never);
    assert.deepEqual(res.content, [{ type: 'text', text: 'Hello there, this reply arrives in several pieces.' }]);
    assert.equal(log.text, 'Hello there, this reply arrives in several pieces.');
    assert.equal(res.stopReason, 'end_turn');
    assert.equal(res.partial, undefined);
    assert.match(res.id, /^msg_/);
    assert.ok(res.usage.input_tokens > 0 && res.usage.output_tokens > 0);
    assert.ok(log.usages >= 2, 'usage after message_start and message_delta');
    assert.deepEqual(log.completed, res.content);
  });

  it('assembles a streamed tool_use input from input_json_delta pieces', async () => {
    const input = { file_path: '/repo/src/a/rather/long/path/to/file.ts', offset: 3 };
    server.enqueue({
      content: [
        { type: 'text', text: 'Reading it.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Read', input },
      ],
    });
    const { log, handlers } = recorder();
    const res = await client.stream(
      request([{ role: 'user', content: 'read' }], { tools: [READ_TOOL] }),
      handlers,
      never,
    );
    assert.equal(res.stopReason, 'tool_use');
    assert.deepEqual(res.content[1], { type: 'tool_use', id: 'toolu_1', name: 'Read', input });
    assert.deepEqual(JSON.parse(log.json), input);
    assert.deepEqual(log.started[1], { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} });
  });

  it('keeps thinking with its signature and sends it back unchanged on the next call', async () => {
    server.enqueue(
      {
        content: [
          { type: 'thinking', thinking: 'Let me weigh the options first.', signature: 'c2lnLTEyMw==' },
          { type: 'tool_use', id: 'toolu_t', name: 'Read', input: { file_path: 'a' } },
        ],
      },
      { content: [{ type: 'text', text: 'Done.' }] },
    );
    const { log, handlers } = recorder();
    const messages: ApiMessage[] = [{ role: 'user', content: 'think' }];
    const first = await client.stream(
      request(messages, { tools: [READ_TOOL], thinking: { type: 'enabled', budgetTokens: 1024 }, maxTokens: 4096 }),
      handlers,
      never,
    );
    assert.deepEqual(first.content[0], {
      type: 'thinking',
      thinking: 'Let me weigh the options first.',
      signature: 'c2lnLTEyMw==',
    });
    assert.equal(log.thinking, 'Let me weigh the options first.');
    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_t', content: 'file text' }] },
    );
    await client.stream(
      request(messages, { tools: [READ_TOOL], thinking: { type: 'enabled', budgetTokens: 1024 }, maxTokens: 4096 }),
      {},
      never,
    );
    const sent = server.requests[server.requests.length - 1].body;
    assert.equal(sent.thinking && (sent.thinking as { type: string }).type, 'enabled');
    const sentThinking = (sent.messages[1].content as ContentBlock[])[0];
    assert.deepEqual(sentThinking, {
      type: 'thinking',
      thinking: 'Let me weigh the options first.',
      signature: 'c2lnLTEyMw==',
    });
  });

  it('finishes a last block the server left open when the message still stopped', async () => {
    server.enqueue({
      content: [{ type: 'text', text: 'Cut at the limit' }],
      stopReason: 'max_tokens',
      omitFinalBlockStop: true,
    });
    const res = await client.stream(request([{ role: 'user', content: 'x' }]), {}, never);
    assert.equal(res.stopReason, 'max_tokens');
    assert.deepEqual(res.content, [{ type: 'text', text: 'Cut at the limit' }]);
  });
});

describe('errors and retries', () => {
  it('retries a 429 after the retry-after the server asked for', async () => {
    server.enqueue(
      {
        error: {
          status: 429,
          type: 'rate_limit_error',
          message: 'Number of requests has exceeded your rate limit',
          retryAfterSeconds: 0.3,
        },
      },
      { content: [{ type: 'text', text: 'ok' }] },
    );
    const retries: RetryInfo[] = [];
    const started = Date.now();
    const res = await streamWithRetry(client, request([{ role: 'user', content: 'hi' }]), {}, never, {
      onRetry: (i) => retries.push(i),
    });
    assert.equal(res.content[0].type === 'text' && res.content[0].text, 'ok');
    assert.equal(retries.length, 1);
    assert.equal(retries[0].delayMs, 300);
    assert.equal(retries[0].attempt, 1);
    assert.equal(retries[0].maxRetries, 5);
    assert.ok(retries[0].error instanceof RateLimitError);
    assert.ok(Date.now() - started >= 290, 'waited for retry-after');
  });

  it('retries 529 overloaded, as an HTTP status and as an in-stream error event', async () => {
    server.enqueue(
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded', inStream: true } },
      { content: [{ type: 'text', text: 'third time lucky' }] },
    );
    const retries: RetryInfo[] = [];
    const before = server.requests.length;
    const res = await streamWithRetry(client, request([{ role: 'user', content: 'hi' }]), {}, never, {
      ...fast,
      onRetry: (i) => retries.push(i),
    });
    assert.equal(res.stopReason, 'end_turn');
    assert.deepEqual(
      retries.map((r) => [r.attempt, r.error.constructor]),
      [
        [1, OverloadedError],
        [2, OverloadedError],
      ],
    );
    assert.equal(server.requests.length - before, 3);
  });

  it('gives up after the last retry with the mapped error', async () => {
    for (let i = 0; i < 3; i++)
      server.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    const err = await rejects(
      streamWithRetry(client, request([{ role: 'user', content: 'hi' }]), {}, never, {
        policy: { ...fast.policy, maxRetries: 2 },
      }),
      OverloadedError,
    );
    assert.match(err.message, /overloaded/i);
    assert.equal(err.status, 529);
  });

  it('does not retry an authentication error, and says what to do', async () => {
    server.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const retries: RetryInfo[] = [];
    const before = server.requests.length;
    const err = await rejects(
      streamWithRetry(client, request([{ role: 'user', content: 'hi' }]), {}, never, {
        ...fast,
        onRetry: (i) => retries.push(i),
      }),
      AuthError,
    );
    assert.equal(retries.length, 0);
    assert.equal(server.requests.length - before, 1);
    assert.match(err.message, /API key/);
    assert.equal(err.apiMessage, 'invalid x-api-key');
  });

  it('fails without a request when there is no API key', async () => {
    const keyless = new AnthropicModelClient({ apiKey: undefined, baseUrl: server.url });
    const before = server.requests.length;
    const err = await rejects(keyless.stream(request([{ role: 'user', content: 'hi' }]), {}, never), AuthError);
    assert.match(err.message, /ANTHROPIC_API_KEY/);
    assert.equal(server.requests.length, before);
  });

  it('maps "prompt is too long" with its numbers and does not retry it', async () => {
    const small = await startTestServer({ contextWindow: 50 });
    try {
      const c = new AnthropicModelClient({ apiKey: 'k', baseUrl: small.url });
      const retries: RetryInfo[] = [];
      const err = await rejects(
        streamWithRetry(c, request([{ role: 'user', content: 'word '.repeat(400) }]), {}, never, {
          ...fast,
          onRetry: (i) => retries.push(i),
        }),
        PromptTooLongError,
      );
      assert.equal(retries.length, 0);
      assert.equal(small.requests.length, 1);
      assert.equal(err.maxTokens, 50);
      assert.ok(err.promptTokens !== undefined && err.promptTokens > 50);
      assert.match(err.message, /too long/);
    } finally {
      await small.close();
    }
  });

  it('maps an invalid request (e.g. an unanswered tool_use) to InvalidRequestError', async () => {
    const messages: ApiMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'Read', input: {} }] },
      { role: 'user', content: 'no result' },
    ];
    const err = await rejects(client.stream(request(messages, { tools: [READ_TOOL] }), {}, never), InvalidRequestError);
    assert.match(err.apiMessage ?? '', /tool_use/);
  });

  it('retries when nothing could be reached at all', async () => {
    const dead = new AnthropicModelClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' });
    const retries: RetryInfo[] = [];
    await rejects(
      streamWithRetry(dead, request([{ role: 'user', content: 'hi' }]), {}, never, {
        policy: { ...fast.policy, maxRetries: 1 },
        onRetry: (i) => retries.push(i),
      }),
      ConnectionError,
    );
    assert.equal(retries.length, 1);
  });

  // Issue #13, class 2: a RangeError from building the body is this machine's problem, not the network's.
  it('a request that cannot be built here (200,000 levels of nesting) is a local error: never sent, never retried', async () => {
    let deep: unknown = {};
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    const messages: ApiMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_deep', name: 'Read', input: { deep } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_deep', content: 'x' }] },
    ];
    const sent = server.requests.length;
    const retries: RetryInfo[] = [];
    const err = await rejects(
      streamWithRetry(client, request(messages, { tools: [READ_TOOL] }), {}, never, {
        ...fast,
        onRetry: (i) => retries.push(i),
      }),
      ModelError,
    );
    assert.equal(err.kind, 'local');
    assert.equal(err.retryable, false);
    assert.equal(retries.length, 0);
    assert.equal(server.requests.length, sent, 'nothing reached the server');
    assert.match(err.message, /not a network problem/i);
    assert.match(err.message, /Maximum call stack size exceeded/);
  });
});

describe('dropped and cancelled streams', () => {
  it('keeps the complete blocks of a dropped stream and drops an unfinished tool_use', async () => {
    // Events: 0 message_start, 1 block start, 2 ping, 3-5 text deltas, 6 block stop, 7 tool start, 8 '' delta.
    server.enqueue({
      content: [
        { type: 'text', text: 'Partial answer here.' },
        { type: 'tool_use', name: 'Read', input: { file_path: 'x' } },
      ],
      dropAfterEvents: 9,
    });
    const retries: RetryInfo[] = [];
    const err = await rejects(
      streamWithRetry(client, request([{ role: 'user', content: 'hi' }], { tools: [READ_TOOL] }), {}, never, {
        ...fast,
        onRetry: (i) => retries.push(i),
      }),
      ConnectionDroppedError,
    );
    assert.equal(retries.length, 0, 'shown content is never retried');
    assert.equal(err.partial?.partial, true);
    assert.deepEqual(err.partial?.content, [{ type: 'text', text: 'Partial answer here.' }]);
    assert.match(err.message, /kept/);
  });

  it('keeps the text of an unfinished text block', async () => {
    server.enqueue({
      content: [{ type: 'text', text: 'One two three four five six seven eight nine.' }],
      dropAfterEvents: 4,
    });
    const err = await rejects(
      client.stream(request([{ role: 'user', content: 'hi' }]), {}, never),
      ConnectionDroppedError,
    );
    const content = err.partial?.content ?? [];
    assert.equal(content.length, 1);
    assert.ok(
      content[0].type === 'text' &&
        'One two three four five six seven eight nine.'.startsWith(content[0].text) &&
        content[0].text.length > 0,
    );
  });

  it('retries a stream that dropped before any block started', async () => {
    server.enqueue(
      { content: [{ type: 'text', text: 'lost' }], dropAfterEvents: 1 },
      { content: [{ type: 'text', text: 'second try' }] },
    );
    const retries: RetryInfo[] = [];
    const res = await streamWithRetry(client, request([{ role: 'user', content: 'hi' }]), {}, never, {
      ...fast,
      onRetry: (i) => retries.push(i),
    });
    assert.equal(retries.length, 1);
    assert.ok(retries[0].error instanceof ConnectionDroppedError);
    assert.deepEqual(res.content, [{ type: 'text', text: 'second try' }]);
  });

  it('returns a cancelled partial response when aborted mid-stream', async () => {
    server.enqueue({
      content: [{ type: 'text', text: 'A long answer that streams slowly, piece by piece, so it can be stopped.' }],
      chunkDelayMs: 40,
    });
    const controller = new AbortController();
    const res = await client.stream(
      request([{ role: 'user', content: 'hi' }]),
      { onTextDelta: () => controller.abort() },
      controller.signal,
    );
    assert.equal(res.cancelled, true);
    assert.equal(res.partial, true);
    assert.equal(res.stopReason, null);
    assert.ok(res.content.length <= 1);
  });

  it('returns at once when aborted during a retry wait', async () => {
    server.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfterSeconds: 30 } });
    const controller = new AbortController();
    const res = await streamWithRetry(client, request([{ role: 'user', content: 'hi' }]), {}, controller.signal, {
      onRetry: () => setTimeout(() => controller.abort(), 20),
    });
    assert.equal(res.cancelled, true);
    assert.deepEqual(res.content, []);
  });
});

describe('prompt caching', () => {
  const bigSystem: SystemBlock[] = [
    { type: 'text', text: 'Stable guidance. '.repeat(400) },
    { type: 'text', text: 'Environment: /repo, linux.' },
  ];
  const tools: ToolSchema[] = [
    READ_TOOL,
    { name: 'Grep', description: 'Searches.', input_schema: { type: 'object', properties: {} } },
  ];

  it('marks the last system block, the last tool and the newest user turns, without touching stored messages', async () => {
    server.resetCache();
    server.enqueue(
      { content: [{ type: 'text', text: 'First answer.' }] },
      { content: [{ type: 'text', text: 'Second answer.' }] },
    );
    const messages: ApiMessage[] = [{ role: 'user', content: 'first question' }];
    const system = structuredClone(bigSystem);
    const first = await client.stream(request(messages, { system, tools }), {}, never);
    messages.push(
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'text', text: 'second question' }] },
    );
    const stored = structuredClone(messages);
    const second = await client.stream(request(messages, { system, tools }), {}, never);

    assert.deepEqual(messages, stored, 'stored messages unchanged');
    assert.deepEqual(system, bigSystem, 'system unchanged');
    const body = server.requests[server.requests.length - 1].body;
    const sys = body.system as SystemBlock[];
    assert.deepEqual(sys[1].cache_control, { type: 'ephemeral' });
    assert.equal(sys[0].cache_control, undefined);
    assert.deepEqual(body.tools?.[1].cache_control, { type: 'ephemeral' });
    assert.equal(body.tools?.[0].cache_control, undefined);
    const marked = body.messages.flatMap((m, i) =>
      typeof m.content === 'string'
        ? []
        : m.content.flatMap((b) => ('cache_control' in b && b.cache_control ? [i] : [])),
    );
    assert.deepEqual(marked, [0, 2], 'the previous and the newest user message');
    assert.ok(marked.length + 2 <= 4, 'at most 4 breakpoints');

    assert.ok((first.usage.cache_creation_input_tokens ?? 0) > 0, 'first call writes the cache');
    assert.ok((second.usage.cache_read_input_tokens ?? 0) > 0, 'second call reads it');
    assert.ok((second.usage.cache_read_input_tokens ?? 0) >= (first.usage.cache_creation_input_tokens ?? 0));
  });
});
