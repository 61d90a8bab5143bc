// The Chat view: the transcript as items, a prompt box, stop / new chat, permission prompts inline, and a
// small context gauge. Every piece of text goes in as text or through the sanitising markdown renderer.
import type { ChatItem, ChatSnapshot, ChatToHost, GaugeState, HostToChat, SessionSummary } from '../../src/protocol/messages';
import { button, h, progressRing, registerComponents, setDisabled, textArea } from '../shared/components';
import { renderGauge } from '../shared/gauge';
import { connect } from '../shared/host';
import { renderMarkdown } from '../shared/markdown';
import { renderItem, type ItemHandlers } from './items';

registerComponents();

const app = document.getElementById('app')!;
const state: { snapshot: ChatSnapshot | undefined; texts: Map<string, string> } = { snapshot: undefined, texts: new Map() };

const header = h('div', { class: 'chat-header' });
const list = h('div', { class: 'chat-items', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation' });
const status = h('div', { class: 'chat-status', role: 'status' });
const prompt = textArea({ id: 'prompt', placeholder: 'Ask Engram... (Enter to send, Shift+Enter for a new line, /compact, /new)', ariaLabel: 'Message to Engram' });
const sendButton = button('Send', { id: 'send', icon: 'send', onClick: () => send() });
const stopButton = button('Stop', { id: 'stop', appearance: 'secondary', icon: 'debug-stop', onClick: () => link.post({ type: 'stop' }) });
const sessionsBox = h('div', { class: 'chat-sessions', hidden: '' });

const link = connect<HostToChat, ChatToHost>({
  snapshot: (m) => {
    state.snapshot = m.state;
    state.texts.clear();
    renderAll();
  },
  item: (m) => upsertItem(m.item),
  textDelta: (m) => appendText(m.id, m.delta),
  busy: (m) => setBusy(m.busy, m.status),
  gauge: (m) => renderHeader(m.gauge),
  sessions: (m) => renderSessions(m.sessions),
  pong: (m) => { status.textContent = m.text; },
});

function send(): void {
  const text = prompt.value.trim();
  if (!text || state.snapshot?.busy) return;
  prompt.value = '';
  link.post({ type: 'send', text });
}

prompt.addEventListener('keydown', (event: KeyboardEvent) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});

function renderAll(): void {
  const snap = state.snapshot!;
  app.setAttribute('aria-busy', 'false');
  list.replaceChildren();
  if (snap.items.length === 0) list.append(emptyState(snap));
  for (const item of snap.items) list.append(renderItem(item, handlers));
  renderHeader(snap.gauge);
  setBusy(snap.busy);
  scrollToEnd();
}

function emptyState(snap: ChatSnapshot): HTMLElement {
  return h('div', { class: 'chat-empty' },
    h('h2', {}, 'Engram'),
    h('p', {}, 'A coding agent whose memory you can see. Ask about this workspace, or type /help.'),
    snap.trusted ? null : h('p', { class: 'chat-warning' }, 'Restricted mode: this workspace is not trusted, so the agent has no tools and reads no project instructions.'),
    h('p', { class: 'chat-model' }, `Model: ${snap.modelLabel}`));
}

function renderHeader(gauge: GaugeState): void {
  if (state.snapshot) state.snapshot.gauge = gauge;
  header.replaceChildren(
    renderGauge(gauge, true),
    h('div', { class: 'chat-actions' },
      // New chat and the inspector are the view's own title actions; resuming needs the list, so it is here.
      button('', { appearance: 'icon', icon: 'history', ariaLabel: 'Resume an earlier session', title: 'Resume an earlier session', onClick: () => toggleSessions() })));
}

function toggleSessions(): void {
  if (!sessionsBox.hasAttribute('hidden')) {
    sessionsBox.setAttribute('hidden', '');
    return;
  }
  link.post({ type: 'listSessions', requestId: String(Date.now()) });
}

function renderSessions(sessions: SessionSummary[]): void {
  sessionsBox.replaceChildren(h('div', { class: 'chat-sessions-title' }, 'Earlier sessions'));
  if (sessions.length === 0) sessionsBox.append(h('div', { class: 'chat-sessions-empty' }, 'No earlier sessions in this project.'));
  for (const s of sessions) {
    const row = h('button', { class: 'chat-session', type: 'button', 'data-session': s.id },
      h('span', { class: 'chat-session-title' }, s.title || '(untitled)'),
      h('span', { class: 'chat-session-date' }, new Date(s.modified).toLocaleString()));
    row.addEventListener('click', () => {
      sessionsBox.setAttribute('hidden', '');
      link.post({ type: 'resume', sessionId: s.id });
    });
    sessionsBox.append(row);
  }
  sessionsBox.removeAttribute('hidden');
}

const handlers: ItemHandlers = {
  permission: (requestId, choice) => link.post({ type: 'permission', requestId, choice }),
  runCommand: (command) => link.post({ type: 'runCommand', command }),
  openPath: (path) => link.post({ type: 'openPath', path }),
};

function upsertItem(item: ChatItem): void {
  if (!state.snapshot) return;
  const items = state.snapshot.items;
  const index = items.findIndex((i) => i.id === item.id);
  if (index >= 0) items[index] = item;
  else items.push(item);
  if (item.kind === 'assistant') state.texts.set(item.id, item.text);
  const node = renderItem(item, handlers);
  const existing = list.querySelector(`[data-item="${CSS.escape(item.id)}"]`);
  list.querySelector('.chat-empty')?.remove();
  if (existing) existing.replaceWith(node);
  else list.append(node);
  scrollToEnd();
}

function appendText(id: string, delta: string): void {
  const text = (state.texts.get(id) ?? '') + delta;
  state.texts.set(id, text);
  const item = state.snapshot?.items.find((i) => i.id === id);
  if (item && item.kind === 'assistant') item.text = text;
  const body = list.querySelector(`[data-item="${CSS.escape(id)}"] .markdown`);
  if (body) body.replaceChildren(renderMarkdown(text));
  scrollToEnd();
}

function setBusy(busy: boolean, text?: string): void {
  if (state.snapshot) state.snapshot.busy = busy;
  setDisabled(sendButton, busy);
  stopButton.toggleAttribute('hidden', !busy);
  status.replaceChildren();
  if (busy) status.append(progressRing('Working'), h('span', {}, text ?? 'Working...'));
}

function scrollToEnd(): void {
  list.scrollTop = list.scrollHeight;
}

app.append(header, sessionsBox, list, status, h('div', { class: 'chat-input' }, prompt, h('div', { class: 'chat-buttons' }, stopButton, sendButton)));
setBusy(false);
link.post({ type: 'ready' });
