// Our own thin components over @vscode/webview-ui-toolkit (deprecated upstream in 2025). Views use only
// these functions, so the toolkit can be swapped (e.g. for @vscode-elements/elements) in this one file.
import {
  provideVSCodeDesignSystem,
  vsCodeButton,
  vsCodeDivider,
  vsCodeProgressRing,
  vsCodeTextArea,
} from '@vscode/webview-ui-toolkit';
import { hasHiddenChars, showHiddenChars, splitHiddenChars } from '../../src/protocol/hiddenChars';

// Our CSP allows no inline style, and a toolkit template with a `style="${...}"` binding trips it the
// moment it is first parsed (the parser meets the attribute), then any style set through it is
// dropped. Two templates have one: vscode-badge (so our badge is a plain span, styled in the CSS) and
// the determinate vscode-progress-ring (we only use the indeterminate ring, whose template has none).

let registered = false;

export function registerComponents(): void {
  if (registered) return;
  registered = true;
  provideVSCodeDesignSystem().register(vsCodeButton(), vsCodeTextArea(), vsCodeProgressRing(), vsCodeDivider());
}

type Child = Node | string | null | undefined | false;

/** Attributes a person reads (tooltips, screen readers): hidden characters are written out there too. */
const READ_ATTRIBUTES = new Set(['title', 'aria-label']);

/**
 * Creates an element; strings become text nodes, so content is never parsed as HTML, and bidi controls
 * and zero-width characters in them show as `<U+202E>` (src/protocol/hiddenChars.ts).
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs))
    el.setAttribute(name, READ_ATTRIBUTES.has(name) ? showHiddenChars(value) : value);
  append(el, children);
  return el;
}

export function append(parent: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === 'string' ? visibleText(child) : child);
  }
}

/** Text as nodes, each hidden character a `.hidden-char` span that shows its code point. */
export function visibleText(text: string): Node {
  if (!hasHiddenChars(text)) return document.createTextNode(text);
  const fragment = document.createDocumentFragment();
  for (const part of splitHiddenChars(text)) {
    fragment.append(typeof part === 'string' ? document.createTextNode(part) : hiddenCharMark(part.hidden));
  }
  return fragment;
}

function hiddenCharMark(label: string): HTMLElement {
  const mark = document.createElement('span');
  mark.className = 'hidden-char';
  mark.textContent = label;
  return mark;
}

/** `el.textContent = text`, with hidden characters shown. */
export function setText(el: HTMLElement, text: string): void {
  el.replaceChildren(visibleText(text));
}

/** Shows the hidden characters of every text node below `root` (Markdown rendered by markdown-it). */
export function showHiddenCharsIn(root: Node): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const found: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (hasHiddenChars(node.nodeValue ?? '')) found.push(node as Text);
  }
  for (const node of found) node.replaceWith(visibleText(node.nodeValue ?? ''));
}

export function icon(name: string): HTMLElement {
  return h('span', { class: `codicon codicon-${name}`, 'aria-hidden': 'true' });
}

export interface ButtonOptions {
  appearance?: 'primary' | 'secondary' | 'icon';
  icon?: string;
  ariaLabel?: string;
  title?: string;
  id?: string;
  onClick: () => void;
}

export function button(label: string, options: ButtonOptions): HTMLElement {
  const el = document.createElement('vscode-button');
  el.setAttribute('appearance', options.appearance ?? 'primary');
  if (options.id) el.id = options.id;
  if (options.ariaLabel) el.setAttribute('aria-label', showHiddenChars(options.ariaLabel));
  if (options.title) el.setAttribute('title', showHiddenChars(options.title));
  if (options.icon) {
    const glyph = icon(options.icon);
    if (label) glyph.setAttribute('slot', 'start');
    el.append(glyph);
  }
  if (label) el.append(visibleText(label));
  el.addEventListener('click', () => {
    if (!el.hasAttribute('disabled')) options.onClick();
  });
  return el;
}

export function setDisabled(el: HTMLElement, disabled: boolean): void {
  if (disabled) el.setAttribute('disabled', '');
  else el.removeAttribute('disabled');
}

export function textArea(options: {
  id: string;
  placeholder: string;
  ariaLabel: string;
  rows?: number;
}): HTMLElement & { value: string } {
  const el = document.createElement('vscode-text-area') as unknown as HTMLElement & { value: string };
  el.id = options.id;
  el.setAttribute('placeholder', options.placeholder);
  el.setAttribute('aria-label', options.ariaLabel);
  el.setAttribute('resize', 'vertical');
  el.setAttribute('rows', String(options.rows ?? 3));
  return el;
}

export function progressRing(ariaLabel: string): HTMLElement {
  const el = document.createElement('vscode-progress-ring');
  el.setAttribute('aria-label', ariaLabel);
  return el;
}

/** A small pill of text (`.badge`, styled in inspector.css), not the toolkit's badge: see the CSP note above. */
export function badge(text: string): HTMLElement {
  return h('span', { class: 'badge' }, text);
}

export interface LightButtonOptions {
  icon?: string;
  ariaLabel?: string;
  title?: string;
  id?: string;
  /** 'link' looks like a text link; 'icon' shows only the codicon. */
  look?: 'link' | 'icon' | 'plain';
  onClick: () => void;
}

/**
 * A native button: for rows of long lists, where hundreds of toolkit components would slow the first
 * render. Styled with theme colours in common.css; keyboard and screen readers treat it as a button.
 */
export function lightButton(label: string, options: LightButtonOptions): HTMLButtonElement {
  const el = h('button', { type: 'button', class: `light-button light-${options.look ?? 'plain'}` });
  if (options.id) el.id = options.id;
  if (options.ariaLabel) el.setAttribute('aria-label', showHiddenChars(options.ariaLabel));
  if (options.title) el.title = showHiddenChars(options.title);
  if (options.icon) el.append(icon(options.icon));
  if (label) el.append(h('span', {}, label));
  el.addEventListener('click', (event) => {
    event.stopPropagation();
    if (!el.disabled) options.onClick();
  });
  return el;
}
