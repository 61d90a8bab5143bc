// The rules for an edited summary or notes, on stage results built by the stages themselves: only the
// body changes, the cut stays, the notes keep their headings, and the preview's header note is not
// part of what the person wrote.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { staticNotesSource } from '../../../src/core/compaction/notesSource';
import { sessionMemoryCompact } from '../../../src/core/compaction/sessionMemoryCompact';
import { reviewTextOf, withEditedBody, withoutPreviewHeader } from '../../../src/core/compaction/summaryEdit';
import { entriesOf, tokensOfEstimator, type CompactionResult } from '../../../src/core/compaction/types';
import type { ApiMessage } from '../../../src/core/conversation/types';

const NOTES = '# Session Title\nEdit test\n\n# Current State\nWriting tests.';
const conversation: ApiMessage[] = [];
for (let i = 0; i < 8; i++)
  conversation.push(
    { role: 'user', content: `prompt ${i} ${'x'.repeat(400)}` },
    { role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] },
  );
const tokensOf = tokensOfEstimator();

async function notesResult(): Promise<CompactionResult> {
  const out = await sessionMemoryCompact(staticNotesSource({ text: NOTES }), 0, {
    entries: entriesOf(conversation),
    bounds: { minTokens: 50, minTextMessages: 2, maxTokens: 400 },
    thresholdTokens: Infinity,
    tokensOf,
    reattach: 'Files: a.ts',
  });
  assert.ok(out.ok);
  return out.result;
}

describe('editing the notes before they replace the history', () => {
  it('replaces only the body: the wording around it, the re-attached part and the cut stay', async () => {
    const result = await notesResult();
    assert.deepEqual(reviewTextOf(result), { kind: 'notes', text: NOTES });
    const out = withEditedBody(
      result,
      entriesOf(conversation),
      NOTES.replace('Writing tests.', 'Writing more tests.'),
      tokensOf,
    );
    assert.ok(out.ok && out.edited);
    assert.equal(out.result.keptFrom, result.keptFrom);
    assert.deepEqual(out.result.replaced, result.replaced);
    assert.equal(out.result.entries.length, result.entries.length);
    assert.deepEqual(out.result.entries.slice(1), result.entries.slice(1));
    assert.equal(out.result.summaryText, result.summaryText!.replace('Writing tests.', 'Writing more tests.'));
    assert.match(out.result.summaryText!, /Files: a\.ts$/);
    assert.ok(out.result.tokensAfter > result.tokensAfter);
  });

  it('refuses notes that lost a heading or close their tag, and treats the same text as no edit', async () => {
    const result = await notesResult();
    const lost = withEditedBody(result, entriesOf(conversation), 'Current State\nWriting tests.', tokensOf);
    assert.ok(!lost.ok);
    assert.match(lost.reason, /lost the sections # Session Title, # Current State/);
    const closed = withEditedBody(result, entriesOf(conversation), `${NOTES}\n</session-notes>`, tokensOf);
    assert.ok(!closed.ok);
    const same = withEditedBody(result, entriesOf(conversation), `  ${NOTES}\n`, tokensOf);
    assert.ok(same.ok && !same.edited && same.result === result);
  });

  it('reads the text under the preview header, which is an HTML comment', () => {
    assert.equal(
      withoutPreviewHeader('<!-- Engram: review this.\nApply or Cancel. -->\n# Notes\r\nbody\n'),
      '# Notes\nbody\n',
    );
    assert.equal(withoutPreviewHeader('# Notes without a header'), '# Notes without a header');
  });
});
