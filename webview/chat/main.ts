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
import { ChatFind } from './find';
import { FileMentions } from './mentions';
import { selectionPinButton } from './pins';
import { renderCacheCost } from '../shared/cacheCost';
import { setLanguage, t } from './strings';
import { VirtualList } from './virtualList';

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
// A feed of articles: only the items near the view are drawn (virtualList.ts); each row says its place.
const list = h('div', { class: 'chat-items', role: 'feed', 'aria-label': t('conversation') });
const status = h('div', { class: 'chat-status', role: 'status' });
// The feed is not a live region (rows come and go as the reader scrolls): a finished reply or a warning is
// read out from here instead.
const announcer = h('div', { class: 'chat-announcer', 'aria-live': 'polite' });
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
  // A long conversation's earlier items, above the newest that the snapshot brought.
  earlierItems: (m) => {
    if (state.snapshot?.items[0]?.id !== m.before) return;
    items.prepend(m.items);
    markLast();
  },
  textDelta: (m) => appendText(m.id, m.delta),
  busy: (m) => setBusy(m.busy, m.status),
  gauge: (m) => renderHeader(m.gauge),
  sessions: (m) => renderSessions(m.sessions),
  files: (m) => mentions.show(m.requestId, m.files),
  pong: (m) => {
    status.textContent = m.text;
  },
  // A conversation rewind: nothing half-typed is sent into it; a message's own rewind gives back its text.
  rewound: (m) => {
    setEditing(false);
    prompt.value = m.text ?? '';
    if (m.text !== undefined) prompt.focus();
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
  lastIds.clear();
  items.reset(snap.items);
  if (snap.items.length === 0) list.append(snap.setupNeeded ? setupScreen() : emptyState(snap));
  renderHeader(snap.gauge);
  setBusy(snap.busy, snap.busy ? undefined : snap.idleStatus);
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

/** The first-run screen: ways to get a model, each a sentence a newcomer can act on. */
function setupScreen(): HTMLElement {
  const choose = (choice: SetupChoice, label: string, primary: boolean) =>
    button(label, {
      id: `setup-${choice}`,
      appearance: primary ? 'primary' : 'secondary',
      onClick: () => link.post({ type: 'setup', choice }),
    });
  const option = (choice: SetupChoice, title: string, text: string, label: string, primary: boolean) =>
    h(
      'div',
      { class: 'setup-option', 'data-choice': choice },
      h('h3', {}, title),
      h('p', {}, text),
      choose(choice, label, primary),
    );
  // A team that has Claude through its cloud: one button per provider (their names are not translated).
  const clouds = h(
    'div',
    { class: 'setup-option', 'data-choice': 'cloud' },
    h('h3', {}, t('setupCloudTitle')),
    h('p', {}, t('setupCloudText')),
    h(
      'div',
      { class: 'setup-clouds' },
      choose('bedrock', 'Amazon Bedrock…', false),
      choose('vertex', 'Google Vertex AI…', false),
      choose('foundry', 'Microsoft Foundry…', false),
    ),
  );
  return h(
    'div',
    { class: 'chat-setup', id: 'setup', role: 'region', 'aria-label': t('setupTitle') },
    h('h2', {}, t('setupTitle')),
    h('p', {}, t('setupIntro')),
    option('apiKey', t('setupKeyTitle'), t('setupKeyText'), t('setupKeyButton'), true),
    clouds,
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
        id: 'history',
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
  rewind: (itemId, what) => {
    if (!state.snapshot?.busy) link.post({ type: 'rewind', itemId, what });
  },
  openTurnDiff: (itemId) => link.post({ type: 'openTurnDiff', itemId }),
  checkpointsOff: () => state.snapshot?.checkpointsOff,
};

/** The newest prompt and turn line, by kind: Edit belongs to the last prompt and Retry to the last reply. */
const lastIds = new Map<string, string | undefined>();
function lastIdOf(kind: string): string | undefined {
  if (!lastIds.has(kind)) {
    const all = items.all;
    let i = all.length - 1;
    while (i >= 0 && all[i].kind !== kind) i--;
    lastIds.set(kind, all[i]?.id);
  }
  return lastIds.get(kind);
}

/** One row's item, with the "is-last" mark that shows Edit or Retry on it. */
function drawItem(item: ChatItem): HTMLElement {
  const node = renderItem(item, handlers);
  if (item.kind === 'user' || item.kind === 'turn') node.classList.toggle('is-last', item.id === lastIdOf(item.kind));
  return node;
}

/** A guess of an item's height before it is drawn (the list measures it once drawn): lines of text. */
function estimateHeight(item: ChatItem, width: number): number {
  const perLine = Math.max(20, Math.floor((width - 16) / 7));
  const lines = (text: string) =>
    text.split('\n').reduce((n, line) => n + Math.max(1, Math.ceil(line.length / perLine)), 0);
  switch (item.kind) {
    case 'user':
      return 44 + lines(item.text) * 18 + (item.turn !== undefined ? 20 : 0);
    case 'assistant':
      return 30 + lines(item.text) * 20 + (item.text.split('```').length >> 1) * 40;
    case 'tool':
    case 'thinking':
    case 'turn':
    case 'changes':
      return 34;
    case 'recall':
      return 10 + item.files.length * 18;
    case 'permission':
      return 140;
    default:
      return 40;
  }
}

/** Redraws the drawn prompts and turn lines whose "is-last" mark changed. */
function markLast(): void {
  lastIds.clear();
  for (const node of list.querySelectorAll<HTMLElement>('[data-kind="user"], [data-kind="turn"]'))
    node.classList.toggle('is-last', node.dataset.item === lastIdOf(node.dataset.kind ?? ''));
}

function upsertItem(item: ChatItem): void {
  if (!state.snapshot) return;
  const index = state.snapshot.items.findIndex((i) => i.id === item.id);
  if (item.kind === 'assistant') state.texts.set(item.id, item.text);
  list.querySelector('.chat-empty, .chat-setup')?.remove();
  // An update of an item already drawn (Pin, Not relevant, a card answered) keeps the reader where they are;
  // a new item shows at the end.
  const was = index >= 0 ? state.snapshot.items[index] : undefined;
  if (index >= 0) items.replace(item);
  else items.push(item);
  announce(item, was);
  markLast();
  if (item.kind === 'permission' && state.snapshot.busy) setBusy(true, busyText);
  if (index < 0) items.scrollToEnd();
}

/** Reads out a reply once it is whole, and a warning or an error as it comes. */
function announce(item: ChatItem, was: ChatItem | undefined): void {
  const finished =
    item.kind === 'assistant' && !item.streaming && (was === undefined || (was.kind === 'assistant' && was.streaming));
  const alarm = item.kind === 'notice' && item.level !== 'info' && was === undefined;
  if (!finished && !alarm) return;
  const text = item.text.length > 300 ? `${item.text.slice(0, 300)}…` : item.text;
  announcer.textContent = item.kind === 'assistant' ? `${t('engram')}: ${text}` : text;
}

function appendText(id: string, delta: string): void {
  const text = (state.texts.get(id) ?? '') + delta;
  state.texts.set(id, text);
  const item = state.snapshot?.items.find((i) => i.id === id);
  if (item && item.kind === 'assistant') item.text = text;
  const body = items.rowOf(id)?.querySelector('.markdown');
  if (body) body.replaceChildren(renderReply(text, handlers));
  items.scrollToEnd();
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

// The chat stays at its end while the reader is there (an item that grows after it was drawn, a toolkit
// button or a font that loads, Retry appearing on the last turn): the list follows its end.
const items = new VirtualList<ChatItem>(list, { key: (item) => item.id, render: drawItem, estimate: estimateHeight });
const find = new ChatFind(items);

app.append(
  selectionPinButton(handlers.pin),
  header,
  sessionsBox,
  find.element,
  list,
  status,
  announcer,
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
