import type { GaugeState } from '../../src/protocol/messages';
import { h } from './components';

/** Used / reserved for output / free as one bar, with a tick at each compaction mark. */
export function renderGauge(gauge: GaugeState, compact: boolean): HTMLElement {
  const window = Math.max(1, gauge.window);
  const usedPct = Math.min(100, (gauge.usedTokens / window) * 100);
  const reservedPct = Math.min(100 - usedPct, (gauge.reservedForOutput / window) * 100);
  const level = usedPct >= (gauge.marks[1] ?? 80) ? 'high' : usedPct >= (gauge.marks[0] ?? 60) ? 'mid' : 'low';
  const bar = h('div', { class: 'gauge-bar', role: 'img', 'aria-label': `Context ${usedPct.toFixed(0)}% used` },
    h('div', { class: `gauge-used gauge-${level}`, 'data-width': usedPct.toFixed(2) }),
    h('div', { class: 'gauge-reserved', 'data-width': reservedPct.toFixed(2) }));
  for (const mark of gauge.marks) {
    bar.append(h('div', { class: 'gauge-mark', 'data-left': String(mark), title: `${mark}%` }));
  }
  // Widths go through the CSSOM, which the CSP allows (inline style attributes would be blocked).
  for (const el of Array.from(bar.querySelectorAll<HTMLElement>('[data-width]'))) el.style.width = `${el.dataset.width}%`;
  for (const el of Array.from(bar.querySelectorAll<HTMLElement>('[data-left]'))) el.style.left = `${el.dataset.left}%`;
  const label = h('div', { class: 'gauge-label' },
    h('span', { class: 'gauge-percent' }, `${usedPct.toFixed(0)}%`),
    ` ${gauge.usedTokens.toLocaleString('en-US')} / ${gauge.window.toLocaleString('en-US')} tokens`);
  return h('div', { class: `gauge ${compact ? 'gauge-compact' : ''}`, 'data-level': level }, bar, label);
}
