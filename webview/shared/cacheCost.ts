// The cost line: whether the prompt cache is warm (counting down each second from what the host sent)
// or cold, and what the next message costs warm and cold, in tokens and dollars, with the breakdown in
// the tooltip. The chat header and the inspector's gauge pane both render it from GaugeState.cache, which
// the session computes in one place (core/session/promptCacheTracker.ts), with the expiry as an instant.
import type { CacheCost, CacheSplit } from '../../src/protocol/messages';
import { h, icon } from './components';
import { costStrings } from './cacheCostStrings';
import { groupDigits } from './gauge';

const { t } = costStrings;

interface Live {
  el: HTMLElement;
  cost: CacheCost;
  deadline: number;
}

/**
 * Every cost line on the page, ticked at the instants its seconds change: counted from the host's expiry
 * time, so the chat and the inspector (two webviews, two timers) turn to the next second together.
 */
const live = new Set<Live>();
let ticker: ReturnType<typeof setTimeout> | undefined;

export function renderCacheCost(cost: CacheCost, id: string): HTMLElement {
  costStrings.setLanguage(document.documentElement.lang);
  const el = h('div', { class: 'cache-cost', id, role: 'group', 'aria-label': t('ariaCost') });
  // The host's absolute expiry: the chat and the inspector count down to the same instant.
  const entry: Live = { el, cost, deadline: cost.expiresAt ?? Date.now() + cost.leftMs };
  fill(entry);
  if (cost.warm) {
    live.add(entry);
    if (ticker !== undefined) clearTimeout(ticker);
    ticker = undefined;
    schedule();
  }
  return el;
}

function schedule(): void {
  if (ticker !== undefined || live.size === 0) return;
  const now = Date.now();
  let delay = 1000;
  // The shown second (rounded up) changes when the time left reaches a whole second.
  for (const entry of live) {
    const left = entry.deadline - now;
    if (left > 0) delay = Math.min(delay, ((left - 1) % 1000) + 1);
  }
  // A few milliseconds past the edge, so the line reads the new second.
  ticker = setTimeout(tick, delay + 5);
}

function tick(): void {
  ticker = undefined;
  for (const entry of live) {
    if (!entry.el.isConnected || !entry.cost.warm) live.delete(entry);
    else fill(entry);
  }
  schedule();
}

function fill(entry: Live): void {
  const left = Math.max(0, entry.deadline - Date.now());
  // At zero the cache has expired: the line turns cold without waiting for the host.
  if (entry.cost.warm && left === 0) entry.cost = { ...entry.cost, warm: false, leftMs: 0 };
  const { cost, el } = entry;
  el.dataset.warm = String(cost.warm);
  // The instant it counts down to, the same in every view that shows this line.
  if (cost.warm) el.dataset.expiresAt = String(entry.deadline);
  else delete el.dataset.expiresAt;
  const ttl = t(cost.ttl === '1h' ? 'ttl1h' : 'ttl5m');
  el.title = [
    cost.warm ? t('tipState', ttl) : t('tipStateCold', ttl),
    t(
      'tipWarm',
      groupDigits(cost.ifWarm.read),
      groupDigits(cost.ifWarm.write),
      groupDigits(cost.ifWarm.input),
      usd(cost.ifWarm),
    ),
    t('tipCold', groupDigits(cost.ifCold.write), groupDigits(cost.ifCold.input), usd(cost.ifCold)),
    t('tipNote'),
    ...(cost.localCountBy ? [t('tipLocalCount', cost.localCountBy)] : []),
  ].join('\n');
  el.replaceChildren(
    h(
      'span',
      { class: 'cache-state' },
      icon(cost.warm ? 'flame' : 'circle-slash'),
      cost.warm ? t('cacheWarm', clock(left)) : t('cacheCold'),
    ),
    h(
      'span',
      { class: 'cache-next' },
      h('span', { class: 'cache-label' }, t('nextMessage')),
      h(
        'span',
        { class: `cache-if ${cost.warm ? 'cache-applies' : ''}` },
        t('ifWarm', short(total(cost.ifWarm)), usd(cost.ifWarm)),
      ),
      ' · ',
      h(
        'span',
        { class: `cache-if ${cost.warm ? '' : 'cache-applies'}` },
        t('ifCold', short(total(cost.ifCold)), usd(cost.ifCold)),
      ),
    ),
  );
  if (cost.free) showFree(el, cost);
}

/** The offline demo costs nothing: tokens only, and the line and its tooltip say why there is no price. */
function showFree(el: HTMLElement, cost: CacheCost): void {
  const [warm, cold] = el.querySelectorAll('.cache-if');
  warm.textContent = t('ifWarm', short(total(cost.ifWarm)), '').trimEnd();
  cold.textContent = t('ifCold', short(total(cost.ifCold)), '').trimEnd();
  el.querySelector('.cache-next')?.append(' · ', h('span', { class: 'cache-free' }, t('freeDemo')));
  const { ifWarm: w, ifCold: c } = cost;
  el.title = [
    el.title.split('\n')[0],
    t('tipWarm', groupDigits(w.read), groupDigits(w.write), groupDigits(w.input), t('free')),
    t('tipCold', groupDigits(c.write), groupDigits(c.input), t('free')),
    t('tipFree'),
  ].join('\n');
}

function total(s: CacheSplit): number {
  return s.read + s.write + s.input;
}

/** 3:12, or 59:05 for an hour's cache. */
function clock(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** 850, 12.3K, 98K, 1.2M. */
function short(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1e6) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}K`;
  return `${(n / 1e6).toFixed(1).replace(/\.0$/, '')}M`;
}

/** $0.31, $0.012, $0.00062 (two significant digits below a cent); "price unknown" without a price. */
function usd(s: CacheSplit): string {
  if (s.usd === undefined) return t('priceUnknown');
  if (s.usd >= 0.1) return `$${s.usd.toFixed(2)}`;
  if (s.usd >= 0.01) return `$${s.usd.toFixed(3)}`;
  if (s.usd >= 0.0001) return `$${Number(s.usd.toPrecision(2))}`;
  return s.usd > 0 ? '<$0.0001' : '$0';
}
