// The offline demo answers a compaction's summary request with a real summary (every section), so
// /compact works in the demo now that a non-summary is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SUMMARY_REQUEST_MARKER, summaryProblem } from '../../../src/core/compaction/summaryPrompt';
import type { AssistantBlock } from '../../../src/core/conversation/types';
import { demoReply } from '../../../src/demoModel/demoModel';

describe('the offline demo model', () => {
  it('writes a summary with every section from the conversation it is given', () => {
    const reply = demoReply({
      messages: [
        { role: 'user', content: 'read README.md' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/w/README.md' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '# Readme' }] },
        { role: 'assistant', content: 'It is a readme.' },
        { role: 'user', content: `${SUMMARY_REQUEST_MARKER}\nSummarize.` },
      ],
    });
    const text = reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    assert.equal(summaryProblem(reply.content as AssistantBlock[]), undefined);
    assert.match(text, /\/w\/README\.md/);
    assert.match(text, /"read README\.md"/);
  });
});
