// The Memory Inspector: the context gauge, the session notes, the memory tree and the timeline of one
// source (the live session by default). Everything shown comes from the host's snapshot as text or
// through the sanitising Markdown renderer; every action is a typed request the host checks.
import type { HostToInspector, InspectorSnapshot, InspectorToHost } from '../../src/protocol/messages';
import { badge, button, h, lightButton, registerComponents } from '../shared/components';
import { connect } from '../shared/host';
import { renderGaugePane } from './gaugePane';
import { type HealthActions, renderHealthPane } from './healthPane';
import { healthText } from './healthStrings';
import { renderPinsPane } from './pinsPane';
import { renderMcpPane, renderRulesPane, type McpActions } from './mcpPane';
import { renderMemoryPane, type MemoryActions } from './memoryPane';
import { renderNotesPane } from './notesPane';
import { drawAllPanes, drawPanes, type Fold, type Pane } from './paneFill';
import { renderReviewQueue, type PendingActions } from './pendingPane';
import { setLanguage, t } from './strings';
import { renderTimelinePane, type ReplacedState } from './timelinePane';
import { warmUp } from './warmUp';

interface UiState {
  grouping: 'type' | 'line';
  collapsed: string[];
  selectedEntry?: string;
  selectedEvent?: string;
}

setLanguage(document.documentElement.lang);
registerComponents();

const app = document.getElementById('app')!;
let current: InspectorSnapshot | undefined;
/** A snapshot was drawn already: later ones draw every section at once (see paneFill.ts). */
let drawn = false;
const replaced = new Map<string, ReplacedState>();
let nextRequest = 0;
/** Outlives re-renders, so the outcome of an action stays readable when a snapshot follows it. */
const statusLine = h('div', {
  id: 'inspector-status',
  class: 'inspector-status',
  role: 'status',
  'aria-live': 'polite',
});

const link = connect<HostToInspector, InspectorToHost, UiState>({
  snapshot: (m) => {
    current = m.state;
    render();
  },
  gauge: (m) => {
    if (!current) return;
    current.gauge = m.gauge;
    document.getElementById('gauge-body')?.replaceWith(renderGaugePane(m.gauge));
  },
  compactionDetails: (m) => {
    replaced.set(m.id, { messages: m.messages, ...(m.error ? { error: m.error } : {}) });
    if (ui.selectedEvent === m.id) renderTimeline();
  },
  status: (m) => {
    // It floats at the foot of the view (inspector.css), so it shows wherever the action was clicked.
    statusLine.replaceChildren(h('span', { class: 'status-text' }, m.text));
    // A prune's own Undo, beside what it did (the notification's Undo may be out of sight).
    const undo = m.undo;
    if (undo) {
      statusLine.append(
        ' ',
        lightButton(t('undo'), {
          look: 'link',
          icon: 'discard',
          id: 'status-undo',
          onClick: () => link.post({ type: 'restoreEntry', group: undo.group, trashId: undo.trashId }),
        }),
      );
    }
    const undoReject = m.undoReject;
    if (undoReject) {
      statusLine.append(
        ' ',
        lightButton(t('undo'), {
          look: 'link',
          icon: 'discard',
          id: 'status-undo-reject',
          onClick: () => link.post({ type: 'restorePending', id: undoReject }),
        }),
      );
    }
    statusLine.append(
      lightButton('', {
        icon: 'close',
        id: 'status-close',
        ariaLabel: t('statusDismiss'),
        title: t('statusDismiss'),
        onClick: () => statusLine.replaceChildren(),
      }),
    );
    statusLine.className = `inspector-status status-${m.level}`;
  },
  revealPane: (m) => {
    pendingPane = m.pane;
    revealPendingPane();
  },
  pong: (m) => {
    statusLine.textContent = m.text;
  },
});

/**
 * The header's toolkit buttons are the same in every render: made once, while the host builds the first
 * snapshot, and moved into each header (a toolkit button is slow to make and to connect the first time).
 */
const headerButtons = {
  useCurrent: button(t('currentSession'), {
    appearance: 'secondary',
    icon: 'comment-discussion',
    id: 'use-current',
    onClick: () => link.post({ type: 'useCurrentSession' }),
  }),
  pickSource: button(t('changeSource'), {
    appearance: 'secondary',
    icon: 'folder-opened',
    id: 'pick-source',
    onClick: () => link.post({ type: 'pickSource' }),
  }),
  refresh: button('', {
    appearance: 'icon',
    icon: 'refresh',
    id: 'refresh',
    ariaLabel: t('refresh'),
    title: t('refresh'),
    onClick: () => link.post({ type: 'refresh' }),
  }),
};

/** A pane asked for before the first snapshot drew it is shown once it is there. */
let pendingPane: string | undefined;
function revealPendingPane(): void {
  if (pendingPane) drawAllPanes();
  const target = pendingPane ? document.getElementById(`${pendingPane}-section`) : null;
  if (!target) return;
  pendingPane = undefined;
  target.scrollIntoView({ block: 'start' });
  target.focus();
}

const ui: UiState = { grouping: 'type', collapsed: ['group:trash'], ...link.getState() };
const saveUi = () => link.setState({ ...ui });

const memoryActions: MemoryActions = {
  open: (path) => link.post({ type: 'openFile', path }),
  reveal: (path) => link.post({ type: 'revealFile', path }),
  rename: (group, file) => link.post({ type: 'renameEntry', group, file }),
  changeType: (group, file) => link.post({ type: 'changeType', group, file }),
  prune: (group, file) => link.post({ type: 'pruneEntry', group, file }),
  undoNotRelevant: (group, file, index) => link.post({ type: 'undoNotRelevant', group, file, index }),
  restore: (item) => link.post({ type: 'restoreEntry', group: item.group, trashId: item.id }),
  deleteForGood: (item) => link.post({ type: 'deleteTrash', group: item.group, trashId: item.id }),
  openOrigin: (sessionId, messageId) =>
    link.post({ type: 'openOrigin', sessionId, ...(messageId ? { messageId } : {}) }),
  inspectSession: (sessionId) => link.post({ type: 'inspectSession', sessionId }),
  syncTeam: () => link.post({ type: 'syncTeamMemory' }),
  pruneLeastUsed: (group) => link.post({ type: 'pruneLeastUsed', group }),
  merge: (group) => link.post({ type: 'mergeEntries', group }),
  setGrouping: (grouping) => {
    ui.grouping = grouping;
    saveUi();
    renderMemory();
  },
  toggled: (key, expanded) => {
    ui.collapsed = ui.collapsed.filter((k) => k !== key);
    if (!expanded) ui.collapsed.push(key);
    saveUi();
  },
  selected: (key) => {
    ui.selectedEntry = key;
    saveUi();
  },
};

const pendingActions: PendingActions = {
  accept: (id) => link.post({ type: 'acceptPending', id }),
  edit: (id) => link.post({ type: 'editPending', id }),
  reject: (id) => link.post({ type: 'rejectPending', id }),
  setReview: (on) => link.post({ type: 'setReview', on }),
};

const healthActions: HealthActions = {
  open: (path) => link.post({ type: 'openFile', path }),
  update: (group, file) => link.post({ type: 'updateMemory', group, file }),
  merge: (group, file, other) => link.post({ type: 'mergePair', group, file, other }),
  prune: (group, file) => link.post({ type: 'pruneEntry', group, file }),
  tidy: () => link.post({ type: 'tidyMemory' }),
};

const mcpActions: McpActions = {
  approve: (server) => link.post({ type: 'mcpApprove', server }),
  setServer: (server, on) => link.post({ type: 'mcpSetServer', server, on }),
  setTool: (server, tool, on) => link.post({ type: 'mcpSetTool', server, tool, on }),
  restart: (server) => link.post({ type: 'mcpRestart', server }),
  open: (path) => link.post({ type: 'openFile', path }),
};

function render(): void {
  const s = current!;
  // Only when the page has the keyboard: focusing an element would take it from VS Code (and close a
  // quick pick the user is working in).
  const hasFocus = document.hasFocus();
  const focusKey = hasFocus ? (document.activeElement as HTMLElement | null)?.dataset?.key : undefined;
  const focusEvent = hasFocus ? (document.activeElement as HTMLElement | null)?.dataset?.id : undefined;
  const sessionText = s.sessionId
    ? ` · ${t('session', s.sessionId)}`
    : s.source.kind === 'current'
      ? ` · ${t('noSession')}`
      : '';
  const sourceText = `${s.source.label}${sessionText}`;
  const live = s.source.kind === 'current';
  const panes: Pane[] = [
    { id: 'gauge-section', title: t('paneContext'), body: () => renderGaugePane(s.gauge) },
    ...(s.pins
      ? [
          {
            id: 'pins-section',
            title: t('panePins'),
            body: (fold: Fold) =>
              renderPinsPane(s.pins!, s.now, live ? (id) => link.post({ type: 'unpin', id }) : undefined, fold),
          },
        ]
      : []),
    {
      id: 'notes-section',
      title: t('paneNotes'),
      body: (fold: Fold) => renderNotesPane(s.notes, s.now, (path) => link.post({ type: 'openFile', path }), fold),
    },
    { id: 'memory-section', title: t('paneMemory'), body: () => h('div', { id: 'memory-slot' }), after: renderMemory },
    ...(s.health
      ? [
          {
            id: 'health-section',
            title: healthText(document.documentElement.lang, 'paneHealth'),
            body: () => renderHealthPane(s.health!, s.now, live ? healthActions : undefined),
          },
        ]
      : []),
    {
      id: 'timeline-section',
      title: t('paneTimeline'),
      body: () => h('div', { id: 'timeline-slot' }),
      after: renderTimeline,
    },
    ...(s.mcp
      ? [{ id: 'mcp-section', title: t('paneMcp'), body: () => renderMcpPane(s.mcp!, live ? mcpActions : undefined) }]
      : []),
    ...(s.rules
      ? [{ id: 'rules-section', title: t('paneRules'), body: () => renderRulesPane(s.rules!, mcpActions.open) }]
      : []),
  ];
  app.replaceChildren(
    h(
      'header',
      { class: 'inspector-header' },
      h('h1', {}, t('title')),
      h(
        'span',
        { class: 'source', id: 'source-label', title: s.source.root },
        t('source', sourceText),
        // Which data folder is read: npm start, a setting or ENGRAM_DATA_DIR may point elsewhere than ~/.engram.
        h('span', { class: 'data-folder', id: 'data-folder' }, t('dataFolder', s.source.root)),
      ),
      s.source.readOnly ? h('span', { title: t('readOnlyHint') }, badge(t('readOnly'))) : null,
      s.source.kind !== 'current' ? headerButtons.useCurrent : null,
      headerButtons.pickSource,
      headerButtons.refresh,
    ),
    h(
      'nav',
      { class: 'pane-nav', 'aria-label': t('panes') },
      ...panes.map(({ id, title: label }) => {
        const a = h('a', { href: `#${id}` }, label);
        a.addEventListener('click', (event) => {
          event.preventDefault();
          drawAllPanes();
          const target = document.getElementById(id);
          target?.scrollIntoView({ block: 'start' });
          target?.focus({ preventScroll: true });
        });
        return a;
      }),
    ),
    statusLine,
  );
  // The first snapshot shows what is in view first; focus or a pane to reveal needs every section now.
  drawPanes(app, panes, !drawn && !focusKey && !focusEvent && !pendingPane);
  drawn = true;
  // Keep the keyboard where it was across refreshes.
  if (focusKey) document.querySelector<HTMLElement>(`#memory-tree [data-key="${CSS.escape(focusKey)}"]`)?.focus();
  if (focusEvent) document.querySelector<HTMLElement>(`.timeline-button[data-id="${CSS.escape(focusEvent)}"]`)?.focus();
  revealPendingPane();
}

function renderMemory(): void {
  const s = current;
  if (!s) return;
  const slot = document.getElementById('memory-slot') ?? document.getElementById('memory-body');
  const pane = renderMemoryPane(
    s.memory,
    s.source,
    s.now,
    { grouping: ui.grouping, collapsed: new Set(ui.collapsed), selected: ui.selectedEntry },
    memoryActions,
  );
  // The review queue leads the pane: what waits for the user comes before what is kept.
  const queue = renderReviewQueue(s.memory.review, s.source, s.now, pendingActions);
  if (queue) pane.prepend(queue);
  slot?.replaceWith(pane);
}

function renderTimeline(): void {
  const s = current;
  if (!s) return;
  const slot = document.getElementById('timeline-slot') ?? document.getElementById('timeline-body');
  const selected = s.timeline.find((e) => e.id === ui.selectedEvent);
  // Replaced messages never change for a compaction: asked for once, when first selected.
  if (selected?.kind === 'compaction' && !replaced.has(selected.id)) {
    replaced.set(selected.id, 'loading');
    link.post({ type: 'compactionDetails', requestId: `r${++nextRequest}`, id: selected.id });
  }
  slot?.replaceWith(
    renderTimelinePane(s.timeline, selected?.id, selected ? replaced.get(selected.id) : undefined, {
      select: (id) => selectEvent(id),
      openDiff: (id) => link.post({ type: 'openCompactionDiff', id }),
      undo: (id) => link.post({ type: 'undoCompaction', id }),
      ...(s.source.kind === 'current'
        ? {
            carry: (text: string) => link.post({ type: 'pinText', text, origin: 'dropped' }),
            carried: (text: string) => s.pins?.pins.some((p) => p.text === text) === true,
            openCheckpointDiff: (turn: number, promptUuid: string | undefined, path: string) =>
              link.post({ type: 'openCheckpointDiff', turn, ...(promptUuid ? { promptUuid } : {}), path }),
          }
        : {}),
    }),
  );
}

function selectEvent(id: string): void {
  ui.selectedEvent = id;
  saveUi();
  renderTimeline();
  document.querySelector<HTMLElement>(`.timeline-button[data-id="${CSS.escape(id)}"]`)?.focus();
}

link.post({ type: 'ready' });
warmUp(() => drawn, Object.values(headerButtons));
