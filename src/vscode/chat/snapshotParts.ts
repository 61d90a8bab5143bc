// A long conversation goes to the Chat view in two messages: the snapshot with its newest items, which the
// view draws at once, then the earlier items, which it puts above them. A resumed 2,000-message session is
// megabytes of items; sent whole, the view waited for all of them before it could show the end.
import type { ChatSnapshot, HostToChat } from '../../protocol/messages';

/** How many of the newest items the snapshot itself carries. */
export const SNAPSHOT_TAIL = 150;

/**
 * Posts `state`: the snapshot with its last SNAPSHOT_TAIL items now, and the earlier items in a task of
 * their own, so that what the caller posts right after (the end of "busy") reaches the view first. The
 * view takes the earlier items only above the first item it was sent (`before`), not after a newer snapshot.
 */
export function postSnapshotInParts(post: (message: HostToChat) => void, state: ChatSnapshot): void {
  const cut = state.items.length - SNAPSHOT_TAIL;
  if (cut <= 0) {
    post({ type: 'snapshot', state });
    return;
  }
  const earlier = state.items.slice(0, cut);
  post({ type: 'snapshot', state: { ...state, items: state.items.slice(cut) } });
  const before = state.items[cut].id;
  setTimeout(() => post({ type: 'earlierItems', before, items: earlier }), 0);
}
