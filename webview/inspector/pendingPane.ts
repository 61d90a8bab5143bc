// The memory pane's "Waiting for review" group: the toggle for `engram.memory.extraction.review`, and
// each memory the background agent proposed with what it would create or change (the whole new file,
// or a line diff against the file as it was when proposed) and Accept / Edit / Reject. Everything shown
// is text from the snapshot; the buttons are requests the host checks.
import type { InspectorSourceInfo, PendingMemoryView, ReviewQueueView } from '../../src/protocol/messages';
import { badge, button, h } from '../shared/components';
import { ago } from './format';
import { t, tn } from './strings';

export interface PendingActions {
  accept(id: string): void;
  edit(id: string): void;
  reject(id: string): void;
  setReview(on: boolean): void;
}

/** Lines of a proposal shown at most; the editor (Edit) has the rest. */
const MAX_LINES = 80;

export function renderReviewQueue(
  view: ReviewQueueView | undefined,
  source: InspectorSourceInfo,
  now: number,
  actions: PendingActions,
): HTMLElement | null {
  if (!view || source.kind === 'claude') return null;
  const toggle = h('input', { type: 'checkbox', id: 'review-toggle' });
  toggle.checked = view.on;
  toggle.disabled = source.readOnly;
  toggle.addEventListener('change', () => actions.setReview(toggle.checked));
  const head = h(
    'div',
    { class: 'review-head' },
    h(
      'h3',
      { id: 'review-title' },
      view.items.length > 0 ? tn('reviewTitleCount', view.items.length) : t('reviewTitle'),
    ),
    h(
      'label',
      { class: 'review-toggle', for: 'review-toggle', title: t('reviewToggleHint') },
      toggle,
      ` ${t('reviewToggle')}`,
    ),
  );
  const body = h(
    'div',
    { id: 'review-section', class: 'review-queue', role: 'region', 'aria-labelledby': 'review-title', tabindex: '-1' },
    head,
  );
  if (view.items.length === 0)
    body.append(h('p', { class: 'empty', id: 'review-empty' }, view.on ? t('reviewEmptyOn') : t('reviewEmptyOff')));
  for (const item of view.items) body.append(renderItem(item, now, source.readOnly, actions));
  if (view.problems.length > 0) {
    body.append(
      h(
        'details',
        { class: 'memory-warnings' },
        h('summary', {}, tn('warnings', view.problems.length)),
        h('ul', {}, ...view.problems.map((p) => h('li', {}, p))),
      ),
    );
  }
  return body;
}

function renderItem(item: PendingMemoryView, now: number, readOnly: boolean, actions: PendingActions): HTMLElement {
  const where = item.group === 'team' ? `team/${item.file}` : item.file;
  const actionText = item.action === 'create' ? t('reviewCreates', where) : t('reviewChanges', where);
  const buttons = readOnly
    ? null
    : h(
        'div',
        { class: 'pending-actions' },
        button(t('reviewAccept'), { id: `accept-${item.id}`, icon: 'check', onClick: () => actions.accept(item.id) }),
        button(t('reviewEdit'), {
          id: `edit-${item.id}`,
          appearance: 'secondary',
          icon: 'edit',
          onClick: () => actions.edit(item.id),
        }),
        button(t('reviewReject'), {
          id: `reject-${item.id}`,
          appearance: 'secondary',
          icon: 'close',
          onClick: () => actions.reject(item.id),
        }),
      );
  return h(
    'div',
    { class: 'pending-item', 'data-id': item.id, 'data-file': where },
    h(
      'div',
      { class: 'pending-title' },
      h('strong', {}, item.title),
      ' ',
      item.type ? badge(t(`type_${item.type}` as 'type_user')) : null,
      item.group === 'team' ? badge(t('teamGroup')) : null,
    ),
    h(
      'div',
      { class: 'pending-meta' },
      `${actionText} · ${t('reviewProposed', ago(Date.parse(item.proposedAt), now))}` +
        (item.writtenBy
          ? ` · ${t(item.writtenBy.via === 'vscode-lm' ? 'originClientLm' : 'originClientMcp', item.writtenBy.client)}`
          : ''),
    ),
    item.description ? h('div', { class: 'pending-description' }, item.description) : null,
    renderDiff(item.base, item.content),
    buttons,
  );
}

type Line = { kind: 'add' | 'del' | 'ctx'; text: string };

function renderDiff(base: string | null, content: string): HTMLElement {
  const lines =
    base === null
      ? split(content).map((text): Line => ({ kind: 'add', text }))
      : diffLines(split(base), split(content));
  const shown = lines.slice(0, MAX_LINES);
  return h(
    'div',
    {
      class: 'pending-diff diff-body',
      role: 'group',
      'aria-label': base === null ? t('reviewNewFile') : t('reviewDiff'),
    },
    ...shown.map((l) =>
      h(
        'div',
        { class: `diff-line diff-${l.kind}` },
        `${l.kind === 'add' ? '+' : l.kind === 'del' ? '-' : ' '} ${l.text}`,
      ),
    ),
    lines.length > shown.length
      ? h('div', { class: 'diff-more' }, t('reviewMoreLines', lines.length - shown.length))
      : null,
  );
}

function split(text: string): string[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A line diff by longest common subsequence (topic files are small). */
function diffLines(a: string[], b: string[]): Line[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const out: Line[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ kind: 'ctx', text: a[i] });
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out.push({ kind: 'add', text: b[j++] });
    } else {
      out.push({ kind: 'del', text: a[i++] });
    }
  }
  return out;
}
