// The chat's windowed list: only the items near the view are in the DOM (a resumed 2,000-message session
// used to build over 24,000 nodes). Heights of items drawn once are measured and kept; the others are
// estimated. Spacers above and below stand in for what is not drawn. The list stays at its end while the
// reader is there, and otherwise keeps the item at the top of the view where it is when anything changes
// height (an item redrawn by Pin, a reply growing, estimates replaced by measurements while scrolling up).
// Rows are articles of a feed (aria-posinset / aria-setsize), and the keyboard moves between them: Page Up
// and Page Down anywhere in a row, the arrows, Home and End on a row; a row is drawn as focus reaches it.

/** What the list needs to know about its items. */
export interface VirtualListSource<T> {
  /** A stable key of the item (its id). */
  key(item: T): string;
  /** The item's DOM. */
  render(item: T): HTMLElement;
  /** A guess of the item's height (px, with the gap below it) at a content width of `width` px. */
  estimate(item: T, width: number): number;
}

/** How far past the view, above and below, items are drawn, in views. */
const OVERSCAN = 0.75;
/** Within this many px of the end, the reader is at the end and the list follows new content. */
const END_SLACK = 24;

export class VirtualList<T> {
  private items: T[] = [];
  private readonly heights = new Map<string, number>();
  private readonly index = new Map<string, number>();
  /** tops[i]: the offset of item i from the first item's top; tops[n] is the whole height. */
  private tops: number[] = [0];
  private topsValid = false;
  private readonly rows = new Map<string, HTMLElement>();
  private start = 0;
  private end = 0;
  private readonly above = document.createElement('div');
  private readonly below = document.createElement('div');
  /** The item at the top of the view and how far its top is above the view's top (px). */
  private anchor: { key: string; offset: number } | undefined;
  private following = true;
  /** The scroll position last seen or set: a scroll up from it leaves the end, content growing does not. */
  private lastTop = 0;
  /** The row the keyboard returns to (tabindex 0). */
  private active: string | undefined;
  private laying = false;
  private pending = false;
  private width = 0;
  private readonly resized = new ResizeObserver(() => this.onResize());

  constructor(
    /** The scrolling element that holds the rows. */
    readonly element: HTMLElement,
    private readonly source: VirtualListSource<T>,
  ) {
    this.above.className = 'chat-spacer';
    this.below.className = 'chat-spacer';
    element.classList.add('virtual-list');
    element.addEventListener('scroll', () => this.onScroll(), { passive: true });
    element.addEventListener('keydown', (event) => this.onKey(event));
    element.addEventListener('focusin', (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>('.chat-row');
      if (row?.dataset.key) this.setActive(row.dataset.key);
    });
    this.resized.observe(element);
  }

  /** Whether the view is at the end of the list (new content keeps it there). */
  get atEnd(): boolean {
    return this.following;
  }

  /** Every item (the model, not only what is drawn). */
  get all(): readonly T[] {
    return this.items;
  }

  /** Replaces every item and shows the end. */
  reset(items: T[]): void {
    this.items = items;
    for (const row of this.rows.values()) this.resized.unobserve(row);
    this.rows.clear();
    this.heights.clear();
    this.index.clear();
    this.reindex(0);
    this.start = this.end = 0;
    this.anchor = undefined;
    this.active = undefined;
    this.following = true;
    this.element.replaceChildren(this.above, this.below);
    this.layout();
  }

  /** Adds an item at the end (shown if the reader is at the end). */
  push(item: T): void {
    this.items.push(item);
    this.index.set(this.source.key(item), this.items.length - 1);
    this.topsValid = false;
    this.ensureSpacers();
    for (const row of this.rows.values()) row.setAttribute('aria-setsize', String(this.items.length));
    this.layout();
  }

  /** Adds items before the first (the earlier part of a long conversation); the view stays put. */
  prepend(earlier: T[]): void {
    if (earlier.length === 0) return;
    this.items.unshift(...earlier);
    this.start += earlier.length;
    this.end += earlier.length;
    this.reindex(0);
    for (const row of this.rows.values()) {
      row.setAttribute('aria-setsize', String(this.items.length));
      row.setAttribute('aria-posinset', String((this.index.get(row.dataset.key ?? '') ?? 0) + 1));
    }
    this.layout();
  }

  /** Puts `item` in place of the one with the same key, redrawing it if it is drawn; the view stays put. */
  replace(item: T): void {
    const key = this.source.key(item);
    const i = this.index.get(key);
    if (i === undefined) return;
    this.items[i] = item;
    const row = this.rows.get(key);
    if (row) row.replaceChildren(this.source.render(item));
    this.layout();
  }

  /** The drawn row of `key`'s item, if it is drawn. */
  rowOf(key: string): HTMLElement | undefined {
    return this.rows.get(key);
  }

  /** Measures again after a drawn row changed outside the list (a reply's text growing). */
  changed(): void {
    this.layout();
  }

  /** Goes to the end and follows new content from there. */
  scrollToEnd(): void {
    this.following = true;
    this.layout();
  }

  /** Draws item `i` and scrolls it into view: its top at the view's top ('start'), middle or only if needed. */
  reveal(i: number, block: 'start' | 'center' | 'nearest'): HTMLElement | undefined {
    const item = this.items[i];
    if (!item) return undefined;
    const key = this.source.key(item);
    const view = this.element.clientHeight;
    this.validateTops();
    const height = this.tops[i + 1] - this.tops[i];
    const top = this.contentTop() + this.tops[i] - this.element.scrollTop;
    let offset = top;
    if (block === 'start') offset = 0;
    else if (block === 'center') offset = Math.max(0, (view - height) / 2);
    else if (top < 0 || top + height > view) offset = top < 0 || height > view ? 0 : view - height;
    this.following = false;
    this.anchor = { key, offset: -offset };
    this.layout();
    // Measured now: place it again with its real height.
    if (block !== 'start') {
      const real = this.tops[i + 1] - this.tops[i];
      if (block === 'center') this.anchor = { key, offset: -Math.max(0, (view - real) / 2) };
      else if (offset > 0 && offset + real > view) this.anchor = { key, offset: -Math.max(0, view - real) };
      this.layout();
    }
    return this.rows.get(key);
  }

  /** Moves the keyboard focus to item `i`, drawing it first. */
  focusItem(i: number): void {
    const clamped = Math.max(0, Math.min(this.items.length - 1, i));
    const row = this.reveal(clamped, 'nearest');
    if (!row) return;
    this.setActive(row.dataset.key!);
    row.focus({ preventScroll: true });
  }

  /**
   * A row or the list changed size by itself (a toolkit button drawn, a details opened, the view resized):
   * measured and put back now, drawn in the next frame (drawing here would resize what is observed).
   */
  private onResize(): void {
    if (this.laying) return;
    this.sync();
    const width = this.element.clientWidth;
    if (width !== this.width) {
      this.width = width;
      this.heights.clear();
      this.topsValid = false;
    }
    this.measure();
    this.restore();
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.layout();
    });
  }

  private onScroll(): void {
    if (this.laying) return;
    this.sync();
    this.layout();
  }

  /** Takes a scroll the list did not make (the reader's, or the page's) as the new place to keep. */
  private sync(): void {
    const el = this.element;
    if (Math.abs(el.scrollTop - this.lastTop) <= 0.5) return;
    const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < END_SLACK;
    this.following = atEnd || (this.following && el.scrollTop >= this.lastTop - 1);
    this.lastTop = el.scrollTop;
    this.anchor = this.anchorAt(el.scrollTop);
  }

  private onKey(event: KeyboardEvent): void {
    const target = event.target as HTMLElement;
    const row = target.closest<HTMLElement>('.chat-row');
    if (!row || event.altKey || event.metaKey) return;
    const at = this.index.get(row.dataset.key ?? '');
    if (at === undefined) return;
    const onRow = target === row;
    const move: Record<string, number | undefined> = {
      PageDown: at + 1,
      PageUp: at - 1,
      ArrowDown: onRow ? at + 1 : undefined,
      ArrowUp: onRow ? at - 1 : undefined,
      Home: onRow || event.ctrlKey ? 0 : undefined,
      End: onRow || event.ctrlKey ? this.items.length - 1 : undefined,
    };
    const next = move[event.key];
    if (next === undefined) return;
    event.preventDefault();
    this.focusItem(next);
  }

  private setActive(key: string): void {
    if (this.active === key) return;
    if (this.active) this.rows.get(this.active)?.setAttribute('tabindex', '-1');
    this.active = key;
    this.rows.get(key)?.setAttribute('tabindex', '0');
  }

  /** The item at `scrollTop` and how far its top is above it. */
  private anchorAt(scrollTop: number): { key: string; offset: number } | undefined {
    if (this.items.length === 0) return undefined;
    this.validateTops();
    const y = scrollTop - this.contentTop();
    const i = this.indexAt(y);
    return { key: this.source.key(this.items[i]), offset: y - this.tops[i] };
  }

  /**
   * Measures the drawn rows, puts the view back where the reader had it (the end, or the anchor item at the
   * same place), and draws the items the view now needs; again until nothing moves (a few rounds at most).
   */
  private layout(): void {
    if (this.laying) return;
    this.laying = true;
    this.sync();
    try {
      for (let round = 0; round < 4; round++) {
        const measured = this.measure();
        this.restore();
        const drawn = this.draw();
        if (!measured && !drawn) break;
      }
      this.restore();
    } finally {
      this.laying = false;
    }
  }

  /** Reads the heights of drawn rows; true when one differs from what was known. */
  private measure(): boolean {
    let changed = false;
    for (const [key, row] of this.rows) {
      const h = row.offsetHeight;
      if (h > 0 && this.heights.get(key) !== h) {
        this.heights.set(key, h);
        changed = true;
      }
    }
    if (changed) this.topsValid = false;
    return changed;
  }

  private restore(): void {
    const el = this.element;
    this.validateTops();
    this.above.style.height = `${this.tops[this.start]}px`;
    this.below.style.height = `${this.tops[this.items.length] - this.tops[this.end]}px`;
    let target: number | undefined;
    if (this.following) target = el.scrollHeight - el.clientHeight;
    else {
      const at = this.anchor ? this.index.get(this.anchor.key) : undefined;
      if (this.anchor && at !== undefined) target = this.contentTop() + this.tops[at] + this.anchor.offset;
    }
    // Only a real move is written: writing the same place would stop a smooth scroll under way.
    if (target !== undefined && Math.abs(el.scrollTop - target) > 0.5) el.scrollTop = target;
    this.lastTop = el.scrollTop;
  }

  /** Draws the items from a view above to a view below what shows; true when the drawn set changed. */
  private draw(): boolean {
    const el = this.element;
    const n = this.items.length;
    const view = el.clientHeight || window.innerHeight;
    const y = el.scrollTop - this.contentTop();
    const start = n === 0 ? 0 : this.indexAt(Math.max(0, y - view * OVERSCAN));
    const end = n === 0 ? 0 : Math.min(n, this.indexAt(y + view * (1 + OVERSCAN)) + 1);
    if (start === this.start && end === this.end && this.rows.size === end - start) return false;
    const keep = new Set<string>();
    for (let i = start; i < end; i++) keep.add(this.source.key(this.items[i]));
    for (const [key, row] of this.rows) {
      if (keep.has(key)) continue;
      this.resized.unobserve(row);
      row.remove();
      this.rows.delete(key);
    }
    let previous: Element = this.above;
    for (let i = start; i < end; i++) {
      const key = this.source.key(this.items[i]);
      let row = this.rows.get(key);
      if (!row) {
        row = this.makeRow(this.items[i], key, i);
        this.rows.set(key, row);
        this.resized.observe(row);
      } else {
        row.setAttribute('aria-posinset', String(i + 1));
      }
      if (previous.nextElementSibling !== row) previous.after(row);
      previous = row;
    }
    this.start = start;
    this.end = end;
    return true;
  }

  private makeRow(item: T, key: string, i: number): HTMLElement {
    const row = document.createElement('div');
    row.className = 'chat-row';
    row.dataset.key = key;
    row.setAttribute('role', 'article');
    row.setAttribute('aria-posinset', String(i + 1));
    row.setAttribute('aria-setsize', String(this.items.length));
    row.setAttribute('tabindex', key === (this.active ?? this.lastKey()) ? '0' : '-1');
    row.append(this.source.render(item));
    return row;
  }

  private lastKey(): string | undefined {
    const last = this.items[this.items.length - 1];
    return last === undefined ? undefined : this.source.key(last);
  }

  /** The first item whose bottom is below `y` (content coordinates). */
  private indexAt(y: number): number {
    let lo = 0;
    let hi = this.items.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.tops[mid + 1] <= y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private validateTops(): void {
    if (this.topsValid) return;
    const n = this.items.length;
    const width = this.element.clientWidth || window.innerWidth;
    const tops = new Array<number>(n + 1);
    tops[0] = 0;
    for (let i = 0; i < n; i++) {
      const item = this.items[i];
      tops[i + 1] = tops[i] + (this.heights.get(this.source.key(item)) ?? this.source.estimate(item, width));
    }
    this.tops = tops;
    this.topsValid = true;
  }

  private reindex(from: number): void {
    for (let i = from; i < this.items.length; i++) this.index.set(this.source.key(this.items[i]), i);
    this.topsValid = false;
  }

  /** Where the first item starts inside the scrolled content (the list's top padding; the list is positioned). */
  private contentTop(): number {
    return this.above.offsetTop;
  }

  private ensureSpacers(): void {
    if (!this.above.isConnected) this.element.prepend(this.above);
    if (!this.below.isConnected) this.element.append(this.below);
  }
}
