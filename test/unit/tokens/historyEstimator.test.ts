// Issue #13 class 8: `engram gauge` / `compact` on a 200 MB transcript spent minutes tokenizing history
// the API had already counted. Only the newest messages (and all after the last report) are tokenized.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { historyEstimator } from '../../../src/core/tokens/historyEstimator';

describe('historyEstimator', () => {
  const messages: ApiMessage[] = Array.from({ length: 1_000 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: `message ${i} `.repeat(100),
  }));

  it('tokenizes only the newest messages; older ones are estimated from their length', () => {
    const counted: string[] = [];
    const estimator = historyEstimator(messages, (t) => (counted.push(t), 1), 1_000, messages.length - 1);
    let total = 0;
    for (const m of messages) total += estimator.message(m).messages;
    assert.ok(counted.length > 0 && counted.length < 50, `${counted.length} texts tokenized`);
    assert.ok(
      counted.every((t) => t.startsWith('message 9')),
      'the newest ones',
    );
    assert.ok(total > 1_000 * 100, 'the old ones still count by their length');
  });

  it('tokenizes everything after the last usage report, however much', () => {
    const counted: string[] = [];
    const estimator = historyEstimator(messages, (t) => (counted.push(t), 1), 1_000, 499);
    for (const m of messages) estimator.message(m);
    assert.equal(counted.length, 500);
  });
});
