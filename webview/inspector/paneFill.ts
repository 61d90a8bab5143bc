// Draws the inspector's sections in order. On the first snapshot only what is in view is built at once
// (a 100 KB snapshot builds thousands of nodes, most of them below the fold): the sections up to the first
// one that reaches past the bottom of the viewport, and of that one, when it is a list (the pins, the notes
// sections), only its first rows. The rest follows once the first frame is shown, in tasks of about 12 ms,
// so the page answers input meanwhile. `#app` stays aria-busy until everything is there; a click in the
// pane list or a pane to reveal draws it all at once. Later snapshots draw everything at once, so the
// page keeps its scroll position.
import { h } from '../shared/components';

/** Lets a section's body leave what may lie below the fold (a long list's later rows) for later. */
export interface Fold {
  /** Runs `draw` now, or after the first frame when the section already reaches past the viewport. */
  later(draw: () => void): void;
}

/**
 * Appends a row per item to `parent`: all of them now, or with a `fold` the first `first` now and the
 * rest through it (after the first frame, when the section reaches past the viewport without them).
 */
export function appendRows<T>(
  parent: HTMLElement,
  items: readonly T[],
  row: (item: T) => Node,
  fold: Fold | undefined,
  first: number,
): void {
  const now = fold ? items.slice(0, first) : items;
  parent.append(...now.map(row));
  if (now.length < items.length) fold?.later(() => parent.append(...items.slice(now.length).map(row)));
}

/** One section: its id and heading, its body, and what fills it once it is in the page. */
export interface Pane {
  id: string;
  title: string;
  body(fold: Fold): HTMLElement;
  /** Runs after the section is in the document (the memory tree and the timeline fill their slot). */
  after?(): void;
}

/** What is still to draw, in document order (whole sections, or the rest of one), and for which drawing. */
let pending: Array<() => void> = [];
let drawing = 0;
let target: HTMLElement | undefined;

/** How long one later task draws before it yields to input (a section that takes longer is still drawn whole). */
const TASK_MS = 12;
/** Fallback when no frame comes (a hidden webview gets no animation frames). */
const NO_FRAME_MS = 100;
/** A body drawn whole: `later` runs at once. */
const NOW: Fold = { later: (draw) => draw() };

/**
 * Appends the sections to `app`. With `progressive`, stops at the first one that reaches past the bottom
 * of the viewport (what it left for later included) and draws the rest after the first frame.
 */
export function drawPanes(app: HTMLElement, panes: readonly Pane[], progressive: boolean): void {
  const run = ++drawing;
  target = app;
  pending = [];
  let next = 0;
  while (next < panes.length) {
    const left: Array<() => void> = [];
    const section = drawOne(app, panes[next++], progressive ? { later: (draw) => left.push(draw) } : NOW);
    if (!progressive) continue;
    // One layout read per section (two for one that left rows out): cheap while the page is short.
    const beyond = () => section.getBoundingClientRect().bottom >= window.innerHeight;
    if (left.length > 0 && beyond()) {
      pending.push(...left);
      break;
    }
    for (const draw of left) draw();
    if (next < panes.length && beyond()) break;
  }
  for (const pane of panes.slice(next)) pending.push(() => drawOne(app, pane, NOW));
  if (pending.length === 0) {
    app.setAttribute('aria-busy', 'false');
    return;
  }
  app.setAttribute('aria-busy', 'true');
  let started = false;
  const step = () => {
    if (run !== drawing) return;
    // Steps until a slice of a frame is spent (at least one), then the next task.
    const until = performance.now() + TASK_MS;
    do pending.shift()!();
    while (pending.length > 0 && performance.now() < until);
    if (pending.length > 0) setTimeout(step, 0);
    else app.setAttribute('aria-busy', 'false');
  };
  const start = () => {
    if (started) return;
    started = true;
    step();
  };
  requestAnimationFrame(() => setTimeout(start, 0));
  setTimeout(start, NO_FRAME_MS);
}

/** Draws what is still pending now: before scrolling to a section or moving focus into one. */
export function drawAllPanes(): void {
  if (!target || pending.length === 0) return;
  while (pending.length > 0) pending.shift()!();
  target.setAttribute('aria-busy', 'false');
}

function drawOne(app: HTMLElement, pane: Pane, fold: Fold): HTMLElement {
  const el = h(
    'section',
    { id: pane.id, class: 'inspector-section', 'aria-labelledby': `${pane.id}-title`, tabindex: '-1' },
    h('h2', { id: `${pane.id}-title` }, pane.title),
    pane.body(fold),
  );
  app.append(el);
  pane.after?.();
  return el;
}
