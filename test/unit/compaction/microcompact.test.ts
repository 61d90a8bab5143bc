// Microcompact: which results it trims, how (never splitting a character), and what it leaves alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTrimmed, microcompact } from '../../../src/core/compaction/microcompact';
import { cutText, safeCutIndex } from '../../../src/core/compaction/textCut';
import type { ApiMessage } from '../../../src/core/conversation/types';
import { hasLoneSurrogate, requestProblem, toolResults } from './compactionSupport';

function conversation(results: Array<string | ApiMessage['content']>): ApiMessage[] {
  const out: ApiMessage[] = [{ role: 'user', content: 'go' }];
  results.forEach((content, i) => {
    out.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Read', input: {} }] });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: content as string }] });
  });
  out.push({ role: 'assistant', content: [{ type: 'text', text: 'done' }] });
  return out;
}

describe('microcompact', () => {
  it('trims all but the newest results to the limit plus a note of the size, and leaves the rest as the same objects', () => {
    const input = conversation(Array.from({ length: 8 }, (_, i) => `${i}`.repeat(5_000)));
    const out = microcompact(input, { keepRecent: 5, maxChars: 2_000 });
    assert.deepEqual(out.trimmedToolUseIds, ['t0', 't1', 't2']);
    assert.deepEqual(out.changed, [2, 4, 6]);
    input.forEach((m, i) => {
      if (!out.changed.includes(i)) assert.equal(out.messages[i], m, `message ${i} is untouched`);
    });
    const first = toolResults(out.messages)[0].content as string;
    assert.ok(first.startsWith('0'.repeat(2_000) + '\n\n'));
    assert.match(first, /showing the first 2,000 of 5,000 characters/);
    assert.equal(requestProblem(out.messages), null);
    assert.equal((toolResults(input)[0].content as string).length, 5_000, 'the input is not changed');
  });

  it('is idempotent: trimmed results carry the note and stay as they are', () => {
    const once = microcompact(conversation(Array.from({ length: 7 }, () => 'y'.repeat(3_000))), {
      keepRecent: 5,
      maxChars: 2_000,
    });
    const twice = microcompact(once.messages, { keepRecent: 5, maxChars: 2_000 });
    assert.deepEqual(twice.changed, []);
    assert.ok(isTrimmed(toolResults(once.messages)[0]));
  });

  it('leaves short results alone and replaces images in old results by a note', () => {
    const image = {
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/png', data: 'A'.repeat(4_096) },
    };
    const input = conversation([
      [{ type: 'text', text: 'short' }, image],
      'small',
      ...Array.from({ length: 5 }, () => 'x'),
    ]);
    const out = microcompact(input, { keepRecent: 5, maxChars: 2_000 });
    assert.deepEqual(out.trimmedToolUseIds, ['t0']);
    assert.equal(out.imagesRemoved, 1);
    const content = toolResults(out.messages)[0].content as Array<{ type: string; text?: string }>;
    assert.deepEqual(
      content.map((c) => c.type),
      ['text', 'text'],
    );
    assert.match(content[1].text ?? '', /Image removed to save context \(image\/png, about 3 KB\)/);
  });

  it('never cuts inside a surrogate pair or a grapheme cluster', () => {
    const emoji = 'a'.repeat(1_999) + '😀' + 'b'.repeat(3_000);
    const out = microcompact(conversation([emoji, ...Array.from({ length: 5 }, () => 'x')]), {
      keepRecent: 5,
      maxChars: 2_000,
    });
    const text = toolResults(out.messages)[0].content as string;
    assert.ok(!hasLoneSurrogate(text));
    assert.ok(text.startsWith('a'.repeat(1_999) + '\n\n'), 'the emoji that would be split is left out whole');
    assert.equal(safeCutIndex('e\u0301'.repeat(10), 5), 4, 'an accent stays with its letter');
    assert.equal(safeCutIndex('👍🏽👍🏽', 3), 0, 'a skin tone stays with its hand');
    assert.equal(cutText('abc\r\ndef', 4), 'abc', 'CRLF is one character');
    assert.equal(safeCutIndex('short', 10), 5);
  });
});
