// The chat's local answers, shown without a model call: `/help` (what can be typed) and `/context` (the
// gauge's breakdown by category, as it was when asked).
import type { GaugeState } from '../../src/protocol/messages';
import { h } from '../shared/components';
import { searchEngineText } from '../shared/searchEngine';
import { groupDigits } from '../shared/gauge';
import { t, tOr, type StringKey } from './strings';

const HELP: Array<[string, StringKey]> = [
  ['/help', 'helpHelp'],
  ['/new', 'helpNew'],
  ['/compact [focus]', 'helpCompact'],
  ['/remember <text>', 'helpRemember'],
  ['/memory', 'helpMemory'],
  ['/context', 'helpContext'],
  ['@file', 'helpFile'],
];

export function renderHelp(): HTMLElement {
  return h(
    'div',
    { class: 'item item-help', role: 'note' },
    h('div', { class: 'item-role' }, t('helpTitle')),
    h(
      'dl',
      { class: 'help-list' },
      ...HELP.flatMap(([command, key]) => [h('dt', {}, h('code', {}, command)), h('dd', {}, t(key))]),
    ),
    h('p', {}, t('helpButtons')),
    h('p', { class: 'help-note' }, t('helpIntro')),
  );
}

export function renderContext(gauge: GaugeState): HTMLElement {
  const used = gauge.usedTokens;
  const free = Math.max(0, gauge.window - used - gauge.reservedForOutput);
  const pct = (n: number, of: number) => `${of > 0 ? ((n / of) * 100).toFixed(n / of < 0.1 && n > 0 ? 1 : 0) : '0'}%`;
  const rows = gauge.breakdown.map((part) =>
    h(
      'tr',
      {},
      h('td', {}, tOr(`cat_${part.category}`, part.category)),
      h('td', { class: 'num' }, groupDigits(part.tokens)),
      h('td', { class: 'num' }, pct(part.tokens, used)),
    ),
  );
  return h(
    'div',
    { class: 'item item-context', role: 'note' },
    h(
      'div',
      { class: 'context-title' },
      t(
        'contextTitle',
        groupDigits(used),
        groupDigits(gauge.window),
        pct(used, gauge.window).slice(0, -1),
        groupDigits(gauge.reservedForOutput),
        groupDigits(free),
      ),
    ),
    h(
      'table',
      { class: 'context-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, t('category')),
          h('th', { class: 'num' }, t('tokensHeader')),
          h('th', { class: 'num' }, t('share')),
        ),
      ),
      h('tbody', {}, ...rows),
    ),
    h('p', { class: 'help-note' }, t('contextMarks', gauge.marks.map((m) => `${m}%`).join(' / '))),
    gauge.search ? h('p', { class: 'help-note context-search' }, searchEngineText(gauge.search, t)) : '',
  );
}
