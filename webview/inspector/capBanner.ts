// The memory pane's cap banner, shown from 80% of either MEMORY.md cap (and past it): the figures
// ("168 of 200 lines, 21.3 of 25 KB") and two ways back under the mark, pruning the least used entries
// or merging entries of one type (the host asks which, in VS Code's quick pick). Also the tree's use
// count ("used 7×"). Its words are in capStrings.ts.
import type { EntryGroup, IndexCapView, MemoryEntryView } from '../../src/protocol/messages';
import { button, h, icon } from '../shared/components';
import { capText, type CapKey } from './capStrings';
import { dateTime } from './format';

function c(key: CapKey, ...args: Array<string | number>): string {
  return capText(document.documentElement.lang, key, ...args);
}

/** `21.3` for 21,300 bytes, `25` for 25,000 (1 KB = 1,000 bytes, as the cap is counted). */
function kb(bytes: number): string {
  const v = bytes / 1000;
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

export interface CapBannerActions {
  pruneLeastUsed(group: EntryGroup): void;
  merge(group: EntryGroup): void;
}

/**
 * The banner of the private (`group` private) or the team index, or null while it is under the warning
 * mark. The team's elements have ids with a `team-` prefix. Merge is left out where only pruning is allowed.
 */
export function renderCapBanner(
  cap: IndexCapView | undefined,
  readOnly: boolean,
  actions: CapBannerActions,
  group: EntryGroup = 'private',
): HTMLElement | null {
  if (!cap || cap.level === 'ok') return null;
  const over = cap.level === 'over';
  const id = (name: string) => (group === 'team' ? `team-${name}` : name);
  const title: CapKey =
    group === 'team' ? (over ? 'teamCapTitleOver' : 'teamCapTitleNear') : over ? 'capTitleOver' : 'capTitleNear';
  return h(
    'div',
    {
      class: `cap-banner cap-${cap.level}`,
      id: id('cap-banner'),
      role: 'status',
      'data-level': cap.level,
      'data-group': group,
    },
    icon(over ? 'error' : 'warning'),
    h(
      'div',
      { class: 'cap-text' },
      h('strong', { class: 'cap-title' }, c(title)),
      ' ',
      h(
        'span',
        { class: 'cap-figures', id: id('cap-figures') },
        c('capFigures', cap.lines, cap.maxLines, kb(cap.bytes), kb(cap.maxBytes)),
      ),
      h('div', { class: 'cap-hint' }, over ? c('capOverHint') : c('capNearHint', cap.warnPercent)),
    ),
    h(
      'div',
      { class: 'cap-actions' },
      button(c('capPrune'), { icon: 'trash', id: id('cap-prune'), onClick: () => actions.pruneLeastUsed(group) }),
      readOnly
        ? null
        : button(c('capMerge'), {
            appearance: 'secondary',
            icon: 'merge',
            id: id('cap-merge'),
            onClick: () => actions.merge(group),
          }),
    ),
  );
}

/** "used 7×" for a tree row, with its last use as the tooltip; null where nothing is counted. */
export function usesBadge(e: MemoryEntryView): HTMLElement | null {
  if (e.uses === undefined) return null;
  const el = document.createElement('span');
  el.className = 'entry-uses';
  el.textContent = e.uses > 0 ? c('usedTimes', e.uses) : c('neverUsed');
  const last = e.lastUsed ? Date.parse(e.lastUsed) : NaN;
  el.title = e.uses > 0 && Number.isFinite(last) ? c('usedTitle', e.uses, dateTime(last)) : c('usedNeverTitle');
  return el;
}

/** The use count in words, for a row's screen-reader label and the details panel. */
export function usesText(e: MemoryEntryView): string | undefined {
  if (e.uses === undefined) return undefined;
  return e.uses > 0 ? c('usedTimes', e.uses) : c('neverUsed');
}
