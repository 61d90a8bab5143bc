import type { ChatItem, PermissionChoice } from '../../src/protocol/messages';
import { button, h, icon } from '../shared/components';
import { renderMarkdown } from '../shared/markdown';

export interface ItemHandlers {
  permission(requestId: string, choice: PermissionChoice): void;
  runCommand(command: 'openInspector' | 'setApiKey' | 'showLog'): void;
  openPath(path: string): void;
}

const ACTIONS: Record<string, { label: string; command: 'openInspector' | 'setApiKey' | 'showLog' }> = {
  setApiKey: { label: 'Set API Key', command: 'setApiKey' },
  showLog: { label: 'Show Log', command: 'showLog' },
  openInspector: { label: 'Open Memory Inspector', command: 'openInspector' },
};

const TOOL_STATUS_ICON: Record<string, string> = {
  running: 'loading codicon-modifier-spin', done: 'check', error: 'error', denied: 'circle-slash', waiting: 'question',
};

/** One chat item as DOM; `data-item` lets updates replace it in place. */
export function renderItem(item: ChatItem, handlers: ItemHandlers): HTMLElement {
  const node = renderBody(item, handlers);
  node.dataset.item = item.id;
  return node;
}

function renderBody(item: ChatItem, handlers: ItemHandlers): HTMLElement {
  switch (item.kind) {
    case 'user':
      return h('div', { class: 'item item-user' }, h('div', { class: 'item-role' }, 'You'), h('div', { class: 'item-text' }, item.text));
    case 'assistant': {
      const body = h('div', { class: 'markdown' });
      body.append(renderMarkdown(item.text));
      return h('div', { class: `item item-assistant${item.streaming ? ' streaming' : ''}` }, h('div', { class: 'item-role' }, 'Engram'), body);
    }
    case 'thinking':
      return h('details', { class: 'item item-thinking' }, h('summary', {}, 'Thinking'), h('pre', {}, item.text));
    case 'tool':
      return h('details', { class: `item item-tool tool-${item.status}` },
        h('summary', { 'aria-label': `Tool ${item.name}: ${item.summary} (${item.status})` },
          icon(TOOL_STATUS_ICON[item.status] ?? 'tools'), h('span', { class: 'tool-name' }, item.name),
          h('span', { class: 'tool-summary' }, summaryAfterName(item.name, item.summary))),
        h('div', { class: 'tool-section-title' }, 'Input'), h('pre', { class: 'tool-input' }, item.input),
        item.result === undefined ? null : h('div', { class: 'tool-section-title' }, 'Result'),
        item.result === undefined ? null : h('pre', { class: 'tool-result' }, item.result));
    case 'permission': {
      const buttons = item.answered
        ? h('div', { class: 'permission-answer' }, answerText(item.answered))
        : h('div', { class: 'permission-buttons' },
          button('Allow once', { id: `allow-once-${item.id}`, onClick: () => handlers.permission(item.id, 'allowOnce') }),
          button(`Always allow ${item.toolName} this session`, { id: `allow-session-${item.id}`, appearance: 'secondary', onClick: () => handlers.permission(item.id, 'allowSession') }),
          button('Deny', { id: `deny-${item.id}`, appearance: 'secondary', onClick: () => handlers.permission(item.id, 'deny') }));
      return h('div', { class: 'item item-permission', role: 'group', 'aria-label': `Permission for ${item.toolName}` },
        h('div', { class: 'permission-title' }, icon('shield'), ` ${item.toolName} wants to run`),
        h('pre', { class: 'permission-summary' }, item.summary), buttons);
    }
    case 'notice': {
      const action = item.action ? ACTIONS[item.action] : undefined;
      return h('div', { class: `item item-notice notice-${item.level}`, role: item.level === 'error' ? 'alert' : 'note' },
        icon(item.level === 'error' ? 'error' : item.level === 'warning' ? 'warning' : 'info'), h('span', {}, ` ${item.text}`),
        item.link ? linkButton(item.link, handlers) : null,
        action ? h('div', { class: 'notice-action' }, button(action.label, { appearance: 'secondary', onClick: () => handlers.runCommand(action.command) })) : null);
    }
  }
}

function answerText(choice: PermissionChoice): string {
  return choice === 'allowOnce' ? 'Allowed once' : choice === 'allowSession' ? 'Allowed for this session' : 'Denied';
}

function linkButton(link: { label: string; path: string }, handlers: ItemHandlers): HTMLElement {
  const a = h('a', { href: '#', class: 'notice-link', title: link.path }, ` ${link.label}`);
  a.addEventListener('click', (event) => {
    event.preventDefault();
    handlers.openPath(link.path);
  });
  return a;
}

/** A tool's summary starts with its name ("Read README.md"), which the card already shows beside it. */
function summaryAfterName(name: string, summary: string): string {
  return summary.startsWith(`${name} `) ? summary.slice(name.length + 1) : summary;
}
