// "`tabs indentation`.." (issue 31): a piece of text that ends a sentence itself, put into a template that
// adds its own full stop, gave two. The demo's compaction summary quoted its last reply ("no line matches
// `tabs indentation`.") and a notice quoted a reason ("Every message is recent enough ... replace.").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SUMMARY_REQUEST_MARKER } from '../../../src/core/compaction/summaryPrompt';
import { say } from '../../../src/core/session/sessionEvents';
import { demoReply } from '../../../src/demoModel/demoModel';
import { sentence } from '../../../src/demoModel/reply';
import { clause, stopOnce } from '../../../src/protocol/sentence';
import { callsOf, requestBody, textOf, withResults, type Msg } from '../demoModel/requestBody';

describe('one full stop at the end of a sentence', () => {
  it("in the demo's compaction summary, after a reply that ended with one", () => {
    const asked: Msg[] = [{ role: 'user', content: 'search for tabs indentation' }];
    const first = demoReply(requestBody(asked));
    assert.equal(callsOf(first)[0]?.name, 'Grep');
    const searched = withResults(asked, first, ['No matches found.']);
    const reply = textOf(demoReply(requestBody(searched)));
    assert.match(reply, /no line matches `tabs indentation`\.$/);
    const summary = textOf(
      demoReply(
        requestBody([
          ...searched,
          { role: 'assistant', content: reply },
          { role: 'user', content: `${SUMMARY_REQUEST_MARKER}\nSummarize.` },
        ]),
      ),
    );
    assert.match(summary, /the last reply said: no line matches `tabs indentation`\.\n/);
    assert.doesNotMatch(summary, /[^.]\.\.(?!\.)/, 'no double full stop anywhere in the summary');
  });

  it("in the engine's notices and the hosts' lines: a reason's own stop gives way to the template's", () => {
    const n = say('Could not compact ({0}): {1}.', 'session notes', 'There is nothing to replace.');
    assert.equal(n.text, 'Could not compact (session notes): There is nothing to replace.');
    assert.deepEqual(n.words.args, ['session notes', 'There is nothing to replace']);
    assert.equal(say('Memory saved: {0}', 'Uses tabs.').text, 'Memory saved: Uses tabs.', 'no stop added');
    assert.deepEqual(stopOnce('{0}: {1}。', ['a.', '失败。']), ['a.', '失败']);
    assert.equal(clause('It stopped...'), 'It stopped...', 'an ellipsis stays');
    assert.equal(clause('Done. '), 'Done');
  });

  it('the demo ends its own sentences once, whatever the quoted text ended with', () => {
    assert.equal(sentence('the last reply said: `tabs indentation`.'), 'the last reply said: `tabs indentation`.');
    assert.equal(sentence('Answering "hi"'), 'Answering "hi".');
    assert.equal(sentence('所以完成了。'), '所以完成了。');
  });
});
