// The pins list (issue 24): what the person pinned in the live session, each with its token cost, where it
// came from and Remove; the total against the pin budget; and, before a compaction would cut a pin, a
// warning naming how many. Pinned texts are data: shown as text, never as HTML.
import type { PinView, PinsView } from '../../src/protocol/messages';
import { h, icon, lightButton } from '../shared/components';
import { age, num } from './format';
import { appendRows, type Fold } from './paneFill';
import { t, tn, type StringKey } from './strings';

const SOURCE: Record<string, StringKey> = {
  'message:user': 'pinFromUser',
  'message:assistant': 'pinFromReply',
  'selection:user': 'pinFromUserSelection',
  'selection:assistant': 'pinFromReplySelection',
  dropped: 'pinFromDropped',
};

/** From this share of the budget on, the pane says that the next pin may push the oldest out. */
const NEAR_BUDGET = 0.8;
/** Rows drawn with the first frame when the list may reach past it (`fold`); the rest follow after it. */
const FIRST_ROWS = 6;

/**
 * The pane; `remove` is absent for a session read from disk (its pins are shown, not changed). With a
 * `fold`, the rows after the first few are drawn through it (after the first frame, when they are below it).
 */
export function renderPinsPane(view: PinsView, now: number, remove?: (id: string) => void, fold?: Fold): HTMLElement {
  const body = h('div', { id: 'pins-body', class: 'pins-pane' });
  if (view.pins.length === 0) {
    body.append(h('p', { class: 'empty', id: 'pins-empty' }, t('pinsNone')));
    return body;
  }
  body.append(
    h(
      'p',
      { class: 'pins-budget', id: 'pins-budget' },
      tn('pinsBudget', view.pins.length, num(view.tokens), num(view.budget)),
    ),
  );
  if (view.wouldCut > 0)
    body.append(
      h(
        'p',
        { class: 'gauge-warning', id: 'pins-warning', role: 'status' },
        icon('warning'),
        ' ',
        tn('pinsWouldCut', view.wouldCut, num(view.budget)),
      ),
    );
  else if (view.tokens >= view.budget * NEAR_BUDGET)
    body.append(h('p', { class: 'pins-near', id: 'pins-near' }, t('pinsNear', num(view.budget - view.tokens))));
  const list = h('ul', { class: 'pins-list', 'aria-label': t('panePins') });
  appendRows(list, view.pins, (p) => pinRow(p, now, remove), fold, FIRST_ROWS);
  body.append(list);
  return body;
}

function pinRow(p: PinView, now: number, remove?: (id: string) => void): HTMLElement {
  const from = SOURCE[p.source === 'dropped' ? 'dropped' : `${p.source}:${p.role ?? 'user'}`] ?? 'pinFromDropped';
  return h(
    'li',
    { class: `pin-row${p.wouldCut ? ' pin-cut' : ''}`, 'data-id': p.id },
    h(
      'div',
      { class: 'pin-head' },
      icon('pinned'),
      h('span', { class: 'pin-from' }, t(from)),
      h('span', { class: 'pin-meta' }, t('pinMeta', num(p.tokens), age(p.at, now))),
      p.wouldCut ? h('span', { class: 'badge badge-cut' }, t('pinLeftOut')) : null,
      remove
        ? lightButton(t('pinRemove'), {
            id: `unpin-${p.id}`,
            icon: 'close',
            title: t('pinRemoveTitle'),
            look: 'link',
            onClick: () => remove(p.id),
          })
        : null,
    ),
    h('div', { class: 'pin-text' }, p.text),
  );
}
