// The cost line's arithmetic (issue 24): the price list, the automatic TTL rule, the cache's state and
// the next message's cost warm and cold, the TTL on every breakpoint of a request, and what a transcript
// says about the cache when a session resumes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cacheFactsOf } from '../../../src/core/conversation/cacheFacts';
import type { ApiMessage, Usage } from '../../../src/core/conversation/types';
import { withCacheBreakpoints } from '../../../src/core/llm/cacheBreakpoints';
import { chooseTtl, slowGapShare, TTL_MS } from '../../../src/core/llm/cacheTtl';
import { priceOf } from '../../../src/core/llm/modelPrices';
import { nextTurnCost, priceOfTokens, type CacheFacts } from '../../../src/core/llm/nextTurnCost';
import { resolveSettings } from '../../../src/core/settings/engramSettings';

const MIN = 60_000;

describe('model prices', () => {
  it('prices a model by its id, with or without a date, from the list', () => {
    assert.deepEqual(priceOf('claude-sonnet-4-6'), { input: 3, output: 15, write5m: 3.75, write1h: 6, read: 0.3 });
    assert.equal(priceOf('claude-opus-4-5-20251101')?.input, 5);
    assert.equal(priceOf('claude-opus-4-1-20250805')?.input, 15, 'Opus 4.1 is on the old tier');
    assert.equal(priceOf('claude-3-haiku-20240307')?.read, 0.03, 'a read price off the 0.1x rule');
    assert.equal(priceOf('claude-fable-5-1')?.read, 0.25);
  });

  it('says nothing for a model it does not know, rather than guess from a neighbour', () => {
    assert.equal(priceOf('claude-opus-45'), undefined);
    assert.equal(priceOf('gpt-5'), undefined);
    assert.equal(priceOfTokens('gpt-5', '5m', { read: 1, write: 1, input: 1 }), undefined);
  });
});

describe('the automatic TTL', () => {
  it('is 5 minutes until more than a sixth of the gaps between prompts are over 5 minutes, then 1 hour', () => {
    assert.equal(chooseTtl('auto', []), '5m');
    assert.equal(chooseTtl('auto', [0]), '5m', 'one prompt has no gap');
    assert.equal(chooseTtl('auto', [0, 5 * MIN]), '5m', 'exactly 5 minutes is not over');
    assert.equal(chooseTtl('auto', [0, 5 * MIN + 1]), '1h', 'the first gap was slow');
    const quick = Array.from({ length: 7 }, (_, i) => i * MIN); // six gaps of a minute
    assert.equal(chooseTtl('auto', [...quick, 6 * MIN + 20 * MIN]), '5m', 'one slow gap in seven: 1/7 < 1/6');
    assert.equal(chooseTtl('auto', [...quick.slice(0, 6), 5 * MIN + 20 * MIN]), '5m', 'one in six is not more');
    assert.equal(chooseTtl('auto', [...quick.slice(0, 5), 4 * MIN + 20 * MIN]), '1h', 'one in five');
    assert.equal(slowGapShare([30 * MIN, 0, 2 * MIN]), 0.5, 'sorted first');
    assert.equal(slowGapShare([0]), undefined);
  });

  it('a fixed setting wins over the pace', () => {
    assert.equal(chooseTtl('5m', [0, 30 * MIN, 60 * MIN]), '5m');
    assert.equal(chooseTtl('1h', []), '1h');
  });

  it('is a checked setting, auto by default', () => {
    assert.equal(resolveSettings().settings.promptCache.ttl, 'auto');
    assert.equal(resolveSettings({ 'promptCache.ttl': '1h' }).settings.promptCache.ttl, '1h');
    const bad = resolveSettings({ 'promptCache.ttl': '2h' });
    assert.equal(bad.settings.promptCache.ttl, 'auto');
    assert.match(bad.problems.join('\n'), /promptCache\.ttl/);
  });
});

const usage = (read: number, write: number, input = 0, output = 200): Usage => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
});

function facts(over: Partial<CacheFacts> = {}): CacheFacts {
  return {
    model: 'claude-sonnet-4-6',
    ttl: '5m',
    lastRequestAt: 1_000_000,
    lastUsage: usage(40_000, 10_000),
    contextTokens: 50_500,
    fixedTokens: 6_000,
    compacted: false,
    ...over,
  };
}

describe('the next message cost', () => {
  it('is warm until exactly the last request time plus the TTL, then cold', () => {
    const f = facts();
    const justBefore = nextTurnCost(f, 1_000_000 + TTL_MS['5m'] - 1);
    assert.equal(justBefore.warm, true);
    assert.equal(justBefore.leftMs, 1);
    const atTtl = nextTurnCost(f, 1_000_000 + TTL_MS['5m']);
    assert.equal(atTtl.warm, false);
    assert.equal(atTtl.leftMs, 0);
    assert.equal(nextTurnCost(facts({ lastTtl: '1h' }), 1_000_000 + 59 * MIN).warm, true, 'written for an hour');
    assert.equal(nextTurnCost(facts({ lastRequestAt: undefined }), 0).warm, false, 'nothing sent yet');
    const uncached = nextTurnCost(facts({ lastUsage: usage(0, 0, 826), contextTokens: 900 }), 1_000_000);
    assert.equal(uncached.warm, false, 'a last request too short to cache left nothing warm');
    assert.equal(uncached.leftMs, 0);
  });

  it('warm reads what the last request cached and writes the rest; cold writes everything', () => {
    const c = nextTurnCost(facts(), 1_000_000, 300);
    assert.deepEqual([c.ifWarm.read, c.ifWarm.write, c.ifWarm.input], [50_000, 800, 0]);
    assert.deepEqual([c.ifCold.read, c.ifCold.write, c.ifCold.input], [0, 50_800, 0]);
    // Sonnet 4.6: read $0.30, 5-minute write $3.75 per million.
    assert.ok(Math.abs((c.ifWarm.usd ?? 0) - (50_000 * 0.3 + 800 * 3.75) / 1e6) < 1e-12);
    assert.ok(Math.abs((c.ifCold.usd ?? 0) - (50_800 * 3.75) / 1e6) < 1e-12);
  });

  it('prices writes at the TTL in use: an hour costs 2x input, five minutes 1.25x', () => {
    const hour = nextTurnCost(facts({ ttl: '1h' }), 1_000_000);
    assert.ok(Math.abs((hour.ifCold.usd ?? 0) - (50_500 * 6) / 1e6) < 1e-12);
  });

  it('after a compaction only the system prompt and tools can be read', () => {
    const c = nextTurnCost(facts({ compacted: true, contextTokens: 12_000 }), 1_000_000);
    assert.deepEqual([c.ifWarm.read, c.ifWarm.write], [6_000, 6_000]);
  });

  it('a prompt too short to cache is sent uncached; an unknown model has no price', () => {
    const c = nextTurnCost(facts({ contextTokens: 500, model: 'my-local-model' }), 1_000_000);
    assert.deepEqual([c.ifWarm.read, c.ifWarm.write, c.ifWarm.input], [0, 0, 500]);
    assert.equal(c.ifWarm.usd, undefined);
    assert.equal(c.priceKnown, false);
  });
});

describe('the TTL on the breakpoints', () => {
  const messages: ApiMessage[] = [
    { role: 'user', content: 'one' },
    { role: 'assistant', content: 'two' },
    { role: 'user', content: 'three' },
  ];
  const system = [{ type: 'text' as const, text: 'system' }];
  const tools = [{ name: 't', description: 'd', input_schema: { type: 'object' as const } }];
  const controls = (ttl?: '5m' | '1h'): unknown[] => {
    const parts = withCacheBreakpoints(system, tools, messages, ttl ? { ttl } : {});
    return JSON.stringify(parts)
      .match(/"cache_control":\{[^}]*\}/g)
      ?.map((s) => JSON.parse(`{${s}}`) as unknown) as unknown[];
  };

  it('an hour puts ttl 1h on every breakpoint, never a mix', () => {
    const all = controls('1h');
    assert.ok(all.length >= 3);
    for (const c of all) assert.deepEqual(c, { cache_control: { type: 'ephemeral', ttl: '1h' } });
  });

  it('five minutes is the API default: no ttl field', () => {
    for (const c of controls()) assert.deepEqual(c, { cache_control: { type: 'ephemeral' } });
    for (const c of controls('5m')) assert.deepEqual(c, { cache_control: { type: 'ephemeral' } });
  });
});

describe('what a transcript says about the cache', () => {
  const line = (o: Record<string, unknown>): string => JSON.stringify({ isSidechain: false, ...o });
  const at = (m: number): string => new Date(Date.UTC(2026, 11, 4, 8, m)).toISOString();

  it('the prompts by time, the last real response, and whether a compaction followed it', () => {
    const lines = [
      line({ type: 'user', timestamp: at(0), message: { role: 'user', content: 'first' } }),
      line({ type: 'assistant', timestamp: at(1), message: { model: 'claude-sonnet-4-6', usage: usage(0, 2_000) } }),
      line({
        type: 'user',
        timestamp: at(2),
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'out' }] },
      }),
      line({ type: 'user', timestamp: at(9), message: { role: 'user', content: [{ type: 'text', text: 'next' }] } }),
      line({ type: 'user', timestamp: at(9), isMeta: true, message: { role: 'user', content: 'a note' } }),
      line({ type: 'assistant', timestamp: at(10), message: { model: 'claude-sonnet-4-6', usage: usage(2_000, 500) } }),
      line({ type: 'assistant', timestamp: at(11), message: { model: '<synthetic>', usage: usage(0, 0) } }),
      line({ type: 'assistant', timestamp: at(12), isSidechain: true, message: { model: 'm', usage: usage(0, 9) } }),
      '{"torn',
    ];
    const f = cacheFactsOf(lines);
    assert.deepEqual(f.promptTimes, [Date.parse(at(0)), Date.parse(at(9))]);
    assert.equal(f.lastResponse?.at, Date.parse(at(10)));
    assert.equal(f.lastResponse?.usage.cache_read_input_tokens, 2_000);
    assert.equal(f.compactedAfter, false);
    const compacted = cacheFactsOf([
      ...lines,
      line({ type: 'system', subtype: 'compact_boundary', timestamp: at(13) }),
    ]);
    assert.equal(compacted.compactedAfter, true);
  });
});
