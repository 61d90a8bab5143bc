import Anthropic from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CacheControl } from '../../../src/core/conversation/types';
import { startTestServer } from '../../../src/testServer/anthropicTestServer';
import { PromptCacheSimulator } from '../../../src/testServer/promptCache';
import { approximateInputTokens, promptSegments } from '../../../src/testServer/promptSegments';

const cc: CacheControl = { type: 'ephemeral' };
const cc1h: CacheControl = { type: 'ephemeral', ttl: '1h' };

/** A block of exactly `tokens` tokens by the server's count (4 characters a token). */
const chars = (tokens: number, fill = 'x'): string => fill.repeat(tokens * 4);

interface Turn {
  text: string;
  mark?: CacheControl;
}
function body(system: string, turns: Turn[], systemMark: CacheControl | null = cc): Record<string, unknown> {
  return {
    model: 'claude-test',
    max_tokens: 100,
    system: [{ type: 'text', text: system, ...(systemMark ? { cache_control: systemMark } : {}) }],
    messages: turns.map((t, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: [{ type: 'text', text: t.text, ...(t.mark ? { cache_control: t.mark } : {}) }],
    })),
  };
}

function run(cache: PromptCacheSimulator, b: Record<string, unknown>, model = 'claude-test') {
  return cache.process(model, promptSegments(b));
}

describe('prompt cache simulation', () => {
  it('writes on the first call and reads the same prefix on the second', () => {
    const cache = new PromptCacheSimulator();
    const b = body(chars(2000), [{ text: chars(10) }]);
    assert.deepEqual(run(cache, b), {
      input_tokens: 10,
      cache_creation_input_tokens: 2000,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 2000, ephemeral_1h_input_tokens: 0 },
    });
    assert.deepEqual(run(cache, b), {
      input_tokens: 10,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 2000,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    });
  });

  it('reads the previous turn through the lookback and writes only the new part', () => {
    const cache = new PromptCacheSimulator();
    const turn1 = [{ text: chars(1500), mark: cc }];
    const first = run(cache, body(chars(100), turn1, null));
    assert.equal(first.cache_creation_input_tokens, 1600);
    // Next call: the breakpoint moved to the newest message; the old one is 2 blocks before it.
    const turn2 = [{ text: chars(1500) }, { text: chars(300) }, { text: chars(200), mark: cc }];
    const second = run(cache, body(chars(100), turn2, null));
    assert.deepEqual(second, {
      input_tokens: 0,
      cache_creation_input_tokens: 500,
      cache_read_input_tokens: 1600,
      cache_creation: { ephemeral_5m_input_tokens: 500, ephemeral_1h_input_tokens: 0 },
    });
  });

  it('misses once the previous breakpoint is more than 20 blocks back', () => {
    const cache = new PromptCacheSimulator();
    run(cache, body(chars(2000), [{ text: 'q' }]));
    const longTurns: Turn[] = Array.from({ length: 22 }, (_, i) => ({ text: `turn ${i}` }));
    longTurns[21].mark = cc;
    const b = body(chars(2000), longTurns, null);
    assert.equal(run(cache, b).cache_read_input_tokens, 0);
    const nearTurns = longTurns.slice(0, 20);
    nearTurns[19] = { text: 'turn 19', mark: cc };
    const near = new PromptCacheSimulator();
    run(near, body(chars(2000), [{ text: 'q' }]));
    assert.equal(run(near, body(chars(2000), nearTurns, null)).cache_read_input_tokens, 2000);
  });

  it('splits writes by TTL and expires 5-minute entries before 1-hour ones', () => {
    let now = 1_000_000;
    const cache = new PromptCacheSimulator({ now: () => now });
    const b = body(chars(1200), [{ text: chars(800), mark: cc }], cc1h);
    assert.deepEqual(run(cache, b).cache_creation, { ephemeral_5m_input_tokens: 800, ephemeral_1h_input_tokens: 1200 });
    now += 6 * 60_000;
    assert.equal(run(cache, b).cache_read_input_tokens, 1200, 'the 1h system prefix survives, the 5m turn expired');
    now += 61 * 60_000;
    assert.equal(run(cache, b).cache_read_input_tokens, 0);
  });

  it('refreshes the TTL on a hit', () => {
    let now = 0;
    const cache = new PromptCacheSimulator({ now: () => now });
    const b = body(chars(2000), [{ text: 'q' }]);
    run(cache, b);
    for (let i = 0; i < 3; i++) {
      now += 4 * 60_000;
      assert.equal(run(cache, b).cache_read_input_tokens, 2000);
    }
  });

  it('does not cache prefixes under the minimum length', () => {
    const cache = new PromptCacheSimulator();
    const b = body(chars(1000), [{ text: chars(10) }]);
    assert.equal(run(cache, b).cache_creation_input_tokens, 0);
    assert.equal(run(cache, b).input_tokens, 1010);
    const lenient = new PromptCacheSimulator({ minCacheableTokens: 0 });
    run(lenient, b);
    assert.equal(run(lenient, b).cache_read_input_tokens, 1000);
  });

  it('misses when the model or an earlier block changes, and ignores where markers sit', () => {
    const cache = new PromptCacheSimulator();
    const b = body(chars(2000), [{ text: 'q' }]);
    run(cache, b);
    assert.equal(run(cache, b, 'other-model').cache_read_input_tokens, 0);
    assert.equal(run(cache, body(chars(2000, 'y'), [{ text: 'q' }])).cache_read_input_tokens, 0);
    const withTools = { ...b, tools: [{ name: 'T', description: 'd', input_schema: {} }] };
    assert.equal(run(cache, withTools).cache_read_input_tokens, 0, 'tools come first in the prefix');
    // Same content, marker moved to the user message: the system prefix is still found by lookback.
    const moved = body(chars(2000), [{ text: 'q', mark: cc }], null);
    assert.equal(run(cache, moved).cache_read_input_tokens, 2000);
  });

  it('usage always adds up to the counted input', () => {
    const cache = new PromptCacheSimulator();
    const bodies = [
      body(chars(1500), [{ text: chars(700) }]),
      body(chars(1500), [{ text: chars(700) }, { text: 'a' }, { text: chars(900), mark: cc1h }]),
      body(chars(1500), [
        { text: chars(700) },
        { text: 'a' },
        { text: chars(900) },
        { text: 'b' },
        { text: 'c', mark: cc },
      ]),
    ];
    for (const b of bodies) {
      const u = run(cache, b);
      assert.equal(
        u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens,
        approximateInputTokens(b),
      );
      assert.equal(
        u.cache_creation.ephemeral_5m_input_tokens + u.cache_creation.ephemeral_1h_input_tokens,
        u.cache_creation_input_tokens,
      );
    }
  });
});

describe('prompt cache through the server and the SDK', () => {
  it('the second call reads what the first wrote', async () => {
    const server = await startTestServer();
    try {
      const client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
      const system: Anthropic.TextBlockParam[] = [
        { type: 'text', text: chars(3000), cache_control: { type: 'ephemeral' } },
      ];
      const first: Anthropic.MessageParam[] = [
        { role: 'user', content: [{ type: 'text', text: chars(50), cache_control: { type: 'ephemeral' } }] },
      ];
      server.enqueue({ content: [{ type: 'text', text: 'one' }] }, { content: [{ type: 'text', text: 'two' }] });
      const a = await client.messages
        .stream({ model: 'claude-test', max_tokens: 100, system, messages: first })
        .finalMessage();
      assert.equal(a.usage.cache_creation_input_tokens, 3050);
      assert.equal(a.usage.cache_read_input_tokens, 0);
      assert.equal(a.usage.input_tokens, 0);
      assert.deepEqual(a.usage.cache_creation, { ephemeral_5m_input_tokens: 3050, ephemeral_1h_input_tokens: 0 });

      const second: Anthropic.MessageParam[] = [
        { role: 'user', content: [{ type: 'text', text: chars(50) }] },
        { role: 'assistant', content: a.content },
        { role: 'user', content: [{ type: 'text', text: chars(20), cache_control: { type: 'ephemeral' } }] },
      ];
      const b = await client.messages.create({ model: 'claude-test', max_tokens: 100, system, messages: second });
      assert.equal(b.usage.cache_read_input_tokens, 3050);
      assert.equal(b.usage.cache_creation_input_tokens, 21); // "one" (1 token) + 20
      assert.equal(b.usage.input_tokens, 0);
      assert.equal(server.requests[1].usage?.cache_read_input_tokens, 3050);
    } finally {
      await server.close();
    }
  });
});
