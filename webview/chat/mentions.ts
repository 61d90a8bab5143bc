// @ completion in the prompt box: typing `@rea` asks the host for workspace files whose path contains
// "rea", shows them in a list under the box, and the arrow keys, Enter/Tab or a click put `@path ` in.
import { h } from '../shared/components';
import { t } from './strings';

/** The `@word` being typed just before the caret. */
const MENTION_AT_CARET = /(^|\s)@([^\s@]*)$/;

type PromptBox = HTMLElement & { value: string };

export class FileMentions {
  readonly element = h('div', {
    class: 'mention-list',
    id: 'mentions',
    role: 'listbox',
    'aria-label': t('fileSuggestions'),
    hidden: '',
  });
  private files: string[] = [];
  private selected = 0;
  private asked = 0;
  private open = false;

  constructor(
    private readonly prompt: PromptBox,
    private readonly find: (requestId: string, query: string) => void,
  ) {
    prompt.addEventListener('input', () => this.onInput());
  }

  /** The host's answer; an answer to an older query is dropped. */
  show(requestId: string, files: string[]): void {
    if (requestId !== `m${this.asked}` || this.query() === undefined) return;
    this.files = files;
    this.selected = 0;
    this.open = true;
    this.render();
  }

  close(): void {
    this.open = false;
    this.files = [];
    this.element.setAttribute('hidden', '');
  }

  /** Keys the list takes while it is open; true when it took the key. */
  onKey(event: KeyboardEvent): boolean {
    if (!this.open) return false;
    if (event.key === 'Escape') {
      this.close();
    } else if ((event.key === 'Enter' || event.key === 'Tab') && this.files.length > 0 && !event.isComposing) {
      this.choose(this.files[this.selected]);
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (this.files.length === 0) return false;
      this.selected = (this.selected + (event.key === 'ArrowDown' ? 1 : this.files.length - 1)) % this.files.length;
      this.render();
    } else {
      return false;
    }
    event.preventDefault();
    event.stopPropagation();
    return true;
  }

  private onInput(): void {
    const query = this.query();
    if (query === undefined) {
      this.close();
      return;
    }
    this.find(`m${++this.asked}`, query);
  }

  private caret(): number {
    const control = (this.prompt as unknown as { control?: HTMLTextAreaElement }).control;
    return control?.selectionStart ?? this.prompt.value.length;
  }

  private query(): string | undefined {
    return MENTION_AT_CARET.exec(this.prompt.value.slice(0, this.caret()))?.[2];
  }

  private choose(file: string): void {
    const value = this.prompt.value;
    const caret = this.caret();
    const before = value.slice(0, caret).replace(MENTION_AT_CARET, (_m, space: string) => `${space}@${file} `);
    this.prompt.value = before + value.slice(caret);
    const control = (this.prompt as unknown as { control?: HTMLTextAreaElement }).control;
    control?.setSelectionRange(before.length, before.length);
    this.close();
    this.prompt.focus();
  }

  private render(): void {
    this.element.replaceChildren();
    if (this.files.length === 0) this.element.append(h('div', { class: 'mention-empty' }, t('noFiles')));
    this.files.forEach((file, i) => {
      const row = h(
        'div',
        {
          class: `mention${i === this.selected ? ' selected' : ''}`,
          role: 'option',
          'aria-selected': String(i === this.selected),
          'data-file': file,
        },
        file,
      );
      // mousedown, not click: a click would first take the focus from the prompt box.
      row.addEventListener('mousedown', (event) => {
        event.preventDefault();
        this.choose(file);
      });
      this.element.append(row);
    });
    this.element.removeAttribute('hidden');
  }
}
