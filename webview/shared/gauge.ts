import type { GaugeState } from '../../src/protocol/messages';
import { h } from './components';

export type GaugeLevel = 'low' | 'mid' | 'high' | 'full';

/**
 * 1234567 -> "1,234,567". By hand: the first toLocaleString() of a page loads locale data, which costs a
 * first render tens of milliseconds.
 */
export function groupDigits(n: number): string {
  const s = String(Math.round(n));
  return s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Percent of the window in use, as the status bar rounds it. */
export function usedPercent(gauge: GaugeState): number {
  return Math.min(100, (gauge.usedTokens / Math.max(1, gauge.window)) * 100);
}

/** Which compaction mark the context has passed: the gauge changes colour at each one. */
export function gaugeLevel(gauge: GaugeState): GaugeLevel {
  const pct = (gauge.usedTokens / Math.max(1, gauge.window)) * 100;
  const [micro = 60, notes = 80, full = 100] = gauge.marks;
  return pct >= full ? 'full' : pct >= notes ? 'high' : pct >= micro ? 'mid' : 'low';
}

/** Used / reserved for output / free as one bar, with a tick at each compaction mark. */
export function renderGauge(gauge: GaugeState, compact: boolean, ariaLabel?: string): HTMLElement {
  const usedPct = usedPercent(gauge);
  const reservedPct = Math.min(100 - usedPct, (gauge.reservedForOutput / Math.max(1, gauge.window)) * 100);
  const level = gaugeLevel(gauge);
  const bar = h(
    'div',
    { class: 'gauge-bar', role: 'img', 'aria-label': ariaLabel ?? `Context ${usedPct.toFixed(0)}% used` },
    h('div', { class: `gauge-used gauge-${level}`, 'data-width': usedPct.toFixed(2) }),
    h('div', { class: 'gauge-reserved', 'data-width': reservedPct.toFixed(2) }),
  );
  gauge.marks.forEach((mark, i) => {
    bar.append(
      h('div', {
        class: `gauge-mark gauge-mark-${i}`,
        'data-left': String(Math.min(100, mark)),
        'data-mark': String(mark),
        title: `${mark}%`,
      }),
    );
  });
  // Widths go through the CSSOM, which the CSP allows (inline style attributes would be blocked).
  for (const el of Array.from(bar.querySelectorAll<HTMLElement>('[data-width]')))
    el.style.width = `${el.dataset.width}%`;
  for (const el of Array.from(bar.querySelectorAll<HTMLElement>('[data-left]'))) el.style.left = `${el.dataset.left}%`;
  const label = h(
    'div',
    { class: 'gauge-label' },
    h('span', { class: 'gauge-percent' }, `${usedPct.toFixed(0)}%`),
    ` ${groupDigits(gauge.usedTokens)} / ${groupDigits(gauge.window)} tokens`,
  );
  return h('div', { class: `gauge ${compact ? 'gauge-compact' : ''}`, 'data-level': level }, bar, label);
}
