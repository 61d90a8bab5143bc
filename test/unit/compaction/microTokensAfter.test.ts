// Issue #13 class 8: `engram compact` on a big transcript reported `tokensAfter: 0`. The last usage
// report (small) minus the estimated saving of the trimmed results (large) went below zero and was
// clamped; the trimmed results are still sent, so what is left of them is the floor.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { microStep } from '../../../src/core/compaction/pipeline';
import { resolveCompactionSettings } from '../../../src/core/compaction/settings';
import { tokensOfEstimator, type CompactionEntry } from '../../../src/core/compaction/types';
import type { ApiMessage } from '../../../src/core/conversation/types';

function round(i: number): ApiMessage[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Read', input: { file_path: `f${i}` } }] },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `line ${i} of a long file\n`.repeat(2_000) }],
    },
  ];
}

describe('microcompact tokensAfter', () => {
  it('is never 0 when the usage report is below the estimated saving', () => {
    const messages: ApiMessage[] = [
      { role: 'user', content: 'start' },
      ...Array.from({ length: 8 }, (_, i) => round(i)).flat(),
      { role: 'assistant', content: 'done' },
    ];
    const entries: CompactionEntry[] = messages.map((message) => ({ message, uuids: [], messageIds: [] }));
    const r = microStep(entries, 30, {
      settings: resolveCompactionSettings({}),
      tokensOf: tokensOfEstimator(),
      automatic: false,
    });
    assert.ok(r, 'old results were trimmed');
    assert.ok(r.tokensAfter > 0, `tokensAfter ${r.tokensAfter}`);
  });
});
