import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { ConversationGauge } from '../../../src/core/tokens/conversationGauge';

const user = (text: string): ApiMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): ApiMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

test('used = last usage total + estimate of what came after it', () => {
  const gauge = new ConversationGauge();
  const history: ApiMessage[] = [user('hello there'), assistant('hi')];
  gauge.onResponse({ input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 1000, cache_creation_input_tokens: 30 }, history);
  assert.equal(gauge.used(), 1150);
  history.push(user('a follow-up question with a few words'));
  gauge.sync(history);
  assert.ok(gauge.used() > 1150 && gauge.used() < 1200, `used ${gauge.used()}`);
});

test('a rewritten history (compaction, merged prompt) is counted afresh, not added on top', () => {
  const gauge = new ConversationGauge();
  const history: ApiMessage[] = [user('x '.repeat(500)), assistant('y '.repeat(500))];
  gauge.sync(history);
  const before = gauge.used();
  const compacted: ApiMessage[] = [user('summary')];
  gauge.sync(compacted);
  assert.ok(gauge.used() < before / 10, `after ${gauge.used()} before ${before}`);
  const merged: ApiMessage[] = [user('summary and more')];
  gauge.sync(merged);
  assert.ok(gauge.used() < before / 10);
});
