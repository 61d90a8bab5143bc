// Pinning in the chat (issue 24): a Pin action on each message pins the whole message; text selected
// inside one message gets a small "Pin selection" button beside it. A pinned message shows a pin mark
// instead of the action (pins are removed in the Memory Inspector, where their cost is shown).
import type { ChatItem } from '../../src/protocol/messages';
import { h, icon, lightButton } from '../shared/components';
import { t } from './strings';

type Message = Extract<ChatItem, { kind: 'user' | 'assistant' }>;

/** The role line's pin mark, or its Pin action. */
export function pinControl(item: Message, pin: (itemId: string) => void): HTMLElement {
  if (item.pinned) return h('span', { class: 'pin-mark', title: t('pinnedTitle') }, icon('pinned'), ` ${t('pinned')}`);
  const action = lightButton(t('pin'), {
    icon: 'pin',
    title: t('pinTitle'),
    look: 'link',
    onClick: () => pin(item.id),
  });
  action.classList.add('pin-button');
  return action;
}

/**
 * The floating "Pin selection" button: shown below a selection that lies inside the text of one message,
 * hidden otherwise. It keeps the selection when pressed (no focus change on mousedown).
 */
export function selectionPinButton(pin: (itemId: string, text: string) => void): HTMLElement {
  let current: { itemId: string; text: string } | undefined;
  const floating = lightButton(t('pinSelection'), {
    id: 'pin-selection',
    icon: 'pin',
    title: t('pinSelectionTitle'),
    onClick: () => {
      if (current) pin(current.itemId, current.text);
      hide();
    },
  });
  floating.classList.add('pin-selection');
  floating.addEventListener('mousedown', (event) => event.preventDefault());
  const hide = (): void => {
    current = undefined;
    floating.hidden = true;
  };
  const update = (): void => {
    const selection = document.getSelection();
    const text = selection && selection.rangeCount > 0 ? selection.toString().trim() : '';
    const range = text ? selection?.getRangeAt(0) : undefined;
    const item = range ? messageOf(range.startContainer) : undefined;
    if (!range || !item || item !== messageOf(range.endContainer) || !item.dataset.item) {
      hide();
      return;
    }
    current = { itemId: item.dataset.item, text };
    const box = range.getBoundingClientRect();
    // Set through the CSSOM, which the page's CSP allows (it refuses inline style attributes).
    floating.style.top = `${Math.min(window.innerHeight - 28, box.bottom + 4)}px`;
    floating.style.left = `${Math.max(4, Math.min(window.innerWidth - 140, box.left))}px`;
    floating.hidden = false;
  };
  document.addEventListener('selectionchange', update);
  hide();
  return floating;
}

/** The message whose text holds `node` (not its role line), if any. */
function messageOf(node: Node): HTMLElement | undefined {
  const el = node instanceof HTMLElement ? node : node.parentElement;
  if (!el?.closest('.item-text, .markdown')) return undefined;
  return el.closest<HTMLElement>('[data-kind="user"], [data-kind="assistant"]') ?? undefined;
}
