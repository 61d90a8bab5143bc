// Checkpoints in the chat (issue 33): on each prompt whose turn is known, Rewind code / conversation / both
// (to before that message, its turn undone; hidden while a turn runs, the file actions disabled with the
// reason when checkpoints are off), and under a turn that changed files, "3 files changed", which opens
// its diff.
import type { ChatItem, RewindWhat } from '../../src/protocol/messages';
import { h, icon, lightButton } from '../shared/components';
import { t, type StringKey } from './strings';

export interface CheckpointHandlers {
  rewind(itemId: string, what: RewindWhat): void;
  openTurnDiff(itemId: string): void;
  /** Why the files cannot be rewound in this workspace, when they cannot. */
  checkpointsOff(): string | undefined;
}

const ACTIONS: Array<{ what: RewindWhat; label: StringKey; title: StringKey; icon: string }> = [
  { what: 'code', label: 'rewindCode', title: 'rewindCodeTitle', icon: 'discard' },
  { what: 'conversation', label: 'rewindConversation', title: 'rewindConversationTitle', icon: 'comment-discussion' },
  { what: 'both', label: 'rewindBoth', title: 'rewindBothTitle', icon: 'history' },
];

/** A prompt's rewind actions, or null while its turn is unknown. */
export function rewindActions(
  item: Extract<ChatItem, { kind: 'user' }>,
  handlers: CheckpointHandlers,
): HTMLElement | null {
  if (item.turn === undefined) return null;
  const off = handlers.checkpointsOff();
  const buttons = ACTIONS.map((a) => {
    // Off: the file actions stay focusable (aria-disabled), so their tooltip saying why can be reached.
    const blocked = a.what !== 'conversation' && off !== undefined;
    const button = lightButton(t(a.label), {
      icon: a.icon,
      title: blocked ? t('rewindOff', off) : t(a.title),
      look: 'link',
      onClick: () => {
        if (!blocked) handlers.rewind(item.id, a.what);
      },
    });
    button.classList.add(`rewind-${a.what}`);
    if (blocked) button.setAttribute('aria-disabled', 'true');
    return button;
  });
  return h(
    'div',
    { class: 'rewind-actions', role: 'group', 'aria-label': t('rewindGroup', String(item.turn)) },
    ...buttons,
  );
}

/** "3 files changed" under a turn: a link to the turn's diff, the files in its tooltip. */
export function changesLine(item: Extract<ChatItem, { kind: 'changes' }>, handlers: CheckpointHandlers): HTMLElement {
  const n = item.files.length;
  const label = n === 1 ? t('filesChanged1') : t('filesChanged', String(n));
  const list = item.files.map((f) => `${f.change === 'added' ? '+' : f.change === 'deleted' ? '−' : '~'} ${f.path}`);
  const open = lightButton(label, {
    icon: 'diff',
    title: t('filesChangedTitle', String(item.turn), list.join(', ')),
    look: 'link',
    onClick: () => handlers.openTurnDiff(item.id),
  });
  open.classList.add('changes-open');
  return h(
    'div',
    { class: 'item item-changes', role: 'note' },
    open,
    item.skipped > 0
      ? h('span', { class: 'changes-skipped' }, icon('warning'), ` ${t('filesSkipped', String(item.skipped))}`)
      : null,
  );
}
