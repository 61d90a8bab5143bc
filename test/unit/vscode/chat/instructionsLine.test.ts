// The chat's line naming the session's instruction files (issue 24): one item with each file linked (and
// so openable from the view, and nothing else), none when there is nothing to say, and the untrusted
// case said even with no files.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatItem, HostToChat } from '../../../../src/protocol/messages';
import { ChatItemsModel } from '../../../../src/vscode/chat/chatItemsModel';

describe('the instructions line', () => {
  it('names the files, links each, and says nothing when there are none', () => {
    const posted: HostToChat[] = [];
    const model = new ChatItemsModel((m) => posted.push(m));
    model.instructions([], false);
    assert.equal(model.items.length, 0, 'no files and nothing skipped: no line');
    const files = [
      { label: 'AGENTS.md', path: '/w/AGENTS.md' },
      { label: 'CLAUDE.md', path: '/w/CLAUDE.md' },
    ];
    model.instructions(files, false);
    const item = model.items[0] as Extract<ChatItem, { kind: 'instructions' }>;
    assert.equal(item.kind, 'instructions');
    assert.deepEqual(item.files, files);
    assert.equal(item.skipped, false);
    assert.deepEqual([...model.linkedPaths], ['/w/AGENTS.md', '/w/CLAUDE.md'], 'the view may open them');
    assert.equal(posted.length, 1);
  });

  it('says the project files were skipped in an untrusted workspace, even with no file loaded', () => {
    const model = new ChatItemsModel(() => undefined);
    model.instructions([], true);
    assert.deepEqual(
      model.items.map((i) => i.kind === 'instructions' && i.skipped),
      [true],
    );
  });
});
