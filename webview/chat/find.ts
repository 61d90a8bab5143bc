// Find in the chat (Ctrl+F, Cmd+F on a Mac): the list draws only what is near the view, so the browser's
// own find cannot see the rest. This box searches every item's text in the model, draws the item of a match
// and brings it into view, and marks the words found with a CSS highlight (no DOM changes). Enter goes to
// the next match, Shift+Enter to the previous one, Escape closes the box.
import type { ChatItem } from '../../src/protocol/messages';
import { button, h } from '../shared/components';
import { t } from './strings';
import type { VirtualList } from './virtualList';

const HIGHLIGHT = 'chat-find';

/** The words a person can find in an item: what it shows as text. */
export function searchableText(item: ChatItem): string {
  switch (item.kind) {
    case 'user':
    case 'assistant':
    case 'thinking':
    case 'notice':
      return item.text;
    case 'tool':
      return `${item.name} ${item.summary}\n${item.input}\n${item.result ?? ''}`;
    case 'permission':
      return `${item.toolName} ${item.summary}`;
    case 'recall':
      return item.files.map((f) => `${f.title} ${f.file}`).join('\n');
    case 'instructions':
      return item.files.map((f) => f.label).join(', ');
    default:
      return '';
  }
}

/** The find box over the chat list `list`. */
export class ChatFind {
  readonly element: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly count: HTMLElement;
  private matches: number[] = [];
  private current = -1;
  private query = '';

  constructor(private readonly list: VirtualList<ChatItem>) {
    this.input = h('input', {
      id: 'chat-find-input',
      type: 'search',
      placeholder: t('findPlaceholder'),
      'aria-label': t('findLabel'),
    });
    this.count = h('span', { id: 'chat-find-count', class: 'chat-find-count', role: 'status' });
    this.element = h(
      'div',
      { class: 'chat-find', role: 'search', hidden: '' },
      this.input,
      this.count,
      button('', { appearance: 'icon', icon: 'arrow-up', ariaLabel: t('findPrevious'), onClick: () => this.go(-1) }),
      button('', { appearance: 'icon', icon: 'arrow-down', ariaLabel: t('findNext'), onClick: () => this.go(1) }),
      button('', { appearance: 'icon', icon: 'close', ariaLabel: t('findClose'), onClick: () => this.close() }),
    );
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        this.go(event.shiftKey ? -1 : 1);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        this.close();
      }
    });
    this.input.addEventListener('input', () => this.search());
    document.addEventListener('keydown', (event) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'f') {
        event.preventDefault();
        this.open();
      }
    });
  }

  open(): void {
    this.element.removeAttribute('hidden');
    this.input.focus();
    this.input.select();
  }

  close(): void {
    const found = this.list.rowOf(this.keyAt(this.current));
    this.element.setAttribute('hidden', '');
    CSS.highlights?.delete(HIGHLIGHT);
    this.count.textContent = '';
    this.matches = [];
    this.current = -1;
    this.query = '';
    (found ?? this.list.element).focus({ preventScroll: true });
  }

  /** Finds the box's words again in every item (a new query, or items that changed). */
  private search(): void {
    this.query = this.input.value.trim().toLocaleLowerCase();
    this.matches = [];
    if (this.query) {
      this.list.all.forEach((item, i) => {
        if (searchableText(item).toLocaleLowerCase().includes(this.query)) this.matches.push(i);
      });
    }
    this.current = -1;
    this.showCount();
    if (this.matches.length > 0) this.go(1);
    else CSS.highlights?.delete(HIGHLIGHT);
  }

  /** The next (1) or previous (-1) match: drawn, brought into view, its words highlighted. */
  private go(step: 1 | -1): void {
    if (this.input.value.trim().toLocaleLowerCase() !== this.query || this.matches.length === 0) {
      if (this.input.value.trim().toLocaleLowerCase() !== this.query) this.search();
      return;
    }
    const n = this.matches.length;
    this.current = (this.current + step + n) % n;
    const row = this.list.reveal(this.matches[this.current], 'center');
    this.showCount();
    if (row) this.highlight(row);
  }

  private keyAt(i: number): string {
    return i >= 0 && this.matches[i] !== undefined ? (this.list.all[this.matches[i]]?.id ?? '') : '';
  }

  private showCount(): void {
    const n = this.matches.length;
    this.count.textContent = !this.query
      ? ''
      : n === 0
        ? t('findNone')
        : t('findCount', String(this.current + 1), String(n));
  }

  /** Marks each occurrence in the row; opens a closed tool card when the words are inside it. */
  private highlight(row: HTMLElement): void {
    const ranges: Range[] = [];
    const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = (node.textContent ?? '').toLocaleLowerCase();
      for (let at = text.indexOf(this.query); at >= 0; at = text.indexOf(this.query, at + this.query.length)) {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + this.query.length);
        ranges.push(range);
        const closed = node.parentElement?.closest('details:not([open])');
        if (closed) (closed as HTMLDetailsElement).open = true;
      }
    }
    if (typeof Highlight !== 'undefined' && CSS.highlights) CSS.highlights.set(HIGHLIGHT, new Highlight(...ranges));
  }
}
