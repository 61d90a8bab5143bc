// A compaction's "not carried" list in the timeline: what the new conversation no longer carries of the
// messages it replaced (paths, commands, errors, the person's own messages), counted in one line that
// opens to the items, each with "Carry it" (asks the host to pin its text so later compactions keep it),
// which reads "Carried" once the live session holds that pin.
import type { TimelineView } from '../../src/protocol/messages';
import { h, icon, lightButton } from '../shared/components';
import { t, tn } from './strings';

type Dropped = NonNullable<Extract<TimelineView, { kind: 'compaction' }>['dropped']>;
type Kind = keyof Dropped;
const KINDS: readonly Kind[] = ['paths', 'commands', 'errors', 'userMessages'];
const COUNT_KEY = {
  paths: 'droppedPaths',
  commands: 'droppedCommands',
  errors: 'droppedErrors',
  userMessages: 'droppedMessages',
} as const;
const KIND_KEY = {
  paths: 'droppedKindPath',
  commands: 'droppedKindCommand',
  errors: 'droppedKindError',
  userMessages: 'droppedKindMessage',
} as const;

export function droppedTotal(d: Dropped | undefined): number {
  return d ? KINDS.reduce((n, k) => n + d[k].length, 0) : 0;
}

/** "not carried: 3 paths, 1 command, 2 of your messages" (the kinds there are). */
export function droppedCounts(d: Dropped): string {
  const parts = KINDS.filter((k) => d[k].length > 0).map((k) => tn(COUNT_KEY[k], d[k].length));
  return t('droppedLine', parts.join(t('listSeparator')));
}

/**
 * The list; `carry` is absent for a session read from disk (nothing live to pin to): no buttons then.
 * `carried` says whether the live session pins a text already: its item says "Carried" instead.
 */
export function renderDropped(
  d: Dropped | undefined,
  carry?: (text: string) => void,
  carried: (text: string) => boolean = () => false,
): HTMLElement | string {
  if (!d) return '';
  if (droppedTotal(d) === 0) return h('p', { class: 'dropped-none', id: 'compaction-dropped' }, t('droppedNone'));
  const list = h('ul', { class: 'dropped-items' });
  for (const kind of KINDS)
    for (const text of d[kind])
      list.append(
        h(
          'li',
          { class: `dropped-item dropped-${kind}` },
          h('span', { class: 'dropped-kind' }, t(KIND_KEY[kind])),
          h('code', { class: 'dropped-text', title: text }, text),
          carry ? carryButton(text, carry, carried(text)) : '',
        ),
      );
  return h(
    'details',
    { class: 'compaction-dropped', id: 'compaction-dropped', open: '' },
    h('summary', {}, droppedCounts(d)),
    list,
  );
}

/** "Carry it", or "Carried" once pinned; a click holds the button until the host's answer redraws it. */
function carryButton(text: string, carry: (text: string) => void, done: boolean): HTMLElement {
  if (done)
    return h('span', { class: 'dropped-carried', title: t('carriedLong') }, icon('check'), h('span', {}, t('carried')));
  const el = lightButton(t('carryIt'), {
    icon: 'pin',
    title: t('carryItLong'),
    onClick: () => {
      el.disabled = true;
      carry(text);
    },
  });
  return el;
}
