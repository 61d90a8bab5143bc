// The Health view (issue 32): each memory checked against the workspace, problems first. A summary line
// ("3 stale, 1 duplicate pair, 1 contradiction"), then per memory what it names that is gone (the
// reference, its kind and why), the memories it repeats (with Merge) or contradicts (with the note
// saying both sides), and how it was used; Open, Update (the topic file at its first stale reference)
// and Prune (undoable, as in the memory tree). Everything shown is data from the host, as text.
import type { HealthEntryView, HealthView } from '../../src/protocol/messages';
import { h, icon, lightButton } from '../shared/components';
import { ago, clock } from './format';
import { healthText, type HealthKey } from './healthStrings';

/** The text of `key` in the page's language. */
function t(key: HealthKey, ...args: Array<string | number>): string {
  return healthText(document.documentElement.lang, key, ...args);
}

/** "3 stale, 1 duplicate pair, 1 contradiction": the kinds of problem found, with their counts. */
function summaryText(view: HealthView): string {
  const n = (key: 'healthPairs' | 'healthContradictions', count: number) => t(count === 1 ? `${key}_one` : key, count);
  return [
    t('healthStaleCount', view.stale),
    n('healthPairs', view.duplicatePairs),
    n('healthContradictions', view.contradictions),
  ].join(t('healthSeparator'));
}

export interface HealthActions {
  open(path: string): void;
  update(group: HealthEntryView['group'], file: string): void;
  merge(group: HealthEntryView['group'], file: string, other: string): void;
  prune(group: HealthEntryView['group'], file: string): void;
  /** Tidy memory: the model proposes merges, rewrites and deletions, each shown as a diff to accept (issue 32). */
  tidy(): void;
}

const UNAVAILABLE_TEXT = {
  memoryOff: 'healthMemoryOff',
  noWorkspace: 'healthNoWorkspace',
  otherSource: 'healthOtherSource',
  untrusted: 'healthUntrusted',
} as const;

/** The pane's body; `actions` is absent when nothing may be changed (the buttons are then not drawn). */
export function renderHealthPane(view: HealthView, now: number, actions?: HealthActions): HTMLElement {
  const body = h('div', { id: 'health-body', class: 'health-pane' });
  const why = view.unavailable ? t(UNAVAILABLE_TEXT[view.unavailable]) : undefined;
  if (why) {
    body.append(h('p', { class: 'empty', id: 'health-unavailable' }, why));
    return body;
  }
  if (view.error)
    body.append(
      h(
        'p',
        { class: 'health-error', id: 'health-error', role: 'status' },
        icon('error'),
        ' ',
        t('healthError', view.error),
      ),
    );
  if (view.checking)
    body.append(
      h(
        'p',
        { class: 'health-checking', id: 'health-checking' },
        icon('loading codicon-modifier-spin'),
        ' ',
        t('healthChecking'),
      ),
    );
  if (view.checkedAt === undefined) return body;
  if (view.entries.length === 0) {
    body.append(h('p', { class: 'empty', id: 'health-none' }, t('healthNone')));
    return body;
  }
  const problems = view.stale + view.duplicatePairs + view.contradictions;
  body.append(
    h(
      'p',
      {
        class: `health-summary${problems > 0 ? ' health-summary-problems' : ''}`,
        id: 'health-summary',
        role: 'status',
      },
      icon(problems > 0 ? 'warning' : 'pass'),
      ' ',
      problems > 0 ? summaryText(view) : t('healthAllGood', view.entries.length),
    ),
    h(
      'p',
      { class: 'health-checked' },
      t('healthCheckedAt', view.workspace ?? '', clock(view.checkedAt)),
      actions
        ? h(
            'span',
            { class: 'health-tidy' },
            ' ',
            lightButton(t('healthTidy'), {
              look: 'link',
              icon: 'sparkle',
              id: 'health-tidy',
              title: t('healthTidyTitle'),
              onClick: () => actions.tidy(),
            }),
          )
        : null,
    ),
    h(
      'ul',
      { class: 'health-list', id: 'health-list', 'aria-label': t('paneHealth') },
      ...view.entries.map((e) => row(e, now, actions)),
    ),
  );
  return body;
}

function row(e: HealthEntryView, now: number, actions?: HealthActions): HTMLElement {
  const problem = e.stale.length + e.duplicates.length + e.contradicts.length > 0;
  const li = h(
    'li',
    { class: `health-row${problem ? ' health-problem' : ''}`, 'data-file': e.file },
    h(
      'div',
      { class: 'health-head' },
      icon(problem ? 'warning' : 'check'),
      h('span', { class: 'health-title' }, e.title),
      h('span', { class: 'health-file' }, e.file),
      e.group === 'team' ? h('span', { class: 'badge' }, t('healthTeam')) : null,
      ...(actions ? buttons(e, actions) : []),
    ),
  );
  if (e.stale.length > 0)
    li.append(
      h('div', { class: 'health-label' }, t('healthStale')),
      h(
        'ul',
        { class: 'health-stale' },
        ...e.stale.map((s) =>
          h(
            'li',
            { 'data-ref': s.ref },
            h('code', {}, s.ref),
            ' ',
            h('span', { class: 'health-kind' }, t(`kind_${s.kind}` as HealthKey)),
            ' — ',
            s.reason,
          ),
        ),
      ),
    );
  for (const c of e.contradicts)
    li.append(
      h(
        'div',
        { class: 'health-contradicts' },
        h('span', { class: 'health-label' }, t('healthContradicts')),
        ' ',
        c.title,
      ),
    );
  for (const note of e.contradictionNotes) li.append(h('div', { class: 'health-note' }, note));
  for (const d of e.duplicates) {
    const other = d.file.startsWith('team/')
      ? { group: 'team', file: d.file.slice(5) }
      : { group: 'private', file: d.file };
    li.append(
      h(
        'div',
        { class: 'health-duplicates' },
        h('span', { class: 'health-label' }, t('healthDuplicates')),
        ' ',
        d.title,
        actions && other.group === e.group
          ? action(
              'healthMerge',
              'health-merge',
              'merge',
              () => actions.merge(e.group, e.entryFile, other.file),
              t('healthMergeTitle', d.title),
            )
          : null,
      ),
    );
  }
  const last = e.lastUsed ? Date.parse(e.lastUsed) : Number.NaN;
  li.append(
    h(
      'div',
      { class: 'health-counts' },
      t('healthCounts', e.recalled, e.used, e.notRelevant, e.corrected),
      ' · ',
      Number.isNaN(last) ? t('healthNeverUsed') : t('healthLastUsed', ago(last, now)),
    ),
  );
  for (const note of e.notes) li.append(h('div', { class: 'health-note' }, note));
  return li;
}

/** A link-look button with `cls` (tests and styles find each action by it). */
function action(label: HealthKey, cls: string, iconName: string, onClick: () => void, title?: string): HTMLElement {
  const el = lightButton(t(label), { look: 'link', icon: iconName, ...(title ? { title } : {}), onClick });
  el.classList.add(cls);
  return el;
}

function buttons(e: HealthEntryView, actions: HealthActions): HTMLElement[] {
  return [
    action('healthOpen', 'health-open', 'go-to-file', () => actions.open(e.path)),
    e.stale.length > 0
      ? action(
          'healthUpdate',
          'health-update',
          'edit',
          () => actions.update(e.group, e.entryFile),
          t('healthUpdateTitle'),
        )
      : null,
    action('healthPrune', 'health-prune', 'trash', () => actions.prune(e.group, e.entryFile), t('healthPruneTitle')),
  ].filter((b): b is HTMLElement => b !== null);
}
