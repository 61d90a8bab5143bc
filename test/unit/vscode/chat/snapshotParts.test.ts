// A long conversation's snapshot goes to the Chat view in two parts: the newest items first, the earlier
// ones in a later task (after what the caller posts right away, such as the end of "busy").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatItem, ChatSnapshot, HostToChat } from '../../../../src/protocol/messages';
import { postSnapshotInParts, SNAPSHOT_TAIL } from '../../../../src/vscode/chat/snapshotParts';

function snapshot(n: number): ChatSnapshot {
  const items: ChatItem[] = Array.from({ length: n }, (_, i) => ({ kind: 'user', id: `u${i}`, text: `prompt ${i}` }));
  return {
    sessionId: 's',
    items,
    busy: true,
    gauge: { usedTokens: 0, window: 200_000, reservedForOutput: 16_000, marks: [], breakdown: [] },
    modelLabel: 'm',
    trusted: true,
    setupNeeded: false,
  };
}

describe('a snapshot in parts', () => {
  it('a short conversation goes whole, in one message', () => {
    const sent: HostToChat[] = [];
    postSnapshotInParts((m) => sent.push(m), snapshot(SNAPSHOT_TAIL));
    assert.equal(sent.length, 1);
    assert.equal(sent[0].type === 'snapshot' && sent[0].state.items.length, SNAPSHOT_TAIL);
  });

  it('a long one: the newest items now, the earlier ones after what is posted meanwhile', async () => {
    const sent: HostToChat[] = [];
    const state = snapshot(2_000);
    postSnapshotInParts((m) => sent.push(m), state);
    sent.push({ type: 'busy', busy: false });
    assert.deepEqual(
      sent.map((m) => m.type),
      ['snapshot', 'busy'],
    );
    const first = sent[0] as Extract<HostToChat, { type: 'snapshot' }>;
    assert.equal(first.state.items.length, SNAPSHOT_TAIL);
    assert.equal(first.state.items.at(-1)?.id, 'u1999');
    assert.equal(state.items.length, 2_000, 'the model itself keeps every item');
    await new Promise((r) => setTimeout(r, 5));
    const earlier = sent[2] as Extract<HostToChat, { type: 'earlierItems' }>;
    assert.equal(earlier.type, 'earlierItems');
    assert.equal(earlier.before, first.state.items[0].id);
    assert.deepEqual(
      [...earlier.items, ...first.state.items].map((i) => i.id),
      state.items.map((i) => i.id),
    );
  });
});
