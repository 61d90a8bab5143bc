// The memory tree: CLAUDE.md files, MEMORY.md entries grouped by type (or in index order), files the
// index misses or that it points to in vain, team memory, and recently pruned entries. Entries past the
// index cap sit below a visible cut-off line and carry a "cut" badge. Rows are plain elements (hundreds
// of them render fast); the actions live in the details panel of the selected row.
import type {
  InstructionView,
  MemoryEntryView,
  MemoryKind,
  MemoryView,
  TeamMemoryView,
  TrashView,
} from '../../src/protocol/messages';
import { hiddenCharsIn, showHiddenChars } from '../../src/protocol/hiddenChars';
import { h, icon, setText } from '../shared/components';
import { usesBadge, usesText } from './capBanner';
import { age, ago, num } from './format';
import { t, type StringKey } from './strings';
import { pulledText, syncBadgeText, syncLongText, teamSyncSummary } from './teamSync';

export type TreePayload =
  | { kind: 'entry'; entry: MemoryEntryView }
  | { kind: 'instruction'; file: InstructionView }
  | { kind: 'trash'; item: TrashView }
  /** A synced team file the index has no entry for (the team MEMORY.md itself, say). */
  | { kind: 'teamFile'; file: TeamMemoryView['files'][number] }
  /** The team group itself: its details tell the last sync and offer a new one. */
  | { kind: 'teamGroup'; team: TeamMemoryView | undefined }
  | { kind: 'group' };

export interface TreeUi {
  grouping: 'type' | 'line';
  collapsed: ReadonlySet<string>;
  selected: string | undefined;
}

const TYPES: Array<MemoryKind | null> = ['user', 'feedback', 'project', 'reference', null];
const TYPE_ICON: Record<string, string> = {
  user: 'account',
  feedback: 'feedback',
  project: 'project',
  reference: 'references',
  null: 'question',
};

export interface RenderedTree {
  tree: HTMLElement;
  payloads: Map<string, TreePayload>;
}

export function renderMemoryTree(view: MemoryView, now: number, ui: TreeUi): RenderedTree {
  const payloads = new Map<string, TreePayload>();
  const tree = h('ul', { class: 'tree', role: 'tree', id: 'memory-tree', 'aria-label': t('memoryTree') });
  const group = (
    key: string,
    label: string,
    iconName: string,
    children: HTMLElement[],
    extraClass = '',
    note?: HTMLElement,
  ): void => {
    const expanded = !ui.collapsed.has(key);
    if (!payloads.has(key)) payloads.set(key, { kind: 'group' });
    const items = h('ul', { role: 'group' }, ...children);
    items.hidden = !expanded;
    const count = children.filter((c) => c.getAttribute('role') === 'treeitem').length;
    tree.append(
      h(
        'li',
        {
          role: 'treeitem',
          'aria-level': '1',
          'aria-expanded': String(expanded),
          'aria-selected': 'false',
          tabindex: '-1',
          'data-key': key,
          class: `tree-group ${extraClass}`,
          'aria-label': `${label} (${count})${note ? `, ${note.textContent}` : ''}`,
        },
        h(
          'div',
          { class: 'tree-row' },
          h('span', {
            class: `tree-chevron codicon codicon-chevron-${expanded ? 'down' : 'right'}`,
            'aria-hidden': 'true',
          }),
          icon(iconName),
          h('span', { class: 'group-label' }, label),
          h('span', { class: 'group-count' }, String(count)),
          note,
        ),
        items,
      ),
    );
  };

  const instructionRows = view.instructions.map((f) => {
    const key = `instruction:${f.path}`;
    payloads.set(key, { kind: 'instruction', file: f });
    const scope = t(`scope_${f.scope}` as StringKey);
    const tokens = t('tokensShort', num(f.tokens));
    const cut = f.truncated ? span('badge badge-cut', t('instructionCut'), t('instructionCutLong')) : null;
    const el = row(
      key,
      'instruction',
      'book',
      f.label,
      scope,
      [...(cut ? [cut] : []), span('entry-tokens', tokens)],
      [f.path, scope, f.truncated ? t('instructionCut') : '', tokens].filter(Boolean).join(', '),
    );
    el.title = f.path;
    el.dataset.file = f.label;
    return el;
  });
  // Untrusted: say the project's files were left out, so an empty or short list is not read as "none".
  const skipped = view.projectInstructionsSkipped
    ? [h('li', { role: 'none', class: 'tree-note', id: 'instructions-skipped' }, t('instructionsSkipped'))]
    : [];
  group('group:instructions', t('instructions'), 'book', [
    ...skipped,
    ...(instructionRows.length || skipped.length
      ? instructionRows
      : [h('li', { role: 'none', class: 'tree-empty' }, t('noInstructions'))]),
  ]);

  const mine = view.entries.filter((e) => e.group === 'private');
  const entryRow = (e: MemoryEntryView) => {
    payloads.set(e.key, { kind: 'entry', entry: e });
    return entryItem(e, now, view.team?.serverMaxEntries ?? null);
  };
  const withCutoff = (list: MemoryEntryView[]): HTMLElement[] => {
    const out: HTMLElement[] = [];
    let cutShown = false;
    for (const e of list) {
      if (!e.loaded && e.indexed && !cutShown) {
        out.push(cutoffRow(view.loadedLines));
        cutShown = true;
      }
      out.push(entryRow(e));
    }
    return out;
  };
  if (ui.grouping === 'type') {
    for (const type of TYPES) {
      const list = mine.filter((e) => !e.missing && e.type === type);
      if (list.length === 0) continue;
      group(
        `group:type:${type}`,
        t(`type_${type}` as StringKey),
        TYPE_ICON[String(type)],
        withCutoff(list),
        `type-${type}`,
      );
    }
    const missing = mine.filter((e) => e.missing);
    if (missing.length) group('group:missing', t('missingGroup'), 'warning', withCutoff(missing));
  } else if (mine.length) {
    group('group:index', 'MEMORY.md', 'list-ordered', withCutoff(mine));
  }
  const unindexed = view.unindexed.filter((e) => e.group === 'private');
  if (unindexed.length) group('group:unindexed', t('unindexedGroup'), 'circle-slash', unindexed.map(entryRow));
  const team = [...view.entries, ...view.unindexed].filter((e) => e.group === 'team');
  const teamFiles = (view.team?.files ?? []).map((f) => {
    const key = `teamFile:${f.file}`;
    payloads.set(key, { kind: 'teamFile', file: f });
    const badge = syncBadgeText(f.sync);
    // The badge says what a pull did to a synced file; a conflict's row also says the local copy was kept.
    const pulled = f.sync.status.state === 'conflict' ? pulledText(f.sync) : '';
    const el = row(
      key,
      'team-file',
      'file',
      f.file,
      pulled,
      [span(badge.className, badge.text, syncLongText(f.sync, view.team?.serverMaxEntries ?? null))],
      [f.file, badge.text, pulled].filter(Boolean).join(', '),
    );
    el.dataset.file = f.file;
    el.dataset.sync = f.sync.status.state;
    return el;
  });
  if (team.length || view.team) {
    const summary = teamSyncSummary(view.team, now);
    const note = span(`group-sync${summary.failed ? ' group-sync-failed' : ''}`, summary.text, summary.title);
    note.id = 'team-sync-summary';
    payloads.set('group:team', { kind: 'teamGroup', team: view.team });
    group('group:team', t('teamGroup'), 'organization', [...team.map(entryRow), ...teamFiles], '', note);
  }
  if (view.trash.length) {
    group(
      'group:trash',
      t('trashGroup'),
      'trash',
      view.trash.map((item) => {
        const key = `trash:${item.group}:${item.id}`;
        payloads.set(key, { kind: 'trash', item });
        const when = Date.parse(item.prunedAt);
        // Its title, as in the tree it left, and "Pruned just now" rather than a bare age.
        const ageText = Number.isFinite(when) ? t('prunedAt', ago(when, now)) : t('pruned');
        const title = item.title ?? item.file;
        const el = row(
          key,
          'trash',
          'trash',
          title,
          ageText,
          [span('entry-file', item.file)],
          `${title}, ${item.file}, ${ageText}`,
        );
        el.dataset.file = item.file;
        return el;
      }),
    );
  }

  // One tab stop: the selected item, else the first.
  const items = Array.from(tree.querySelectorAll<HTMLElement>('[role="treeitem"]'));
  const selected =
    items.find((el) => el.dataset.key === ui.selected && !el.parentElement?.closest('[role="group"][hidden]')) ??
    items[0];
  if (selected) {
    selected.tabIndex = 0;
    if (selected.dataset.key === ui.selected) selected.setAttribute('aria-selected', 'true');
  }
  return { tree, payloads };
}

let rowTemplate: HTMLElement | undefined;

/** A tree row, cloned from a template: hundreds of rows render several times faster than built node by node. */
function row(
  key: string,
  kind: string,
  iconName: string,
  title: string,
  hook: string,
  meta: HTMLElement[],
  label: string,
): HTMLElement {
  rowTemplate ??= h(
    'li',
    { role: 'treeitem', 'aria-level': '2', 'aria-selected': 'false', tabindex: '-1' },
    h(
      'div',
      { class: 'tree-row' },
      h('span', { 'aria-hidden': 'true' }),
      h('span', { class: 'entry-title' }),
      h('span', { class: 'entry-hook' }),
      h('span', { class: 'entry-meta' }),
    ),
  );
  const li = rowTemplate.cloneNode(true) as HTMLElement;
  li.className = `tree-entry tree-${kind}`;
  li.dataset.key = key;
  li.setAttribute('aria-label', showHiddenChars(label));
  const [glyph, titleEl, hookEl, metaEl] = Array.from((li.firstChild as HTMLElement).children) as HTMLElement[];
  glyph.className = `codicon codicon-${iconName}`;
  setText(titleEl, title);
  setText(hookEl, hook);
  metaEl.append(...meta);
  return li;
}

function span(className: string, text: string, title?: string): HTMLElement {
  const el = document.createElement('span');
  el.className = className;
  setText(el, text);
  if (title) el.title = showHiddenChars(title);
  return el;
}

function entryItem(e: MemoryEntryView, now: number, serverMaxEntries: number | null): HTMLElement {
  const status = e.missing ? t('missing') : !e.indexed ? '' : e.loaded ? t('loaded') : t('cut');
  const meta: HTMLElement[] = [];
  const tokens = e.tokens !== null ? t('tokensShort', num(e.tokens)) : '';
  const sync = e.sync ? syncBadgeText(e.sync) : undefined;
  if (e.sync && sync) {
    meta.push(span(sync.className, sync.text, syncLongText(e.sync, serverMaxEntries)));
  }
  const hidden = hiddenCharsIn(e.title, e.hook, e.file);
  if (hidden.length) meta.push(span('badge badge-hidden', t('hiddenChars'), t('hiddenCharsLong', hidden.join(' '))));
  if (e.missing) meta.push(span('badge badge-missing', t('missing'), t('missingLong')));
  if (e.indexed && !e.loaded) meta.push(span('badge badge-cut', t('cut'), t('cutLong')));
  const uses = usesBadge(e);
  if (uses) meta.push(uses);
  if (tokens) meta.push(span('entry-tokens', tokens));
  if (e.mtimeMs !== null) meta.push(span('entry-age', age(e.mtimeMs, now)));
  meta.push(e.line !== null ? span('entry-line', `L${e.line}`) : span('entry-file', e.file));
  const typeText = e.type ? t(`type_${e.type}` as StringKey) : t('type_null');
  const parts = [
    typeText,
    sync?.text,
    hidden.length ? t('hiddenChars') : '',
    status,
    tokens,
    e.line !== null ? t('line', e.line) : t('unindexedLong'),
    usesText(e),
  ].filter(Boolean);
  const el = row(
    e.key,
    'memory',
    e.missing ? 'warning' : TYPE_ICON[String(e.type)],
    e.title,
    e.hook,
    meta,
    `${e.title}, ${parts.join(', ')}`,
  );
  const cutClass = e.indexed && !e.loaded ? ' cut' : '';
  const missingClass = e.missing ? ' missing' : '';
  const hiddenClass = hidden.length ? ' has-hidden' : '';
  el.className += ` type-${e.type}${cutClass}${missingClass}${hiddenClass}`;
  el.dataset.file = e.file;
  el.dataset.type = String(e.type);
  if (e.sync) el.dataset.sync = e.sync.status.state;
  return el;
}

function cutoffRow(loadedLines: number): HTMLElement {
  return h(
    'li',
    { role: 'none', class: 'cutoff' },
    h('span', { class: 'cutoff-text' }, icon('fold'), t('cutoff', loadedLines)),
  );
}
