// Pins from a chat window (issue 24): the view's Pin on a message, or on text selected in one, becomes a
// pin of the open session (recorded in its transcript, carried through every compaction); the messages a
// pin holds carry a mark, also after a resume, where the items are read back under new ids (so a message
// is matched by the id it was pinned under, or by the pinned text inside it).
import * as vscode from 'vscode';
import type { EngramSession, Pin } from '../../core/host/sessions';
import type { ChatItem } from '../../protocol/messages';
import type { ChatItemsModel } from './chatItemsModel';

/** Pins the message `itemId`, or `text` selected in it; a message that is not there pins nothing. */
export async function pinFromChat(
  items: ChatItemsModel,
  session: EngramSession | undefined,
  itemId: string,
  text?: string,
): Promise<void> {
  const item = items.find(itemId);
  if (!session || !item || (item.kind !== 'user' && item.kind !== 'assistant')) return;
  const kind = text === undefined ? 'message' : 'selection';
  try {
    await session.pins.add(text ?? item.text, { kind, role: item.kind, messageId: item.id });
  } catch (e) {
    items.notice('error', vscode.l10n.t('Could not pin it: {0}', e instanceof Error ? e.message : String(e)));
  }
}

function isPinned(item: ChatItem, pins: readonly Pin[]): boolean {
  if (item.kind !== 'user' && item.kind !== 'assistant') return false;
  return pins.some(
    (p) => (p.source.kind !== 'dropped' && p.source.messageId === item.id) || item.text.includes(p.text),
  );
}

/** `list` with each message's pin mark set as `pins` say. */
export function withPinMarks(list: ChatItem[], pins: readonly Pin[]): ChatItem[] {
  return list.map((item) =>
    item.kind === 'user' || item.kind === 'assistant' ? { ...item, pinned: isPinned(item, pins) } : item,
  );
}

/** Redraws the messages whose mark changed (a pin was added or removed). */
export function showPinMarks(items: ChatItemsModel, pins: readonly Pin[]): void {
  const before = items.items;
  withPinMarks(before, pins).forEach((item, i) => {
    const old = before[i];
    if ((old.kind === 'user' || old.kind === 'assistant') && 'pinned' in item && item.pinned !== (old.pinned === true))
      items.update(item);
  });
}
