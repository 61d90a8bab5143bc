import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BLOCK_OVERHEAD_TOKENS,
  ContextAccountant,
  estimateMessagesTokens,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  TokenEstimator,
  usageTotal,
} from '../../../src/core/tokens/accounting';
import type { ApiMessage } from '../../../src/core/conversation/types';

/** A counter that records its work: one token per character keeps the arithmetic visible. */
function spyCounter() {
  const calls: string[] = [];
  return {
    calls,
    count: (text: string) => {
      calls.push(text);
      return text.length;
    },
  };
}

const user = (text: string): ApiMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): ApiMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

test('usageTotal adds input, cache writes, cache reads and output', () => {
  assert.equal(
    usageTotal({
      input_tokens: 10,
      cache_creation_input_tokens: 200,
      cache_read_input_tokens: 3000,
      output_tokens: 40,
    }),
    3250,
  );
  assert.equal(usageTotal({ input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: null }), 15);
});

test('the estimator sizes each block kind and splits tool results from the rest', () => {
  const spy = spyCounter();
  const est = new TokenEstimator(spy.count);
  const m: ApiMessage = {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'hmm', signature: 'sig-is-not-counted' },
      { type: 'text', text: 'ok' },
      { type: 'tool_use', id: 't', name: 'Read', input: { a: 1 } },
    ],
  };
  assert.deepEqual(est.message(m), {
    messages: MESSAGE_OVERHEAD_TOKENS + 3 * BLOCK_OVERHEAD_TOKENS + 3 + 2 + 4 + 7,
    toolResults: 0,
  });
  const r: ApiMessage = {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 't',
        content: [
          { type: 'text', text: 'abc' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'xx' } },
        ],
      },
      { type: 'text', text: 'hi' },
    ],
  };
  assert.deepEqual(est.message(r), {
    messages: MESSAGE_OVERHEAD_TOKENS + BLOCK_OVERHEAD_TOKENS + 2,
    toolResults: BLOCK_OVERHEAD_TOKENS + 3 + IMAGE_TOKENS,
  });
  assert.deepEqual(est.message({ role: 'user', content: 'plain' }), {
    messages: MESSAGE_OVERHEAD_TOKENS + 5,
    toolResults: 0,
  });
});

test('accounting is incremental: after 1,000 messages, one more costs exactly its own blocks', () => {
  const spy = spyCounter();
  const acc = new ContextAccountant({ count: spy.count });
  for (let i = 0; i < 1000; i++) acc.onMessageAdded(i % 2 === 0 ? user(`question ${i}`) : assistant(`answer ${i}`));
  acc.onResponse({ input_tokens: 50_000, output_tokens: 500 }, 1000);
  assert.equal(spy.calls.length, 1000);

  spy.calls.length = 0;
  const next: ApiMessage = {
    role: 'user',
    content: [
      { type: 'text', text: 'first block' },
      { type: 'tool_result', tool_use_id: 't', content: 'second' },
    ],
  };
  acc.onMessageAdded(next);
  assert.deepEqual(spy.calls, ['first block', 'second'], 'only the new blocks were tokenized');
  spy.calls.length = 0;
  const used = acc.used();
  acc.breakdown();
  acc.percentOf(200_000);
  assert.deepEqual(spy.calls, [], 'reading the numbers tokenizes nothing');
  assert.equal(
    used,
    50_500 + MESSAGE_OVERHEAD_TOKENS + 2 * BLOCK_OVERHEAD_TOKENS + 'first block'.length + 'second'.length,
  );
});

test('used(): the last usage plus estimates of the messages after it; before any response, all estimated', () => {
  const spy = spyCounter();
  const acc = new ContextAccountant({ count: spy.count, fixed: { system: 1000, tools: 500 } });
  acc.onMessageAdded(user('hello'));
  const hello = MESSAGE_OVERHEAD_TOKENS + BLOCK_OVERHEAD_TOKENS + 5;
  assert.equal(acc.used(), 1500 + hello);

  acc.onMessageAdded(assistant('hi there')); // the response, added before its usage arrives
  acc.onResponse({ input_tokens: 1800, cache_read_input_tokens: 0, output_tokens: 12 }, 2);
  assert.equal(acc.used(), 1812, 'the response is inside the usage (output_tokens), not estimated again');

  acc.onMessageAdded(user('more'));
  assert.equal(acc.used(), 1812 + MESSAGE_OVERHEAD_TOKENS + BLOCK_OVERHEAD_TOKENS + 4);
  assert.equal(acc.percentOf(10_000), acc.used() / 100);
  assert.equal(acc.percentOf(0), 0);
});

test('breakdown adds up to used(), with the fixed parts as given', () => {
  const spy = spyCounter();
  const acc = new ContextAccountant({
    count: spy.count,
    fixed: { system: 2000, instructions: 300, memoryIndex: 200, notes: 100, tools: 1400 },
  });
  acc.onMessageAdded(user('a'.repeat(400)));
  acc.onMessageAdded({ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Read', input: {} }] });
  acc.onMessageAdded({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'b'.repeat(1200) }] });
  const before = acc.breakdown();
  assert.equal(before.total, acc.used());
  assert.equal(before.estimated, before.total);
  assert.equal(
    before.system +
      before.instructions +
      before.memoryIndex +
      before.notes +
      before.tools +
      before.messages +
      before.toolResults,
    before.total,
  );
  assert.ok(before.toolResults > before.messages);

  acc.onResponse({ input_tokens: 9000, output_tokens: 0 }, 3);
  const after = acc.breakdown();
  assert.equal(after.total, 9000);
  assert.equal(after.estimated, 0);
  assert.equal(
    after.system +
      after.instructions +
      after.memoryIndex +
      after.notes +
      after.tools +
      after.messages +
      after.toolResults,
    9000,
  );
});

test('reset after compaction re-adds kept messages for free and forgets the old usage', () => {
  const spy = spyCounter();
  const acc = new ContextAccountant({ count: spy.count });
  const kept = [user('kept question'), assistant('kept answer')];
  for (const m of [user('old'), assistant('old answer'), ...kept]) acc.onMessageAdded(m);
  acc.onResponse({ input_tokens: 90_000, output_tokens: 100 }, 4);
  spy.calls.length = 0;
  const summary = user('summary of the old part');
  acc.reset([summary, ...kept]);
  assert.deepEqual(spy.calls, ['summary of the old part']);
  assert.equal(acc.messageCount, 3);
  assert.ok(acc.used() < 200);
});

test('estimateMessagesTokens sums messages and reuses cached blocks', () => {
  const spy = spyCounter();
  const est = new TokenEstimator(spy.count);
  const messages = [user('one'), assistant('two'), user('three')];
  const total = estimateMessagesTokens(messages, est);
  assert.equal(total, 3 * (MESSAGE_OVERHEAD_TOKENS + BLOCK_OVERHEAD_TOKENS) + 3 + 3 + 5);
  spy.calls.length = 0;
  assert.equal(estimateMessagesTokens(messages, est), total);
  assert.deepEqual(spy.calls, []);
  assert.ok(estimateMessagesTokens(messages) > 0, 'the default estimator works without a counter');
});
