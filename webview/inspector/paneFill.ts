// Draws the inspector's sections in order. On the first snapshot only the sections in view are built at
// once (a 100 KB snapshot builds thousands of nodes, most of them below the fold); the rest follow once
// the first frame is shown, in tasks of about 12 ms, so the page answers input meanwhile. `#app` stays
// aria-busy until every section is there; a click in the pane list or a pane to reveal draws them all. Later snapshots draw everything at once, so the page keeps
// its scroll position.
import { h } from '../shared/components';

/** One section: its id and heading, its body, and what fills it once it is in the page. */
export interface Pane {
  id: string;
  title: string;
  body(): HTMLElement;
  /** Runs after the section is in the document (the memory tree and the timeline fill their slot). */
  after?(): void;
}

/** Sections still to draw, in document order, and the drawing they belong to. */
let pending: Pane[] = [];
let drawing = 0;
let target: HTMLElement | undefined;

/** How long one later task draws before it yields to input (a section that takes longer is still drawn whole). */
const TASK_MS = 12;
/** Fallback when no frame comes (a hidden webview gets no animation frames). */
const NO_FRAME_MS = 100;

/**
 * Appends the sections to `app`. With `progressive`, stops after the first one that reaches past the
 * bottom of the viewport and draws the rest after the first frame.
 */
export function drawPanes(app: HTMLElement, panes: readonly Pane[], progressive: boolean): void {
  const run = ++drawing;
  target = app;
  pending = panes.slice();
  while (pending.length > 0) {
    const last = drawOne(app, pending.shift()!);
    // One layout read per section: cheap while the page is short, and it stops at the fold.
    if (progressive && pending.length > 0 && last.getBoundingClientRect().bottom >= window.innerHeight) break;
  }
  if (pending.length === 0) {
    app.setAttribute('aria-busy', 'false');
    return;
  }
  app.setAttribute('aria-busy', 'true');
  let started = false;
  const step = () => {
    if (run !== drawing) return;
    // Sections until a slice of a frame is spent (at least one), then the next task.
    const until = performance.now() + TASK_MS;
    do drawOne(app, pending.shift()!);
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
  while (pending.length > 0) drawOne(target, pending.shift()!);
  target.setAttribute('aria-busy', 'false');
}

function drawOne(app: HTMLElement, pane: Pane): HTMLElement {
  const el = h(
    'section',
    { id: pane.id, class: 'inspector-section', 'aria-labelledby': `${pane.id}-title`, tabindex: '-1' },
    h('h2', { id: `${pane.id}-title` }, pane.title),
    pane.body(),
  );
  app.append(el);
  pane.after?.();
  return el;
}
