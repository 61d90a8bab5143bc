// Where the "Add to the summary" lens of an item the person's own edit dropped from the compaction preview
// goes (issue 31: they piled up on the first line, 2 of 7 in sight): where the item's text stood, found
// from the summary as written and the document as it is now.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linesWhereItemsWere } from '../../../../src/vscode/chat/droppedPlaces';

const NOTE = ['<!-- Engram: this summary will replace the conversation.', '-->'];
const SUMMARY = [
  '## Request and intent',
  'Run the steps.',
  '',
  '## Commands run',
  ...[1, 2, 3, 4, 5, 6, 7].map((n) => `- echo step-${n}`),
  '',
  '## Next step',
  'None.',
  '',
  '## Pending tasks',
  'None.',
];

describe('where an item the edit dropped stood', () => {
  it('a deleted block: every item above the line that now follows it', () => {
    const current = [...NOTE, ...SUMMARY.filter((l) => !l.startsWith('- echo'))];
    const items = [1, 2, 3, 4, 5, 6, 7].map((n) => `echo step-${n}`);
    const lines = linesWhereItemsWere(SUMMARY, current, NOTE.length, items);
    // "## Commands run", then the blank line that followed the block: the first kept line after it is
    // blank (not one of a kind), so the next one, "## Next step", is where the block was.
    const next = current.indexOf('## Next step');
    assert.deepEqual(lines, Array(7).fill(next));
  });

  it('items from different places go to different lines', () => {
    const summary = ['## Files', '- src/a.js', '## Commands', '- npm test', '## Next step', 'Ship it.'];
    const current = [...NOTE, '## Files', '## Commands', '## Next step', 'Ship it.'];
    const lines = linesWhereItemsWere(summary, current, NOTE.length, ['src/a.js', 'npm test']);
    assert.deepEqual(lines, [current.indexOf('## Commands'), current.indexOf('## Next step')]);
  });

  it('an item the edit cut out of a line that stays (changed): the line after it', () => {
    const summary = ['## Files', 'Read src/a.js and src/b.js.', '## Next step', 'Ship it.'];
    const current = [...NOTE, '## Files', 'Read src/b.js.', '## Next step', 'Ship it.'];
    assert.deepEqual(linesWhereItemsWere(summary, current, NOTE.length, ['src/a.js']), [
      current.indexOf('## Next step'),
    ]);
  });

  it('an item written over two lines is found, whitespace made single as the core compares', () => {
    const summary = ['## Said', 'The user said: please keep', '   the tabs.', '## Next step', 'None.'];
    const current = [...NOTE, '## Said', '## Next step', 'None.'];
    assert.deepEqual(linesWhereItemsWere(summary, current, NOTE.length, ['please keep the tabs.']), [
      current.indexOf('## Next step'),
    ]);
  });

  it('nothing kept after it: just below the last kept line before it', () => {
    const summary = ['## Next step', 'Ship it.', '- echo last'];
    const current = [...NOTE, '## Next step', 'Ship it.', ''];
    assert.deepEqual(linesWhereItemsWere(summary, current, NOTE.length, ['echo last']), [
      current.indexOf('Ship it.') + 1,
    ]);
  });

  it("an item the summary never held, or a summary rewritten whole: the summary's first line", () => {
    const current = [...NOTE, 'Something else entirely.'];
    assert.deepEqual(linesWhereItemsWere(SUMMARY, current, NOTE.length, ['not in it', 'echo step-1']), [
      NOTE.length,
      NOTE.length,
    ]);
  });
});
