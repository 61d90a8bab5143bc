// The pure parts of the model layer: error mapping, backoff, cache breakpoints, configuration.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { withCacheBreakpoints } from '../../../src/core/llm/cacheBreakpoints';
import {
  AuthError,
  InvalidRequestError,
  OverloadedError,
  PromptTooLongError,
  RateLimitError,
  ServerError,
  classifyApiFailure,
  parsePromptTooLong,
  parseRetryAfter,
} from '../../../src/core/llm/errors';
import { DEFAULT_BASE_URL, DEFAULT_MODEL, resolveModelConfig } from '../../../src/core/llm/modelConfig';
import { DEFAULT_RETRY_POLICY, retryDelayMs } from '../../../src/core/llm/retry';

describe('error mapping', () => {
  it('reads the numbers out of "prompt is too long"', () => {
    assert.deepEqual(parsePromptTooLong('prompt is too long: 212345 tokens > 200000 maximum'), {
      promptTokens: 212345,
      maxTokens: 200000,
    });
    assert.equal(parsePromptTooLong('something else'), undefined);
  });

  it('maps statuses and in-stream error types to core errors', () => {
    assert.ok(classifyApiFailure({ status: 401, message: 'invalid x-api-key' }) instanceof AuthError);
    assert.ok(classifyApiFailure({ status: 403, type: 'permission_error' }) instanceof AuthError);
    assert.ok(classifyApiFailure({ status: 429 }) instanceof RateLimitError);
    assert.ok(classifyApiFailure({ status: 529 }) instanceof OverloadedError);
    assert.ok(
      classifyApiFailure({ type: 'overloaded_error' }) instanceof OverloadedError,
      'SSE error event has no status',
    );
    assert.ok(classifyApiFailure({ status: 500, type: 'api_error' }) instanceof ServerError);
    assert.ok(
      classifyApiFailure({ status: 404, type: 'not_found_error', message: 'model: x' }) instanceof InvalidRequestError,
    );
    const tooLong = classifyApiFailure({
      status: 400,
      type: 'invalid_request_error',
      message: 'prompt is too long: 300 tokens > 200 maximum',
    });
    assert.ok(tooLong instanceof PromptTooLongError);
    assert.equal(tooLong.promptTokens, 300);
    assert.equal(tooLong.retryable, false);
    assert.equal(classifyApiFailure({ status: 429 }).retryable, true);
  });

  it('parses retry-after as seconds, milliseconds or a date', () => {
    assert.equal(parseRetryAfter('2'), 2000);
    assert.equal(parseRetryAfter('0.25'), 250);
    assert.equal(parseRetryAfter('2', '150'), 150);
    assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), undefined, 4_000), 6_000);
    assert.equal(parseRetryAfter(undefined), undefined);
    assert.equal(parseRetryAfter('soon'), undefined);
  });
});

describe('backoff', () => {
  it('doubles from the base, caps, adds bounded jitter, and defers to retry-after', () => {
    const p = DEFAULT_RETRY_POLICY;
    assert.equal(
      retryDelayMs(1, undefined, p, () => 0),
      1000,
    );
    assert.equal(
      retryDelayMs(3, undefined, p, () => 0),
      4000,
    );
    assert.equal(
      retryDelayMs(10, undefined, p, () => 0),
      p.maxDelayMs,
    );
    assert.equal(
      retryDelayMs(1, undefined, p, () => 0.999),
      Math.round(1000 * (1 + p.jitter * 0.999)),
    );
    assert.equal(
      retryDelayMs(4, 1234, p, () => 0.5),
      1234,
    );
  });
});

describe('cache breakpoints', () => {
  it('adds at most 4 markers on copies and strips stale ones', () => {
    const messages: ApiMessage[] = [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: [{ type: 'text', text: 'a' }] },
      { role: 'user', content: [{ type: 'text', text: 'two', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
      { role: 'user', content: 'three' },
    ];
    const frozen = structuredClone(messages);
    const out = withCacheBreakpoints(
      [{ type: 'text', text: 's' }],
      [{ name: 't', description: 'd', input_schema: {} }],
      messages,
    );
    assert.deepEqual(messages, frozen);
    const count = JSON.stringify(out).split('cache_control').length - 1;
    assert.equal(count, 4);
    assert.deepEqual(
      out.messages[0].content,
      [{ type: 'text', text: 'one' }],
      'strings sent as one text block, unmarked',
    );
    assert.deepEqual(out.messages[2].content, [{ type: 'text', text: 'two', cache_control: { type: 'ephemeral' } }]);
    assert.deepEqual(out.messages[4].content, [{ type: 'text', text: 'three', cache_control: { type: 'ephemeral' } }]);
  });

  it('works with no tools and a single message', () => {
    const out = withCacheBreakpoints([], [], [{ role: 'user', content: 'hi' }]);
    assert.equal(JSON.stringify(out).split('cache_control').length - 1, 1);
  });

  const turns: ApiMessage[] = Array.from({ length: 9 }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text: `m${i}` }],
  }));
  const marked = (out: ReturnType<typeof withCacheBreakpoints>) =>
    out.messages.flatMap((m, i) => (JSON.stringify(m).includes('cache_control') ? [i] : []));
  const system = [{ type: 'text' as const, text: 's' }];
  const tools = [{ name: 't', description: 'd', input_schema: {} }];

  it('marks the stable prefix (after the last trimmed result); the tools get a marker only when one is left', () => {
    const out = withCacheBreakpoints(system, tools, turns, { stableAt: 2 });
    assert.deepEqual(marked(out), [2, 6, 8], 'newest user message, the one before, the stable end');
    assert.equal(JSON.stringify(out.tools).includes('cache_control'), false);
    assert.deepEqual(marked(withCacheBreakpoints(system, tools, turns)), [6, 8]);
    assert.equal(JSON.stringify(withCacheBreakpoints(system, tools, turns).tools).includes('cache_control'), true);
  });

  it('right after a trim marks where the cached prefix still ends instead of the previous user message', () => {
    assert.deepEqual(marked(withCacheBreakpoints(system, tools, turns, { readAt: 3, stableAt: 6 })), [3, 6, 8]);
    assert.deepEqual(
      marked(withCacheBreakpoints(system, tools, turns, { readAt: 99 })),
      [6, 8],
      'an index out of range is ignored',
    );
  });

  it('a request sent once (a fork) reads what it continues and writes nothing after it', () => {
    const fork: ApiMessage[] = [
      ...turns.slice(0, 8),
      { role: 'user', content: [{ type: 'text', text: 'notes prompt' }] },
    ];
    const out = withCacheBreakpoints(system, tools, fork, { cacheTail: false });
    assert.deepEqual(marked(out), [6, 7], 'the block before the tail, and the user message before that');
    assert.equal(JSON.stringify(out.messages[8]).includes('cache_control'), false);
    // The fork's text joined the parent's last user message: the block before it is in the same message.
    const joined: ApiMessage[] = [
      ...turns.slice(0, 8),
      {
        role: 'user',
        content: [
          { type: 'text', text: 'result' },
          { type: 'text', text: 'notes prompt' },
        ],
      },
    ];
    const last = withCacheBreakpoints(system, tools, joined, { cacheTail: false }).messages[8].content as Array<{
      cache_control?: unknown;
    }>;
    assert.deepEqual(
      last.map((b) => b.cache_control !== undefined),
      [true, false],
    );
  });
});

describe('model configuration', () => {
  it('prefers the stored secret and the setting, then the environment, then defaults', () => {
    const env = { ANTHROPIC_API_KEY: 'env-key', ANTHROPIC_BASE_URL: 'http://env.example/' };
    assert.deepEqual(resolveModelConfig({}, env, 'secret-key'), {
      model: DEFAULT_MODEL,
      maxOutputTokens: 16000,
      baseUrl: 'http://env.example',
      apiKey: 'secret-key',
      apiKeySource: 'secret',
      provider: { id: 'anthropic' },
      providerSource: 'default',
      providerProblems: [],
    });
    const fromEnv = resolveModelConfig(
      { baseUrl: ' http://set.example ', model: 'm', maxOutputTokens: 1000 },
      env,
      '  ',
    );
    assert.equal(fromEnv.apiKey, 'env-key');
    assert.equal(fromEnv.apiKeySource, 'env');
    assert.equal(fromEnv.baseUrl, 'http://set.example');
    assert.equal(fromEnv.model, 'm');
    assert.equal(fromEnv.maxOutputTokens, 1000);
    const none = resolveModelConfig({ baseUrl: '' }, {}, undefined);
    assert.equal(none.apiKey, undefined);
    assert.equal(none.apiKeySource, 'none');
    assert.equal(none.baseUrl, DEFAULT_BASE_URL);
  });
});
