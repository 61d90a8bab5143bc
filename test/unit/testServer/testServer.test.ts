// The test server driven by the real @anthropic-ai/sdk over HTTP.

import Anthropic, {
  APIError,
  BadRequestError,
  InternalServerError,
  OverloadedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { startTestServer } from '../../../src/testServer/anthropicTestServer';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const MODEL = 'claude-test';
const server = useTestServer();
const tempDir = useTempDirs();
let client: Anthropic;

before(async () => {
  await server.ready();
  client = new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
});

const ask = (text: string) => ({
  model: MODEL,
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: text }],
});

async function expectApiError(p: Promise<unknown>, status: number | undefined, message: string): Promise<APIError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof APIError, `expected APIError, got ${String(err)}`);
    assert.equal(err.status, status);
    assert.equal(err.apiMessage, message);
    return err;
  }
  throw new Error('expected the request to fail');
}

describe('streaming', () => {
  it('streams text that the SDK assembles, with usage and a request id', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'Hello there, this is a streamed reply.' }] });
    const stream = client.messages.stream(ask('hi'));
    const deltas: string[] = [];
    stream.on('text', (t) => deltas.push(t));
    const message = await stream.finalMessage();
    assert.equal(
      message.content[0].type === 'text' && message.content[0].text,
      'Hello there, this is a streamed reply.',
    );
    assert.ok(deltas.length >= 3);
    assert.equal(message.stop_reason, 'end_turn');
    assert.match(message.id, /^msg_01[0-9A-Za-z]{22}$/);
    assert.equal(message.usage.input_tokens, 1); // "hi" -> ceil(2 / 4)
    assert.equal(message.usage.output_tokens, 10); // 38 characters -> ceil(38 / 4)
    const logged = server.requests[server.requests.length - 1];
    assert.equal(logged.status, 200);
    // SDK 1.x sends the key as a bearer token; the API (and this server) also take x-api-key.
    assert.ok(logged.headers.authorization === 'Bearer test-key' || logged.headers['x-api-key'] === 'test-key');
    assert.equal(logged.body.stream, true);
    assert.equal(logged.usage?.output_tokens, 10);
  });

  it('streams tool_use input as input_json_delta that the SDK parses', async () => {
    const input = { file_path: '/repo/src/very/long/path/name.ts', offset: 10, limit: 200 };
    server.enqueue({
      content: [
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', name: 'Read', input },
      ],
    });
    const stream = client.messages.stream(ask('read it'));
    const partials: string[] = [];
    stream.on('inputJson', (partial) => partials.push(partial));
    const message = await stream.finalMessage();
    const block = message.content[1];
    assert.equal(block.type, 'tool_use');
    assert.ok(block.type === 'tool_use');
    assert.deepEqual(block.input, input);
    assert.match(block.id, /^toolu_01[0-9A-Za-z]{22}$/);
    assert.equal(message.stop_reason, 'tool_use');
    assert.ok(partials.length >= 3);
  });

  it('streams thinking with its signature', async () => {
    server.enqueue({
      content: [
        { type: 'thinking', thinking: 'First, consider the question.', signature: 'c2lnbmF0dXJl' },
        { type: 'text', text: 'Answer.' },
      ],
    });
    const message = await client.messages.stream(ask('think')).finalMessage();
    assert.deepEqual(message.content[0], {
      type: 'thinking',
      thinking: 'First, consider the question.',
      signature: 'c2lnbmF0dXJl',
    });
  });

  it('supports create({stream: true}) with raw events in API order', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'abc' }] });
    const stream = await client.messages.create({ ...ask('x'), stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    assert.deepEqual(types, [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  it('ends a cut stream with max_tokens and no final content_block_stop', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'The beginning of a long' }], omitFinalBlockStop: true });
    const message = await client.messages.stream(ask('x')).finalMessage();
    assert.equal(message.stop_reason, 'max_tokens');
  });

  it('fails the SDK stream when the connection drops mid-stream', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'never finished' }], dropAfterEvents: 3 });
    await assert.rejects(client.messages.stream(ask('x')).finalMessage());
    assert.match(server.requests[server.requests.length - 1].error ?? '', /dropped after 3 events/);
  });

  it('reports an in-stream overload as an SSE error event after message_start', async () => {
    server.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded', inStream: true } });
    const err = await expectApiError(client.messages.stream(ask('x')).finalMessage(), undefined, 'Overloaded');
    assert.equal(err.type, 'overloaded_error');
  });

  it('paces events with delayMs and chunkDelayMs', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'slow' }], delayMs: 60, chunkDelayMs: 10 });
    const started = Date.now();
    await client.messages.stream(ask('x')).finalMessage();
    // 8 events ("slow" streams as two deltas), so 7 pauses between them; timers may fire a little early.
    assert.ok(Date.now() - started >= 60 + 7 * 10 - 5);
  });
});

describe('non-streaming', () => {
  it('answers a JSON message', async () => {
    server.enqueue({
      content: [{ type: 'text', text: 'plain' }],
      stopReason: 'stop_sequence',
      usage: { output_tokens: 77 },
    });
    const message = await client.messages.create(ask('x'));
    assert.equal(message.type, 'message');
    assert.equal(message.model, MODEL);
    assert.equal(message.stop_reason, 'stop_sequence');
    assert.equal(message.usage.output_tokens, 77);
    assert.deepEqual(message.content, [{ type: 'text', text: 'plain' }]);
  });

  it('drops the connection without an answer when told to', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'x' }], dropAfterEvents: 0 });
    await assert.rejects(client.messages.create(ask('x')));
    assert.equal(server.requests[server.requests.length - 1].status, 0);
  });
});

describe('errors', () => {
  it('answers 529 with the API body, as the SDK OverloadedError', async () => {
    server.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    const err = await expectApiError(client.messages.create(ask('x')), 529, 'Overloaded');
    assert.ok(err instanceof OverloadedError);
    assert.deepEqual(err.error, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    assert.match(err.requestID ?? '', /^req_/);
  });

  it('sends retry-after, and the SDK retries after it', async () => {
    server.enqueue({
      error: {
        status: 429,
        type: 'rate_limit_error',
        message: 'Number of request tokens has exceeded your rate limit.',
        retryAfterSeconds: 7,
      },
    });
    const err = await expectApiError(
      client.messages.create(ask('x')),
      429,
      'Number of request tokens has exceeded your rate limit.',
    );
    assert.ok(err instanceof RateLimitError);
    assert.equal(err.headers?.get('retry-after'), '7');

    const retrying = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 1 });
    server.enqueue(
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded', retryAfterSeconds: 0 } },
      { content: [{ type: 'text', text: 'second try' }] },
    );
    const before = server.requests.length;
    const message = await retrying.messages.create(ask('x'));
    assert.deepEqual(message.content, [{ type: 'text', text: 'second try' }]);
    assert.deepEqual(
      server.requests.slice(before).map((r) => r.status),
      [529, 200],
    );
  });

  it('answers 500 when the script has run out', async () => {
    const err = await expectApiError(client.messages.create(ask('x')), 500, 'test server: no scripted reply left');
    assert.ok(err instanceof InternalServerError);
  });

  it('rejects invalid requests with 400 before using a scripted reply', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'kept for later' }] });
    const err = await expectApiError(
      client.messages.create({
        model: MODEL,
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01A', name: 'Read', input: {} }] },
          { role: 'user', content: 'forgot the result' },
        ],
      }),
      400,
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A. ' +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
    assert.ok(err instanceof BadRequestError);
    assert.equal(server.pending(), 1);
    await client.messages.create(ask('now valid'));
  });

  it('surfaces every validator rule through the SDK', async () => {
    const cases: Array<[Anthropic.MessageParam[], string]> = [
      [[{ role: 'user', content: [{ type: 'text', text: '' }] }], 'messages: text content blocks must be non-empty'],
      [
        [{ role: 'user', content: [{ type: 'text', text: ' \n' }] }],
        'messages: text content blocks must contain non-whitespace text',
      ],
      [
        [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [] },
          { role: 'user', content: 'y' },
        ],
        'messages.1: all messages must have non-empty content except for the optional final assistant message',
      ],
      [
        [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01Q', content: 'r' }] }],
        'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Q. ' +
          'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
      ],
      [
        [
          { role: 'user', content: 'x' },
          {
            role: 'assistant',
            content: [
              { type: 'tool_use', id: 'toolu_01D', name: 'A', input: {} },
              { type: 'tool_use', id: 'toolu_01D', name: 'B', input: {} },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01D', content: 'r' }] },
        ],
        'messages.1.content.1: `tool_use` ids must be unique',
      ],
      [
        [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 't' } as never] },
        ],
        'messages.1.content.0.thinking.signature: Field required',
      ],
      [
        [
          {
            role: 'user',
            content: ['a', 'b', 'c', 'd', 'e'].map((t) => ({
              type: 'text' as const,
              text: t,
              cache_control: { type: 'ephemeral' as const },
            })),
          },
        ],
        'A maximum of 4 blocks with cache_control may be provided. Found 5.',
      ],
    ];
    for (const [messages, message] of cases) {
      await expectApiError(client.messages.create({ model: MODEL, max_tokens: 10, messages }), 400, message);
    }
  });

  it('rejects prompts over the configured window', async () => {
    const small = await startTestServer({ contextWindow: 100 });
    try {
      const c = new Anthropic({ apiKey: 'k', baseURL: small.url, maxRetries: 0 });
      await expectApiError(
        c.messages.create(ask('x'.repeat(404))),
        400,
        'prompt is too long: 101 tokens > 100 maximum',
      );
    } finally {
      await small.close();
    }
  });

  it('requires an API key header', async () => {
    const res = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: JSON.stringify(ask('x')) });
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), {
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
    assert.match(res.headers.get('request-id') ?? '', /^req_/);
    const bearer = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { authorization: 'Bearer token' },
      body: JSON.stringify(ask('x')),
    });
    assert.equal(bearer.status, 200);
  });

  it('answers unknown paths with 404 and bad JSON with 400', async () => {
    const notFound = await fetch(`${server.url}/v1/complete`, {
      method: 'POST',
      headers: { 'x-api-key': 'k' },
      body: '{}',
    });
    assert.equal(notFound.status, 404);
    const badJson = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k' },
      body: '{nope',
    });
    assert.equal(badJson.status, 400);
    assert.equal(((await badJson.json()) as { error: { type: string } }).error.type, 'invalid_request_error');
  });
});

describe('count_tokens, script sources and the log', () => {
  it('counts tokens over system, tools and messages', async () => {
    const counted = await client.messages.countTokens({
      model: MODEL,
      system: 'x'.repeat(40),
      tools: [{ name: 'Read', description: 'd'.repeat(20), input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'y'.repeat(41) }],
    });
    // system 10 + tool ceil((4 + 20 + 17) / 4) = 11 + message 11
    assert.equal(counted.input_tokens, 32);
    // Logged apart: a count is not a turn of the conversation the Messages log holds.
    const count = server.counts.at(-1);
    assert.equal(count?.path, '/v1/messages/count_tokens');
    assert.equal(count?.usage?.input_tokens, 32);
    assert.ok(!server.requests.some((r) => r.path.endsWith('/count_tokens')));
  });

  it('uses the queue first, then the responder with a running index', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'queued' }] });
    const seen: number[] = [];
    server.setResponder((body, index) => {
      seen.push(index);
      const last = body.messages[body.messages.length - 1];
      return { content: [{ type: 'text', text: `echo ${String(last.content)}` }] };
    });
    const a = await client.messages.create(ask('one'));
    const b = await client.messages.create(ask('two'));
    assert.deepEqual(a.content, [{ type: 'text', text: 'queued' }]);
    assert.deepEqual(b.content, [{ type: 'text', text: 'echo two' }]);
    assert.equal(seen.length, 1);
  });

  it('answers as the offline demo model, with a Read call for "read <path>"', async () => {
    const demo = await startTestServer({ demo: true });
    try {
      const c = new Anthropic({ apiKey: 'k', baseURL: demo.url, maxRetries: 0 });
      const hello = await c.messages.create(ask('hello'));
      assert.ok(hello.content[0].type === 'text' && hello.content[0].text.startsWith('Offline demo model:'));
      const tools = [{ name: 'Read', description: 'read', input_schema: { type: 'object' as const } }];
      const read = await c.messages.create({ ...ask('please read src/app.ts'), tools });
      const call = read.content.find((b) => b.type === 'tool_use');
      assert.ok(call && call.type === 'tool_use');
      assert.deepEqual(call.input, { file_path: 'src/app.ts' });
      const after = await c.messages.create({
        model: MODEL,
        max_tokens: 100,
        tools,
        messages: [
          { role: 'user', content: 'please read src/app.ts' },
          { role: 'assistant', content: read.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'export {}' }] },
        ],
      });
      assert.equal(after.stop_reason, 'end_turn');
    } finally {
      await demo.close();
    }
  });

  it('appends every request to the JSON-lines log file', async () => {
    const dir = tempDir('engram-ts-');
    const logFile = path.join(dir, 'requests.jsonl');
    const logged = await startTestServer({ logFile });
    try {
      logged.enqueue({ content: [{ type: 'text', text: 'ok' }] });
      const c = new Anthropic({ apiKey: 'k', baseURL: logged.url, maxRetries: 0 });
      await c.messages.create(ask('first'));
      await assert.rejects(c.messages.create(ask('second')));
      const lines = fs
        .readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { status: number; path: string });
      assert.deepEqual(
        lines.map((l) => [l.path, l.status]),
        [
          ['/v1/messages', 200],
          ['/v1/messages', 500],
        ],
      );
    } finally {
      await logged.close();
    }
  });
});
