// DESIGN 5's limits, pinned: the defaults must be the documented numbers, and they must bind. Raising
// one of them is a design change, so it has to break a test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildReattachment, type ReattachFile } from '../../../src/core/compaction/reattach';
import { resolveCompactionSettings } from '../../../src/core/compaction/settings';

/** One token a word: the counts are exact and easy to check. */
const words = (t: string): number => (t.trim() === '' ? 0 : t.trim().split(/\s+/).length);
const file = (i: number, tokens: number): ReattachFile => ({
  path: `/w/f${i}.ts`,
  content: Array.from({ length: tokens }, (_, k) => `w${k}`).join(' '),
});

describe('compaction limits', () => {
  it("are DESIGN 5's: 3 reactive retries, 5 files re-attached, 5,000 tokens each, 50,000 in all", () => {
    const s = resolveCompactionSettings();
    assert.equal(s.maxReactiveRetries, 3);
    assert.equal(s.reattachMaxFiles, 5);
    assert.equal(s.reattachFileTokens, 5_000);
    assert.equal(s.reattachTotalTokens, 50_000);
    assert.equal(s.maxConsecutiveFailures, 3);
    // A setting cannot raise the reactive cap past 3 either.
    assert.equal(resolveCompactionSettings({ maxReactiveRetries: 10 }).maxReactiveRetries, 3);
  });

  it('re-attach at most 5 files with the default limits, the most recent first, each cut to 5,000 tokens', () => {
    const s = resolveCompactionSettings();
    const limits = {
      maxFiles: s.reattachMaxFiles,
      fileTokens: s.reattachFileTokens,
      totalTokens: s.reattachTotalTokens,
    };
    const out = buildReattachment({ files: Array.from({ length: 8 }, (_, i) => file(i, 6_000)) }, limits, words);
    assert.deepEqual(
      out.files.map((f) => f.path),
      ['/w/f0.ts', '/w/f1.ts', '/w/f2.ts', '/w/f3.ts', '/w/f4.ts'],
    );
    assert.ok(out.files.every((f) => f.tokens <= 5_000 && !f.complete));
  });

  it('stop at 50,000 tokens in all when more files are allowed', () => {
    const s = resolveCompactionSettings();
    const out = buildReattachment(
      { files: Array.from({ length: 15 }, (_, i) => file(i, 4_000)) },
      { maxFiles: 15, fileTokens: s.reattachFileTokens, totalTokens: s.reattachTotalTokens },
      words,
    );
    const total = out.files.reduce((n, f) => n + f.tokens, 0);
    assert.ok(total <= 50_000, `${total}`);
    assert.ok(total > 45_000, `${total}`);
  });
});
