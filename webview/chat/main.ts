// The Chat view: the transcript as items, a prompt box with @ file completion, stop / new chat, permission
// prompts inline, a small context gauge, and a first-run screen while no model is chosen. Every piece of
// text goes in as text or through the sanitising markdown renderer.
import type {
  ChatItem,
  ChatSnapshot,
  ChatToHost,
  GaugeState,
  HostToChat,
  SessionSummary,
  SetupChoice,
} from '../../src/protocol/messages';
import { button, h, icon, progressRing, registerComponents, setDisabled, textArea } from '../shared/components';
import { renderGauge } from '../shared/gauge';
import { connect } from '../shared/host';
import { renderItem, renderReply, type ItemHandlers } from './items';
import { FileMentions } from './mentions';
import { selectionPinButton } from './pins';
import { renderCacheCost } from '../shared/cacheCost';
import { setLanguage, t } from './strings';

const lang = document.documentElement.lang || undefined;
setLanguage(document.documentElement.lang);
registerComponents();

const app = document.getElementById('app')!;
const state: { snapshot: ChatSnapshot | undefined; texts: Map<string, string>; editing: boolean } = {
  snapshot: undefined,
  texts: new Map(),
  editing: false,
};

const header = h('div', { class: 'chat-header' });
const list = h('div', { class: 'chat-items', role: 'log', 'aria-live': 'polite', 'aria-label': t('conversation') });
const status = h('div', { class: 'chat-status', role: 'status' });
const prompt = textArea({ id: 'prompt', placeholder: t('placeholder'), ariaLabel: t('messageLabel') });
const sendButton = button(t('send'), { id: 'send', icon: 'send', onClick: () => send() });
const stopButton = button(t('stop'), {
  id: 'stop',
  appearance: 'secondary',
  icon: 'debug-stop',
  onClick: () => link.post({ type: 'stop' }),
});
const sessionsBox = h('div', { class: 'chat-sessions', hidden: '' });
const editBanner = h(
  'div',
  { class: 'chat-editing', id: 'editing', hidden: '' },
  h('span', {}, t('editing')),
  button(t('cancelEdit'), { appearance: 'secondary', id: 'cancel-edit', onClick: () => setEditing(false) }),
);

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
  files: (m) => mentions.show(m.requestId, m.files),
  pong: (m) => {
    status.textContent = m.text;
  },
});

const mentions = new FileMentions(prompt, (requestId, query) => link.post({ type: 'findFiles', requestId, query }));

function send(): void {
  const text = prompt.value.trim();
  if (!text || state.snapshot?.busy) return;
  prompt.value = '';
  mentions.close();
  if (state.editing) {
    setEditing(false);
    link.post({ type: 'editLast', text });
  } else {
    link.post({ type: 'send', text });
  }
}

prompt.addEventListener('keydown', (event: KeyboardEvent) => {
  if (mentions.onKey(event)) return;
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
  if (event.key === 'Escape' && state.editing) setEditing(false);
});

function setEditing(editing: boolean, text?: string): void {
  state.editing = editing;
  editBanner.toggleAttribute('hidden', !editing);
  app.classList.toggle('editing', editing);
  if (text !== undefined) prompt.value = text;
  if (!editing && text === undefined) prompt.value = '';
  if (editing) prompt.focus();
}

function renderAll(): void {
  const snap = state.snapshot!;
  app.setAttribute('aria-busy', 'false');
  list.replaceChildren();
  if (snap.items.length === 0) list.append(snap.setupNeeded ? setupScreen() : emptyState(snap));
  for (const item of snap.items) list.append(renderItem(item, handlers));
  renderHeader(snap.gauge);
  setBusy(snap.busy, snap.busy ? undefined : snap.idleStatus);
  markLast();
  scrollToEnd();
  watchSizes();
}

function emptyState(snap: ChatSnapshot): HTMLElement {
  return h(
    'div',
    { class: 'chat-empty' },
    h('h2', {}, 'Engram'),
    h('p', {}, t('emptyIntro')),
    snap.trusted ? null : h('p', { class: 'chat-warning' }, t('restricted')),
    h('p', { class: 'chat-model' }, t('model', snap.modelLabel)),
  );
}

/** The first-run screen: three ways to get a model, each a sentence a newcomer can act on. */
function setupScreen(): HTMLElement {
  const option = (choice: SetupChoice, title: string, text: string, label: string, primary: boolean) =>
    h(
      'div',
      { class: 'setup-option', 'data-choice': choice },
      h('h3', {}, title),
      h('p', {}, text),
      button(label, {
        id: `setup-${choice}`,
        appearance: primary ? 'primary' : 'secondary',
        onClick: () => link.post({ type: 'setup', choice }),
      }),
    );
  return h(
    'div',
    { class: 'chat-setup', id: 'setup', role: 'region', 'aria-label': t('setupTitle') },
    h('h2', {}, t('setupTitle')),
    h('p', {}, t('setupIntro')),
    option('apiKey', t('setupKeyTitle'), t('setupKeyText'), t('setupKeyButton'), true),
    option('baseUrl', t('setupUrlTitle'), t('setupUrlText'), t('setupUrlButton'), false),
    option('demo', t('setupDemoTitle'), t('setupDemoText'), t('setupDemoButton'), false),
  );
}

function renderHeader(gauge: GaugeState): void {
  if (state.snapshot) state.snapshot.gauge = gauge;
  const label = state.snapshot?.modelLabel ?? '';
  header.replaceChildren(
    renderGauge(gauge, true),
    h(
      'div',
      { class: 'chat-actions' },
      button(label, {
        appearance: 'secondary',
        icon: 'sparkle',
        id: 'model-picker',
        ariaLabel: `${t('pickModel')}: ${label}`,
        title: t('pickModel'),
        onClick: () => link.post({ type: 'runCommand', command: 'pickModel' }),
      }),
      // New chat and the inspector are the view's own title actions; resuming needs the list, so it is here.
      button('', {
        appearance: 'icon',
        icon: 'history',
        ariaLabel: t('resume'),
        title: t('resume'),
        onClick: () => toggleSessions(),
      }),
    ),
  );
  if (gauge.cache) header.append(renderCacheCost(gauge.cache, 'chat-cache-cost'));
}

function toggleSessions(): void {
  if (!sessionsBox.hasAttribute('hidden')) {
    sessionsBox.setAttribute('hidden', '');
    return;
  }
  link.post({ type: 'listSessions', requestId: String(Date.now()) });
}

function renderSessions(sessions: SessionSummary[]): void {
  sessionsBox.replaceChildren(h('div', { class: 'chat-sessions-title' }, t('earlierSessions')));
  if (sessions.length === 0) sessionsBox.append(h('div', { class: 'chat-sessions-empty' }, t('noEarlierSessions')));
  for (const s of sessions) {
    const when = new Date(s.modified);
    const row = h(
      'button',
      {
        class: 'chat-session',
        type: 'button',
        'data-session': s.id,
        title: `${s.title || t('untitled')}\n${when.toLocaleString(lang)}`,
      },
      h('span', { class: 'chat-session-title' }, s.title || t('untitled')),
      // Short ("12/3/26, 9:21 AM"), so it fits beside the title; the tooltip has it in full.
      h(
        'time',
        { class: 'chat-session-date', datetime: when.toISOString() },
        when.toLocaleString(lang, { dateStyle: 'short', timeStyle: 'short' }),
      ),
    );
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
  notRelevant: (itemId, file, undo) => link.post({ type: 'notRelevant', itemId, file, undo }),
  code: (action, code) => link.post({ type: 'codeAction', action, code }),
  retry: () => {
    if (!state.snapshot?.busy) link.post({ type: 'retry' });
  },
  edit: (text) => setEditing(true, text),
  pin: (itemId, text) => link.post({ type: 'pin', itemId, ...(text !== undefined ? { text } : {}) }),
};

/** Edit belongs to the last prompt and Retry to the last reply: only those show their buttons. */
function markLast(): void {
  for (const kind of ['user', 'turn']) {
    const nodes = list.querySelectorAll(`[data-kind="${kind}"]`);
    nodes.forEach((node, i) => {
      node.classList.toggle('is-last', i === nodes.length - 1);
    });
  }
}

function upsertItem(item: ChatItem): void {
  if (!state.snapshot) return;
  const items = state.snapshot.items;
  const index = items.findIndex((i) => i.id === item.id);
  if (index >= 0) items[index] = item;
  else items.push(item);
  if (item.kind === 'assistant') state.texts.set(item.id, item.text);
  // An update of an item already drawn (Pin, Not relevant, a card answered) keeps the reader where they are.
  const stick = index < 0 || atEnd;
  const node = renderItem(item, handlers);
  const existing = list.querySelector(`[data-item="${CSS.escape(item.id)}"]`);
  list.querySelector('.chat-empty, .chat-setup')?.remove();
  if (existing) {
    keepAtEnd.unobserve(existing);
    existing.replaceWith(node);
  } else {
    list.append(node);
  }
  keepAtEnd.observe(node);
  markLast();
  if (item.kind === 'permission' && state.snapshot.busy) setBusy(true, busyText);
  if (stick) scrollToEnd();
}

function appendText(id: string, delta: string): void {
  const text = (state.texts.get(id) ?? '') + delta;
  state.texts.set(id, text);
  const item = state.snapshot?.items.find((i) => i.id === id);
  if (item && item.kind === 'assistant') item.text = text;
  const body = list.querySelector(`[data-item="${CSS.escape(id)}"] .markdown`);
  if (body) body.replaceChildren(renderReply(text, handlers));
  scrollToEnd();
}

let busyText: string | undefined;
function setBusy(busy: boolean, text?: string): void {
  if (state.snapshot) state.snapshot.busy = busy;
  busyText = text;
  app.classList.toggle('busy', busy);
  setDisabled(sendButton, busy);
  stopButton.toggleAttribute('hidden', !busy);
  status.replaceChildren();
  // While a card waits for the person, the turn is not working: it waits for them.
  const waiting = state.snapshot?.items.some((i) => i.kind === 'permission' && i.answered === undefined);
  const words = waiting ? t('waitingForAnswer') : (text ?? t('working'));
  if (busy) status.append(progressRing(words), h('span', {}, words));
  // Nothing runs, but something waits for the person (a compaction summary to apply): no spinner then.
  else if (text) status.append(icon('bell'), h('span', { id: 'idle-status' }, text));
}

function scrollToEnd(): void {
  list.scrollTop = list.scrollHeight;
}

// The chat stays at its end while the reader is there: an item that grows after it was drawn (a toolkit
// button or a font that loads, Retry appearing on the last turn) or a status line that comes and goes used
// to leave the end, the token line of the last reply, a few pixels below the view.
let atEnd = true;
list.addEventListener('scroll', () => {
  atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
});
const keepAtEnd = new ResizeObserver(() => {
  if (atEnd) scrollToEnd();
});

/** Watches the list and its items for size changes (see keepAtEnd). */
function watchSizes(): void {
  keepAtEnd.disconnect();
  keepAtEnd.observe(list);
  for (const child of Array.from(list.children)) keepAtEnd.observe(child);
}

app.append(
  selectionPinButton(handlers.pin),
  header,
  sessionsBox,
  list,
  status,
  h(
    'div',
    { class: 'chat-input' },
    editBanner,
    mentions.element,
    prompt,
    h('div', { class: 'chat-buttons' }, stopButton, sendButton),
  ),
);
setBusy(false);
link.post({ type: 'ready' });
