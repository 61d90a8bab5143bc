// keepIndex.ts and invariants.ts on hand-made conversations whose right answer is known.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkCut, checkInvariants, isSafeCut, widenToKeepInvariants } from '../../../src/core/compaction/invariants';
import { computeKeepIndex, findCursorIndex, hasText } from '../../../src/core/compaction/keepIndex';
import { safeCutPoints, dropOldestRounds } from '../../../src/core/compaction/rounds';
import type { CompactionEntry } from '../../../src/core/compaction/types';
import type { ApiMessage } from '../../../src/core/conversation/types';

const e = (message: ApiMessage, messageIds: string[] = [], uuids: string[] = []): CompactionEntry => ({
  message,
  uuids,
  messageIds,
});
const prompt = (text: string): CompactionEntry => e({ role: 'user', content: text }, [], [`u-${text}`]);
const use = (id: string): { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> } => ({
  type: 'tool_use',
  id,
  name: 'Read',
  input: {},
});
const result = (id: string): { type: 'tool_result'; tool_use_id: string; content: string } => ({
  type: 'tool_result',
  tool_use_id: id,
  content: `out ${id}`,
});

// 0 prompt | 1 assistant[thinking] (msg_a) | 2 assistant[text, use t1, use t2] (msg_a) | 3 user[r2, r1] |
// 4 assistant[text] (msg_b) | 5 prompt | 6 assistant[use t3] (msg_c) | 7 user[r3] | 8 assistant[done] (msg_d)
const convo: CompactionEntry[] = [
  prompt('first'),
  e({ role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }] }, ['msg_a']),
  e({ role: 'assistant', content: [{ type: 'text', text: 'reading two' }, use('t1'), use('t2')] }, ['msg_a']),
  e({ role: 'user', content: [result('t2'), result('t1')] }),
  e({ role: 'assistant', content: [{ type: 'text', text: 'read them' }] }, ['msg_b']),
  prompt('second'),
  e({ role: 'assistant', content: [use('t3')] }, ['msg_c']),
  e({ role: 'user', content: [result('t3')] }),
  e({ role: 'assistant', content: [{ type: 'text', text: 'done' }] }, ['msg_d']),
];

describe('widenToKeepInvariants', () => {
  it('moves a cut before the tool_use of a kept result, and before the thinking of the same message.id', () => {
    assert.equal(widenToKeepInvariants(convo, 3), 1, 'results at 3 need the calls at 2, which need the thinking at 1');
    assert.equal(widenToKeepInvariants(convo, 2), 1, 'message msg_a starts at 1');
    assert.equal(widenToKeepInvariants(convo, 7), 6);
    assert.equal(widenToKeepInvariants(convo, 4), 4);
    assert.equal(widenToKeepInvariants(convo, 0), 0);
    assert.equal(widenToKeepInvariants(convo, convo.length), convo.length);
  });

  it('never moves a cut later, and a widened cut is safe', () => {
    for (let i = 0; i <= convo.length; i++) {
      const w = widenToKeepInvariants(convo, i);
      assert.ok(w <= i);
      assert.ok(isSafeCut(convo, w));
      assert.deepEqual(checkCut(convo, w), []);
    }
    assert.match(checkCut(convo, 3).join('\n'), /tool_result t2 is kept but its tool_use is cut/);
    assert.match(checkCut(convo, 2).join('\n'), /message msg_a is split/);
  });

  it('works on plain API messages (tool pairing only)', () => {
    assert.equal(
      widenToKeepInvariants(
        convo.map((x) => x.message),
        2,
      ),
      2,
    );
    assert.equal(
      widenToKeepInvariants(
        convo.map((x) => x.message),
        3,
      ),
      2,
    );
  });
});

describe('checkInvariants', () => {
  it('accepts a well-formed conversation and names what is wrong with broken ones', () => {
    assert.deepEqual(checkInvariants(convo), []);
    assert.match(checkInvariants(convo.slice(3)).join('\n'), /tool_result t2 without its tool_use/);
    const unanswered = [...convo.slice(0, 3), prompt('later')];
    assert.match(checkInvariants(unanswered).join('\n'), /tool_use t1, t2 without a tool_result/);
    assert.match(
      checkInvariants([prompt('x'), e({ role: 'user', content: [{ type: 'text', text: '  ' }] })]).join('\n'),
      /blank text/,
    );
    assert.deepEqual(checkInvariants(convo.slice(0, 3)), [], 'a final assistant turn may wait for its results');
  });
});

describe('computeKeepIndex', () => {
  const tokens = [100, 10, 50, 400, 20, 100, 30, 200, 10];
  const input = (
    firstUncovered: number,
    bounds: { minTokens: number; minTextMessages: number; maxTokens: number },
    floor = 0,
  ) => ({
    count: tokens.length,
    tokensAt: (i: number) => tokens[i],
    hasTextAt: (i: number) => hasText(convo[i].message),
    firstUncovered,
    floor,
    bounds,
  });

  it('keeps everything after the cursor, then extends back until both minimums are met', () => {
    const r = computeKeepIndex(input(7, { minTokens: 300, minTextMessages: 2, maxTokens: 2_000 }));
    // 7..8 = 210 tokens and 1 text message; 6 -> 240/1; 5 -> 340/2: met.
    assert.deepEqual(r, { index: 5, keptTokens: 340, keptTextMessages: 2, stoppedBy: 'min-met' });
  });

  it('stops before exceeding the maximum', () => {
    const r = computeKeepIndex(input(7, { minTokens: 10_000, minTextMessages: 1, maxTokens: 400 }));
    assert.equal(r.stoppedBy, 'max-tokens');
    assert.ok(r.keptTokens <= 400);
    assert.equal(r.index, 4, '7..8 = 210, +30, +100, +20 = 360; the 400 at 3 would pass the maximum');
  });

  it('keeps what the notes do not cover even when it is over the maximum', () => {
    const r = computeKeepIndex(input(3, { minTokens: 10, minTextMessages: 1, maxTokens: 100 }));
    assert.deepEqual([r.index, r.stoppedBy], [3, 'uncovered-over-max']);
  });

  it('never goes before the floor', () => {
    const r = computeKeepIndex(input(9, { minTokens: 100_000, minTextMessages: 9, maxTokens: 1_000_000 }, 4));
    assert.deepEqual([r.index, r.stoppedBy], [4, 'floor']);
  });

  it('finds the cursor by line uuid or by message.id', () => {
    assert.equal(findCursorIndex(convo, 'msg_a'), 2);
    assert.equal(findCursorIndex(convo, 'u-second'), 5);
    assert.equal(findCursorIndex(convo, 'nope'), -1);
  });
});

describe('rounds', () => {
  it('lists the safe cut points and drops whole rounds, never the last one', () => {
    assert.deepEqual(safeCutPoints(convo), [0, 1, 4, 5, 6, 8, 9]);
    const count = () => 10;
    assert.equal(dropOldestRounds(convo, 0, 15, count), 4, 'the first cut past 15 tokens keeps the round whole');
    assert.equal(dropOldestRounds(convo, 0, 10_000, count), 8, 'at most up to the last round');
    assert.equal(dropOldestRounds(convo, 8, 10, count), 8);
  });
});
