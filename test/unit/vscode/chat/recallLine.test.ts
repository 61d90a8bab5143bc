// The chat's recall line outside VS Code: the recalled memories under the prompt with their words, and
// Not relevant and its Undo on one of them; the session's recall notice is known for what it is.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRecallNotice, memoryNotice } from '../../../../src/core/session/sessionNotices';
import type { ChatItem, HostToChat } from '../../../../src/protocol/messages';
import { recalledMemories } from '../../../../src/vscode/chat/chatItems';
import { ChatItemsModel } from '../../../../src/vscode/chat/chatItemsModel';

describe('the recall line', () => {
  it('lists the recalled memories under the prompt, and marks one not relevant and back', () => {
    const posted: HostToChat[] = [];
    const model = new ChatItemsModel((m) => posted.push(m));
    model.user('How does a tag get deployed?');
    const event = {
      type: 'memoryRecalled' as const,
      files: ['project_deploy.md', 'team/x.md'],
      matched: [{ file: 'project_deploy.md', title: 'Deploy process', words: ['tag', 'deployed'] }],
    };
    model.recall(recalledMemories(event));
    model.recall([]);
    const item = model.items[1] as Extract<ChatItem, { kind: 'recall' }>;
    assert.equal(model.items.length, 2, 'no line for nothing recalled');
    assert.deepEqual(item.files, [
      { file: 'project_deploy.md', title: 'Deploy process', words: ['tag', 'deployed'] },
      { file: 'team/x.md', title: 'team/x.md', words: [] },
    ]);
    assert.deepEqual(model.markRecall(item.id, 'project_deploy.md', true), ['tag', 'deployed'], 'the words to record');
    assert.equal((model.find(item.id) as typeof item).files[0].notRelevant, true);
    assert.equal(posted.at(-1)?.type, 'item', 'the view redraws the line');
    model.markRecall(item.id, 'project_deploy.md', false);
    assert.equal((model.find(item.id) as typeof item).files[0].notRelevant, false);
    assert.equal(model.markRecall(item.id, 'other.md', true), undefined);
    assert.equal(model.markRecall('nope', 'project_deploy.md', true), undefined);
  });

  it('knows the session notice it stands in for', () => {
    for (const files of [['a.md'], ['a.md', 'b.md']]) {
      const notice = memoryNotice({ type: 'memoryRecalled', files });
      assert.ok(notice && isRecallNotice(notice.words.template));
    }
    assert.equal(isRecallNotice('Memory saved: {0}'), false);
  });
});
