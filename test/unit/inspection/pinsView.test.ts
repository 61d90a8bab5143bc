// Issue 24, the inspector's pins list: each pin's cost, the total against the budget, and the pins the
// next compaction would leave out, by the rule the compaction itself applies; and the timeline's line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pin } from '../../../src/core/conversation/pinLines';
import { buildPinsView } from '../../../src/core/inspection/pinsView';
import { compactionView } from '../../../src/core/inspection/timelineView';

const pin = (id: string, text: string, source: Pin['source'] = { kind: 'message', role: 'user' }): Pin => ({
  id,
  at: '2026-02-03T04:05:06.000Z',
  text,
  source,
});
const chars = (t: string): number => t.length;

describe('the pins view', () => {
  it('lists each pin with its cost and source, and the total within the budget', () => {
    const view = buildPinsView(
      [pin('a', 'abc'), pin('b', 'de', { kind: 'selection', role: 'assistant' }), pin('c', 'f', { kind: 'dropped' })],
      10,
      chars,
    );
    assert.deepEqual(
      view.pins.map((p) => [p.id, p.tokens, p.source, p.role, p.wouldCut]),
      [
        ['a', 3, 'message', 'user', false],
        ['b', 2, 'selection', 'assistant', false],
        ['c', 1, 'dropped', undefined, false],
      ],
    );
    assert.equal(view.pins[0].at, Date.parse('2026-02-03T04:05:06.000Z'));
    assert.deepEqual([view.tokens, view.carriedTokens, view.budget, view.wouldCut], [6, 6, 10, 0]);
  });

  it('marks the oldest pins the next compaction would leave out', () => {
    const view = buildPinsView([pin('old', 'x'.repeat(8)), pin('new', 'y'.repeat(5))], 10, chars);
    assert.deepEqual(
      view.pins.map((p) => p.wouldCut),
      [true, false],
    );
    assert.deepEqual([view.tokens, view.carriedTokens, view.wouldCut], [13, 5, 1]);
  });
});

describe('a compaction on the timeline', () => {
  it('says what it carried of the pins', () => {
    const view = compactionView({
      id: 'e1',
      stage: 'full',
      trigger: 'manual',
      tokensBefore: 10_000,
      tokensAfter: 2_000,
      durationMs: 5,
      modelCalls: 1,
      replacedIds: ['a'],
      keptFrom: 1,
      summaryText: 'summary',
      at: 1,
      pinsCarried: { count: 2, tokens: 82, cut: 1 },
    });
    assert.deepEqual(view.pinsCarried, { count: 2, tokens: 82, cut: 1 });
  });
});
