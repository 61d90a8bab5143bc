// Issue #20, part 2: a server that takes the request and goes silent. Every wait for bytes has a limit
// (engram.network.stallSeconds); past it the request is abandoned, retried, and when the retries run
// out the error names the URL. Bytes that keep coming, however slowly, keep the request alive.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import { ConnectionDroppedError, ConnectionError, type ModelError } from '../../../src/core/llm/errors';
import type { ModelRequest } from '../../../src/core/llm/modelClient';
import { streamWithRetry, type RetryInfo } from '../../../src/core/llm/retry';
import { useTestServer } from '../support/testServerFixture';

const server = useTestServer();
const STALL_MS = 300;
const never = new AbortController().signal;
const request: ModelRequest = {
  model: 'claude-test',
  maxTokens: 256,
  system: [],
  tools: [],
  messages: [{ role: 'user', content: 'hi' }],
};

function client(stallMs = STALL_MS): AnthropicModelClient {
  return new AnthropicModelClient({ apiKey: 'test-key', baseUrl: server.url, stallMs: () => stallMs });
}

async function failure(p: Promise<unknown>): Promise<{ error: ModelError; ms: number }> {
  const started = Date.now();
  try {
    await p;
  } catch (e) {
    return { error: e as ModelError, ms: Date.now() - started };
  }
  throw new Error('expected the request to fail');
}

describe('a silent server', () => {
  it('that never sends a status line is abandoned after the stall limit, with a retryable error naming the URL', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'never sent' }], hang: true });
    const { error, ms } = await failure(client().stream(request, {}, never));
    assert.ok(error instanceof ConnectionError, String(error));
    assert.equal(error.retryable, true);
    assert.match(error.message, new RegExp(`^No data from ${server.url}/v1/messages for 0\\.3 s`));
    assert.ok(ms >= STALL_MS - 20 && ms < STALL_MS + 1_000, `gave up after ${ms} ms`);
  });

  it('that sends the headers and then nothing is abandoned the same way', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'never sent' }], stallAfterEvents: 0 });
    const { error } = await failure(client().stream(request, {}, never));
    assert.ok(error instanceof ConnectionError && !(error instanceof ConnectionDroppedError), String(error));
    assert.match(error.message, /No data from .* for 0\.3 s/);
  });

  it('that stops in the middle of an answer gives the part that arrived, as a dropped connection', async () => {
    // 0 message_start, 1 content_block_start, 2 ping, 3.. text deltas
    server.enqueue({
      content: [{ type: 'text', text: 'The first words arrive, and then the rest never does.' }],
      stallAfterEvents: 4,
    });
    const { error } = await failure(client().stream(request, {}, never));
    assert.ok(error instanceof ConnectionDroppedError, String(error));
    assert.match(error.message, /No data from .* in the middle of an answer/);
    const partial = error.partial?.content[0];
    assert.ok(partial?.type === 'text' && partial.text.length > 0 && partial.text.length < 50, JSON.stringify(partial));
  });

  it('bytes that keep coming, each within the limit, keep a long answer alive', async () => {
    const text = 'A slow but steady answer, one small piece at a time, for longer than the stall limit.';
    server.enqueue({ content: [{ type: 'text', text }], chunkDelayMs: STALL_MS / 3 });
    const started = Date.now();
    const res = await client().stream(request, {}, never);
    assert.ok(Date.now() - started > STALL_MS, 'the answer took longer than one stall limit');
    assert.deepEqual(res.content, [{ type: 'text', text }]);
  });

  it('a limit of 0 turns the check off', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'late but whole' }], delayMs: 400 });
    const res = await client(0).stream(request, {}, never);
    assert.deepEqual(res.content, [{ type: 'text', text: 'late but whole' }]);
  });

  it('is retried, each retry said, and the last error names the URL and the attempts, within limit x (retries + 1) plus the waits', async () => {
    server.enqueue(
      ...Array.from({ length: 3 }, () => ({ content: [{ type: 'text' as const, text: 'never sent' }], hang: true })),
    );
    const retries: RetryInfo[] = [];
    const { error, ms } = await failure(
      streamWithRetry(client(), request, {}, never, {
        policy: { maxRetries: 2, baseDelayMs: 50, maxDelayMs: 100 },
        onRetry: (info) => retries.push(info),
      }),
    );
    assert.ok(error instanceof ConnectionError, String(error));
    assert.match(
      error.message,
      new RegExp(`No data from ${server.url}/v1/messages for 0\\.3 s.*Gave up after 3 attempts`, 's'),
    );
    assert.deepEqual(
      retries.map((r) => [r.attempt, r.maxRetries, r.error.kind]),
      [
        [1, 2, 'connection'],
        [2, 2, 'connection'],
      ],
    );
    assert.match(retries[0].error.message, /No data from/);
    const waits = retries.reduce((sum, r) => sum + r.delayMs, 0);
    assert.ok(ms < 3 * STALL_MS + waits + 1_500, `ended after ${ms} ms`);
  });

  it('the caller can still cancel while the server is silent', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'never sent' }], hang: true });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const res = await client(5_000).stream(request, {}, abort.signal);
    assert.equal(res.cancelled, true);
  });
});
