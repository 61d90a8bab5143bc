import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fullSummaryText } from '../../../src/core/compaction/summaryPrompt';
import { notesSummaryText } from '../../../src/core/compaction/sessionMemoryCompact';
import { summaryParts } from '../../../webview/inspector/summaryParts';

describe("summaryParts (the inspector's compaction details)", () => {
  it("splits a full compaction's message into text, the summary's Markdown and re-attached files, without the tags", () => {
    const reattach =
      'Files you read or edited recently, as they are on disk now:\n<file path="/w/README.md">\n# Demo\n\nRun `npm start`.\n</file>\n<file path="/w/a.ts" truncated="true">\nconst a = `x`;\n</file>\n\n<memory-index>\n- [Tabs](tabs.md) — prefers tabs\n</memory-index>';
    const parts = summaryParts(
      fullSummaryText('## Request and intent\nFix it.\n## Next step\nNone.', { kept: 'recent', reattach }),
    );
    assert.deepEqual(
      parts.map((p) => p.kind),
      ['text', 'summary', 'text', 'file', 'file', 'block'],
    );
    assert.deepEqual(parts[1], { kind: 'summary', markdown: '## Request and intent\nFix it.\n## Next step\nNone.' });
    assert.match(
      (parts[2] as { text: string }).text,
      /^The most recent messages follow unchanged[\s\S]*Files you read or edited recently/,
    );
    assert.deepEqual(parts[3], {
      kind: 'file',
      path: '/w/README.md',
      truncated: false,
      content: '# Demo\n\nRun `npm start`.',
    });
    assert.deepEqual(parts[4], { kind: 'file', path: '/w/a.ts', truncated: true, content: 'const a = `x`;' });
    assert.deepEqual(parts[5], { kind: 'block', tag: 'memory-index', content: '- [Tabs](tabs.md) — prefers tabs' });
    assert.ok(parts.every((p) => !JSON.stringify(p).includes('<summary>')));
  });

  it('reads the session notes of a session-memory compaction as its summary, and an untagged text as a whole', () => {
    const parts = summaryParts(notesSummaryText('# Session Title\nDemo\n# Current State\nDone.'));
    assert.deepEqual(
      parts.filter((p) => p.kind === 'summary'),
      [{ kind: 'summary', markdown: '# Session Title\nDemo\n# Current State\nDone.' }],
    );
    assert.deepEqual(summaryParts('## Next step\nNone.'), [{ kind: 'summary', markdown: '## Next step\nNone.' }]);
    assert.deepEqual(summaryParts(''), []);
  });
});
