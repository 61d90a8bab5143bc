// The memory pane: a summary line, warnings, the tree, and the details and actions of the selected row.
// Keys in the tree: Enter opens, F2 renames, Delete prunes (pruning always has Undo).
import type {
  EntryGroup,
  InspectorSourceInfo,
  MemoryEntryView,
  MemoryView,
  TeamFileSyncView,
  TeamMemoryView,
  TrashView,
} from '../../src/protocol/messages';
import { hiddenCharsIn } from '../../src/protocol/hiddenChars';
import { button, h, lightButton } from '../shared/components';
import { renderCapBanner, type CapBannerActions } from './capBanner';
import { ago, dateTime, num } from './format';
import { renderMemoryTree, type TreePayload, type TreeUi } from './memoryTree';
import { t, tn, type StringKey } from './strings';
import { pulledText, syncBadgeText, syncCounts, syncLongText, teamSyncSummary } from './teamSync';
import { attachTree } from './treeNav';

export interface MemoryActions extends CapBannerActions {
  open(path: string): void;
  reveal(path: string): void;
  rename(group: EntryGroup, file: string): void;
  changeType(group: EntryGroup, file: string): void;
  prune(group: EntryGroup, file: string): void;
  undoNotRelevant(group: EntryGroup, file: string, index: number): void;
  restore(item: TrashView): void;
  deleteForGood(item: TrashView): void;
  openOrigin(sessionId: string, messageId: string | undefined): void;
  inspectSession(sessionId: string): void;
  syncTeam(): void;
  setGrouping(grouping: 'type' | 'line'): void;
  toggled(key: string, expanded: boolean): void;
  selected(key: string): void;
}

export function renderMemoryPane(
  view: MemoryView,
  source: InspectorSourceInfo,
  now: number,
  ui: TreeUi,
  actions: MemoryActions,
): HTMLElement {
  const body = h('div', { id: 'memory-body' });
  const indexed = view.entries.filter((e) => e.group === 'private');
  const summary = h(
    'p',
    { class: 'memory-summary', id: 'memory-summary' },
    view.dir
      ? tn('memorySummary', indexed.length, indexed.filter((e) => e.loaded).length, view.totalLines, view.maxLines)
      : t('memoryOff'),
  );
  const grouping = h(
    'div',
    { class: 'segmented', role: 'radiogroup', 'aria-label': t('groupBy') },
    h('span', { class: 'segmented-label' }, `${t('groupBy')}:`),
    radio(t('byType'), ui.grouping === 'type', () => actions.setGrouping('type'), 'group-by-type'),
    radio(t('byLine'), ui.grouping === 'line', () => actions.setGrouping('line'), 'group-by-line'),
  );
  body.append(h('div', { class: 'pane-toolbar' }, summary, grouping));
  for (const cap of [
    renderCapBanner(view.cap, source.readOnly, actions),
    renderCapBanner(view.teamCap, source.readOnly, actions, 'team'),
  ]) {
    if (cap) body.append(cap);
  }
  if (view.warnings.length) {
    const details = h(
      'details',
      { class: 'memory-warnings' },
      h('summary', {}, tn('warnings', view.warnings.length)),
      h('ul', {}, ...view.warnings.map((w) => h('li', {}, w))),
    );
    body.append(details);
  }
  if (view.dir && view.entries.length === 0 && view.unindexed.length === 0 && view.trash.length === 0) {
    body.append(h('p', { class: 'empty' }, t('memoryNone')));
  }
  const { tree, payloads } = renderMemoryTree(view, now, ui);
  const details = h('div', {
    class: 'entry-details',
    id: 'entry-details',
    role: 'region',
    'aria-label': t('details'),
    'aria-live': 'polite',
  });
  const show = (key: string | undefined) => {
    details.replaceChildren(
      ...detailsOf(key ? payloads.get(key) : undefined, source, now, actions, view.team?.serverMaxEntries ?? null),
    );
  };
  attachTree(tree, {
    select: (item) => {
      const key = item.dataset.key!;
      actions.selected(key);
      show(key);
    },
    activate: (item) => {
      const p = payloads.get(item.dataset.key!);
      if (p?.kind === 'entry' && !p.entry.missing) actions.open(p.entry.path);
      else if (p?.kind === 'instruction' || p?.kind === 'teamFile') actions.open(p.file.path);
    },
    toggled: (item, expanded) => actions.toggled(item.dataset.key!, expanded),
    key: (item, event) => {
      const p = payloads.get(item.dataset.key!);
      if (p?.kind !== 'entry') return false;
      if (event.key === 'F2' && !source.readOnly) actions.rename(p.entry.group, p.entry.file);
      else if (event.key === 'Delete') actions.prune(p.entry.group, p.entry.file);
      else return false;
      return true;
    },
  });
  show(ui.selected && payloads.has(ui.selected) ? ui.selected : undefined);
  body.append(h('div', { class: 'memory-layout' }, h('div', { class: 'tree-box' }, tree), details));
  return body;
}

function radio(label: string, checked: boolean, onClick: () => void, id: string): HTMLElement {
  const el = lightButton(label, { id, onClick });
  el.setAttribute('role', 'radio');
  el.setAttribute('aria-checked', String(checked));
  el.classList.toggle('checked', checked);
  return el;
}

function detailsOf(
  p: TreePayload | undefined,
  source: InspectorSourceInfo,
  now: number,
  actions: MemoryActions,
  serverMaxEntries: number | null,
): Array<Node | string> {
  if (!p || p.kind === 'group') return [h('p', { class: 'empty' }, t('selectEntry'))];
  if (p.kind === 'teamGroup') return teamDetails(p.team, source, now, actions);
  if (p.kind === 'teamFile') {
    const f = p.file;
    return [
      h('h3', {}, f.file),
      facts([
        [t('file'), f.file],
        [t('syncState'), syncFact(f.sync, serverMaxEntries)],
      ]),
      h(
        'div',
        { class: 'detail-actions' },
        button(t('open'), { icon: 'go-to-file', id: 'entry-open', onClick: () => actions.open(f.path) }),
        keptButton(f.sync, actions),
      ),
    ];
  }
  if (p.kind === 'instruction') {
    const f = p.file;
    return [
      h('h3', {}, f.label),
      facts([
        [t('path'), f.path],
        [t('type'), t(`scope_${f.scope}` as StringKey)],
        [t('tokens'), f.truncated ? `${num(f.tokens)} (${t('instructionCutLong')})` : num(f.tokens)],
        ...(f.importedFrom ? [[t('importedBy'), f.importedFrom] as [string, string]] : []),
      ]),
      h(
        'div',
        { class: 'detail-actions' },
        button(t('open'), { icon: 'go-to-file', id: 'entry-open', onClick: () => actions.open(p.file.path) }),
        button(t('reveal'), {
          appearance: 'secondary',
          icon: 'folder-opened',
          id: 'entry-reveal',
          onClick: () => actions.reveal(p.file.path),
        }),
      ),
    ];
  }
  if (p.kind === 'trash') {
    const item = p.item;
    return [
      h('h3', {}, item.title ?? item.file),
      facts([
        [t('file'), item.file],
        [t('pruned'), `${dateTime(Date.parse(item.prunedAt))} (${ago(Date.parse(item.prunedAt), now)})`],
      ]),
      h(
        'div',
        { class: 'detail-actions' },
        button(t('restore'), { icon: 'discard', id: 'trash-restore', onClick: () => actions.restore(item) }),
        button(t('deleteForGood'), {
          appearance: 'secondary',
          icon: 'trash',
          id: 'trash-delete',
          onClick: () => actions.deleteForGood(item),
        }),
      ),
    ];
  }
  return entryDetails(p.entry, source, now, actions, serverMaxEntries);
}

/** The team group: which repository and server, the last sync in full, and "Sync now" (live session only). */
function teamDetails(
  team: TeamMemoryView | undefined,
  source: InspectorSourceInfo,
  now: number,
  actions: MemoryActions,
): Array<Node | string> {
  const summary = teamSyncSummary(team, now);
  const last = team?.lastSync;
  const rows: Array<[string, string | Node]> = [];
  if (team?.repo) rows.push([t('teamRepoLabel'), team.repo]);
  if (team?.server) rows.push([t('teamServerLabel'), team.server]);
  rows.push([
    t('teamLastSyncLabel'),
    h(
      'span',
      { id: 'team-last-sync', class: summary.failed ? 'group-sync-failed' : '' },
      last?.ok ? syncCounts(last, true) : summary.text,
    ),
  ]);
  if (last) rows.push([t('teamLastSyncAt'), `${dateTime(Date.parse(last.at))} (${ago(Date.parse(last.at), now)})`]);
  if (last?.retries) rows.push([t('teamRetries'), String(last.retries)]);
  if (team?.serverMaxEntries) rows.push([t('teamMaxEntries'), num(team.serverMaxEntries)]);
  return [
    h('h3', {}, t('teamGroup')),
    facts(rows),
    source.kind === 'current'
      ? h(
          'div',
          { class: 'detail-actions' },
          button(t('teamSyncNow'), { icon: 'sync', id: 'team-sync-now', onClick: () => actions.syncTeam() }),
        )
      : null,
  ].filter((n): n is HTMLElement => n !== null);
}

/** The sync state in words, with its badge (blocked, skipped and conflict say why and what to do). */
function syncFact(sync: TeamFileSyncView, serverMaxEntries: number | null): HTMLElement {
  const badge = syncBadgeText(sync);
  const pulled = pulledText(sync);
  return h(
    'span',
    { class: 'sync-fact', id: 'entry-sync' },
    h('span', { class: badge.className }, badge.text),
    ` ${syncLongText(sync, serverMaxEntries)}`,
    pulled ? ` · ${pulled} ${t('pulledLong')}` : '',
  );
}

/** A conflict's local copy (kept in team/.conflicts) opens like any file the snapshot names. */
function keptButton(sync: TeamFileSyncView, actions: MemoryActions): HTMLElement | null {
  const s = sync.status;
  if (s.state !== 'conflict') return null;
  return button(t('openKept'), {
    appearance: 'secondary',
    icon: 'history',
    id: 'entry-open-kept',
    onClick: () => actions.open(s.keptPath),
  });
}

function entryDetails(
  e: MemoryEntryView,
  source: InspectorSourceInfo,
  now: number,
  actions: MemoryActions,
  serverMaxEntries: number | null,
): Array<Node | string> {
  const status = e.missing ? t('missingLong') : !e.indexed ? t('unindexedLong') : e.loaded ? t('loaded') : t('cutLong');
  // `recovered` (RECOVERED_ORIGIN in memoryWriter.ts) names no session: nothing to open.
  const origin = e.writtenBy
    ? h(
        'span',
        { class: 'origin', id: 'entry-written-by' },
        t(e.writtenBy.via === 'vscode-lm' ? 'originClientLm' : 'originClientMcp', e.writtenBy.client),
      )
    : e.origin?.sessionId === 'recovered'
      ? h('span', {}, t('originRecovered'))
      : e.origin
        ? h(
            'span',
            { class: 'origin' },
            lightButton(t('originLink', e.origin.sessionId), {
              look: 'link',
              id: 'entry-origin',
              onClick: () => actions.openOrigin(e.origin!.sessionId, e.origin!.messageId),
            }),
            e.origin.messageId ? ` · ${t('originMessage', e.origin.messageId)} · ` : ' · ',
            lightButton(t('inspectOrigin'), {
              look: 'link',
              id: 'entry-inspect-origin',
              onClick: () => actions.inspectSession(e.origin!.sessionId),
            }),
          )
        : h('span', { class: 'empty' }, t('noOrigin'));
  const canEdit = !source.readOnly && !e.missing;
  const hidden = hiddenCharsIn(e.title, e.hook, e.file);
  return [
    h('h3', { class: 'entry-details-title' }, e.title),
    ...(hidden.length
      ? [
          h(
            'p',
            { class: 'entry-hidden-chars', id: 'entry-hidden-chars', role: 'note' },
            t('hiddenCharsDetail', hidden.join(' ')),
          ),
        ]
      : []),
    facts([
      [t('file'), e.file],
      [t('hook'), e.hook],
      [t('type'), e.type ? t(`type_${e.type}` as StringKey) : t('type_null')],
      [t('tokens'), e.tokens !== null ? num(e.tokens) : '—'],
      [t('age'), e.mtimeMs !== null ? `${ago(e.mtimeMs, now)} (${dateTime(e.mtimeMs)})` : '—'],
      ['MEMORY.md', e.line !== null ? `${t('line', e.line)} · ${status}` : status],
      [t('origin'), origin],
      ...(e.sync ? [[t('syncState'), syncFact(e.sync, serverMaxEntries)] as [string, Node]] : []),
      ...(e.notRelevant?.length ? [[t('notRelevantFor'), notRelevantFact(e, actions)] as [string, Node]] : []),
    ]),
    h(
      'div',
      { class: 'detail-actions' },
      e.missing
        ? null
        : button(t('open'), { icon: 'go-to-file', id: 'entry-open', onClick: () => actions.open(e.path) }),
      e.missing
        ? null
        : button(t('reveal'), {
            appearance: 'secondary',
            icon: 'folder-opened',
            id: 'entry-reveal',
            onClick: () => actions.reveal(e.path),
          }),
      e.sync ? keptButton(e.sync, actions) : null,
      canEdit
        ? button(t('rename'), {
            appearance: 'secondary',
            icon: 'edit',
            id: 'entry-rename',
            onClick: () => actions.rename(e.group, e.file),
          })
        : null,
      canEdit
        ? button(t('changeType'), {
            appearance: 'secondary',
            icon: 'tag',
            id: 'entry-type',
            onClick: () => actions.changeType(e.group, e.file),
          })
        : null,
      button(t('prune'), {
        appearance: 'secondary',
        icon: 'trash',
        id: 'entry-prune',
        onClick: () => actions.prune(e.group, e.file),
      }),
    ),
  ];
}

/** "deploy, staging · Undo", one line per message the person said the memory was not relevant to. */
function notRelevantFact(e: MemoryEntryView, actions: MemoryActions): HTMLElement {
  return h(
    'span',
    { class: 'not-relevant', id: 'entry-not-relevant' },
    ...(e.notRelevant ?? []).map((words, i) =>
      h(
        'span',
        { class: 'not-relevant-line' },
        `${words.join(', ')} · `,
        lightButton(t('undo'), {
          look: 'link',
          id: `entry-not-relevant-undo-${i}`,
          onClick: () => actions.undoNotRelevant(e.group, e.file, i),
        }),
      ),
    ),
  );
}

function facts(rows: Array<[string, string | Node]>): HTMLElement {
  const dl = h('dl', { class: 'facts' });
  for (const [k, v] of rows) dl.append(h('dt', {}, k), h('dd', {}, v));
  return dl;
}
