// The context gauge pane: used / reserved for output / free on one bar, a labelled mark at each
// compaction threshold, a colour per level, and what the context holds by category. The numbers are the
// host's (ChatSession.gauge()), the same the status bar and the Chat view show.
import type { GaugeState } from '../../src/protocol/messages';
import { renderCacheCost } from '../shared/cacheCost';
import { h } from '../shared/components';
import { searchEngineText } from '../shared/searchEngine';
import { gaugeLevel, renderGauge, usedPercent } from '../shared/gauge';
import { num } from './format';
import { t, tOr, type StringKey } from './strings';

const MARK_NAMES: StringKey[] = ['markMicro', 'markNotes', 'markFull'];
const LEVEL_TEXT: Record<string, StringKey> = {
  low: 'levelLow',
  mid: 'levelMid',
  high: 'levelHigh',
  full: 'levelFull',
};

export function renderGaugePane(gauge: GaugeState | undefined): HTMLElement {
  const body = h('div', { id: 'gauge-body', class: 'gauge-pane' });
  if (!gauge) {
    body.append(h('p', { class: 'empty' }, t('gaugeNone')));
    return body;
  }
  const pct = usedPercent(gauge);
  const level = gaugeLevel(gauge);
  const reserved = Math.min(gauge.reservedForOutput, Math.max(0, gauge.window - gauge.usedTokens));
  const free = Math.max(0, gauge.window - gauge.usedTokens - reserved);
  const meter = h(
    'div',
    {
      class: 'gauge-meter',
      role: 'meter',
      'aria-valuemin': '0',
      'aria-valuemax': '100',
      'aria-valuenow': pct.toFixed(0),
      'aria-valuetext': `${t('gaugeLabel', pct.toFixed(0))}, ${t(LEVEL_TEXT[level])}`,
      'aria-label': t('paneContext'),
    },
    renderGauge(gauge, false, t('gaugeLabel', pct.toFixed(0))),
  );
  const marks = h('div', { class: 'gauge-mark-labels', 'aria-hidden': 'true' });
  gauge.marks.forEach((mark, i) => {
    const label = h(
      'span',
      {
        class: `gauge-mark-label gauge-mark-${i}`,
        'data-left': String(Math.min(100, mark)),
        title: t('markTitle', mark, t(MARK_NAMES[i] ?? 'markFull')),
      },
      `${mark}%`,
    );
    label.style.left = `${Math.min(100, mark)}%`;
    marks.append(label);
  });
  body.append(
    h(
      'div',
      { class: 'gauge-headline' },
      h('span', { id: 'gauge-percent', class: `gauge-big gauge-text-${level}` }, `${pct.toFixed(0)}%`),
      h('span', { class: 'gauge-level' }, t(LEVEL_TEXT[level])),
    ),
    meter,
    marks,
    h(
      'p',
      { class: 'gauge-summary', id: 'gauge-summary' },
      t('gaugeSummary', num(gauge.usedTokens), num(reserved), num(free), num(gauge.window)),
    ),
    gauge.cache ? renderCacheCost(gauge.cache, 'inspector-cache-cost') : '',
    reserveWarning(gauge, reserved, pct),
    h(
      'p',
      { class: 'gauge-legend' },
      swatch(`gauge-used gauge-${level}`),
      t('legendUsed'),
      swatch('gauge-reserved'),
      t('legendReserved'),
      swatch('gauge-free'),
      t('legendFree'),
      ...gauge.marks.flatMap((mark, i) => [
        swatch(`gauge-mark-swatch gauge-mark-${i}`),
        t('markTitle', mark, t(MARK_NAMES[i] ?? 'markFull')),
      ]),
    ),
    breakdownTable(gauge),
    gauge.search ? h('p', { class: 'gauge-search', id: 'gauge-search' }, searchEngineText(gauge.search, t)) : '',
  );
  return body;
}

/**
 * "0 free" alone does not say why: the conversation has grown into the room kept for the answer, which
 * now cannot be as long as `maxOutputTokens` allows until a compaction frees space.
 */
function reserveWarning(gauge: GaugeState, reserved: number, pct: number): HTMLElement | string {
  if (reserved >= gauge.reservedForOutput) return '';
  const next = gauge.marks.find((m) => m > pct) ?? gauge.marks[gauge.marks.length - 1] ?? 100;
  return h(
    'p',
    { class: 'gauge-warning', id: 'gauge-warning', role: 'status' },
    h('span', { class: 'codicon codicon-warning', 'aria-hidden': 'true' }),
    ' ',
    t('reserveShrunk', num(reserved), num(gauge.reservedForOutput), next),
  );
}

function breakdownTable(gauge: GaugeState): HTMLElement | string {
  const rows = gauge.breakdown.filter((b) => b.tokens > 0);
  if (rows.length === 0) return '';
  const total = Math.max(
    1,
    rows.reduce((s, b) => s + b.tokens, 0),
  );
  const table = h(
    'table',
    { class: 'breakdown', 'aria-label': t('breakdown') },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, t('category')),
        h('th', { scope: 'col', class: 'num' }, t('tokens')),
        h('th', { scope: 'col', class: 'num' }, t('share')),
        h('th', { 'aria-hidden': 'true' }),
      ),
    ),
  );
  const tbody = h('tbody');
  for (const b of rows) {
    const share = (b.tokens / total) * 100;
    const bar = h('span', { class: 'share-bar' });
    bar.style.width = `${Math.max(1, share).toFixed(1)}%`;
    tbody.append(
      h(
        'tr',
        { 'data-category': b.category },
        h('th', { scope: 'row' }, tOr(`cat_${b.category}`, b.category)),
        h('td', { class: 'num' }, num(b.tokens)),
        h('td', { class: 'num' }, `${share.toFixed(1)}%`),
        h('td', { class: 'share-cell', 'aria-hidden': 'true' }, bar),
      ),
    );
  }
  table.append(tbody);
  return table;
}

function swatch(className: string): HTMLElement {
  return h('span', { class: `swatch ${className}`, 'aria-hidden': 'true' });
}
