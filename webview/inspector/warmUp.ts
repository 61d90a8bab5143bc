// What the inspector does while the host builds its first snapshot: the first render of a fresh webview
// otherwise pays for work that does not depend on the snapshot at all. The Markdown renderer and the
// toolkit's button compile on first use; and the first text laid out in each font, weight and size loads
// that font and sets up its shaping, which on a 2-core machine was a third of the first render. So a
// sample of the panes on the first screen (a section heading, the gauge, a pin) is built and laid out once,
// out of sight (`.warm-up`: absolutely placed, invisible, hidden from screen readers), and taken out again
// in the same task, so nothing of it is ever painted, focused or read.
import { h } from '../shared/components';
import { renderMarkdown } from '../shared/markdown';
import { renderGaugePane } from './gaugePane';
import { renderPinsPane } from './pinsPane';

/**
 * Runs once, right after the page says it is ready (the host starts on the snapshot meanwhile). `buttons`
 * are the header's toolkit buttons, made once and kept (main.ts): laid out here, they are set up before
 * the first render moves them into the header. `drawn` says whether a snapshot is on screen already; the
 * second pass must not take the buttons out of the header then (and is pointless).
 */
export function warmUp(drawn: () => boolean, buttons: readonly HTMLElement[]): void {
  const now = Date.now();
  const sample = h(
    'div',
    { class: 'warm-up', 'aria-hidden': 'true' },
    h(
      'header',
      { class: 'inspector-header' },
      h('h1', {}, 'Memory'),
      h('span', { class: 'source' }, 'Source 0123456789', h('span', { class: 'data-folder' }, '/folder')),
    ),
    h('nav', { class: 'pane-nav' }, h('a', { href: '#warm-up' }, 'Context')),
    h(
      'section',
      { class: 'inspector-section' },
      h('h2', {}, 'Context'),
      renderGaugePane({
        usedTokens: 120_000,
        window: 200_000,
        reservedForOutput: 16_000,
        marks: [60, 80, 100],
        breakdown: [
          { category: 'system', tokens: 2_000 },
          { category: 'messages', tokens: 118_000 },
        ],
      }),
    ),
    h(
      'section',
      { class: 'inspector-section' },
      renderPinsPane(
        {
          pins: [
            { id: 'warm-up', text: 'A pinned fact 0123456789', tokens: 10, source: 'message', at: now, wouldCut: true },
          ],
          tokens: 10,
          carriedTokens: 0,
          budget: 2_000,
          wouldCut: 1,
        },
        now,
        () => undefined,
      ),
    ),
    renderMarkdown('*warm* **up** [up](#x)\n\n- a `b`'),
    ...buttons,
  );
  layOut(sample);
  // The toolkit sets its design tokens (the button's font among them) in its first animation frame, after
  // the pass above: the header's buttons would load that font in the first render.
  requestAnimationFrame(() => {
    if (!drawn()) layOut(h('div', { class: 'warm-up', 'aria-hidden': 'true' }, ...buttons));
  });
}

/** Puts the sample in the page, lays it out and takes it out: the layout loads the fonts and shapes the text. */
function layOut(sample: HTMLElement): void {
  document.body.append(sample);
  void sample.getBoundingClientRect();
  sample.remove();
}
