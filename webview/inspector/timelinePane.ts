// The timeline: notes updates, memory writes and compactions in order, as a labelled list. Each event is
// a button (arrow keys move between them); selecting a compaction shows its numbers, its summary and the
// messages it replaced (as text), with "Open as diff" and, for the newest one, "Undo compaction".
import type { ReplacedMessageView, TimelineView } from '../../src/protocol/messages';
import { showHiddenChars } from '../../src/protocol/hiddenChars';
import { button, h, setText } from '../shared/components';
import { renderMarkdown } from '../shared/markdown';
import { clock, dateTime, num } from './format';
import { t, tn, tOr } from './strings';
import { summaryParts } from './summaryParts';
import { droppedTotal, renderDropped } from './droppedList';
import { checkpointDetails, checkpointIcon, describeCheckpoint, type OpenCheckpointDiff } from './checkpointRows';

export interface TimelineActions {
  select(id: string): void;
  openDiff(id: string): void;
  undo(id: string): void;
  /** "Carry it" on a dropped item: pin its text (the live session only). */
  carry?(text: string): void;
  /** Whether the live session pins `text` already (its "Carry it" reads "Carried"). */
  carried?(text: string): boolean;
  /** A checkpoint row's file: the turn's diff of it (the live session only). */
  openCheckpointDiff?: OpenCheckpointDiff;
}

export type ReplacedState = 'loading' | { messages: ReplacedMessageView[]; error?: string };

export function renderTimelinePane(
  timeline: readonly TimelineView[],
  selected: string | undefined,
  replaced: ReplacedState | undefined,
  actions: TimelineActions,
): HTMLElement {
  const body = h('div', { id: 'timeline-body' });
  if (timeline.length === 0) {
    body.append(h('p', { class: 'empty' }, t('timelineNone')));
    return body;
  }
  const list = h('ol', { class: 'timeline', id: 'timeline-list', 'aria-label': tn('timelineList', timeline.length) });
  const selectedItem = timeline.find((e) => e.id === selected);
  // One click listener for the list; rows are cloned from a template (a hundred render in a few ms).
  const template = h(
    'li',
    {},
    h(
      'button',
      { type: 'button', class: 'light-button light-plain timeline-button' },
      h('span', { 'aria-hidden': 'true' }),
      h('time', {}),
      h('span', { class: 'timeline-text' }),
    ),
  );
  const focusable = selectedItem ?? timeline[timeline.length - 1];
  for (const e of timeline) {
    const label = describe(e);
    const li = template.cloneNode(true) as HTMLElement;
    li.className = `timeline-item timeline-${e.kind} status-${'status' in e ? e.status : 'stage' in e ? e.stage : e.kind}`;
    li.dataset.id = e.id;
    const el = li.firstChild as HTMLButtonElement;
    const [glyph, time, text] = Array.from(el.children) as HTMLElement[];
    el.dataset.id = e.id;
    const kept = keptLine(e);
    el.setAttribute('aria-label', showHiddenChars(`${dateTime(e.at)}: ${label}${kept ? ` · ${kept}` : ''}`));
    el.tabIndex = e === focusable ? 0 : -1;
    if (e.id === selected) el.setAttribute('aria-current', 'true');
    glyph.className = `codicon codicon-${iconOf(e)}`;
    time.setAttribute('datetime', new Date(e.at).toISOString());
    time.textContent = clock(e.at);
    setText(text, label);
    if (kept) el.append(h('span', { class: 'timeline-kept' }, kept));
    if (e.kind === 'compaction' && e.undoable) el.append(h('span', { class: 'badge' }, t('undoable')));
    if (e.kind === 'compaction' && e.undone) el.append(h('span', { class: 'badge badge-undone' }, t('undone')));
    if (e.kind === 'compaction' && e.summaryEdited)
      el.append(h('span', { class: 'badge badge-edited' }, t('summaryEdited')));
    if (e.kind === 'compaction' && droppedTotal(e.dropped) > 0)
      el.append(h('span', { class: 'badge badge-dropped' }, t('droppedBadge', droppedTotal(e.dropped))));
    list.append(li);
  }
  list.addEventListener('click', (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>('.timeline-button');
    if (button?.dataset.id) actions.select(button.dataset.id);
  });
  list.addEventListener('keydown', (event: KeyboardEvent) => {
    const buttons = Array.from(list.querySelectorAll<HTMLButtonElement>('.timeline-button'));
    const at = buttons.indexOf(event.target as HTMLButtonElement);
    if (at < 0) return;
    const next =
      event.key === 'ArrowDown'
        ? buttons[at + 1]
        : event.key === 'ArrowUp'
          ? buttons[at - 1]
          : event.key === 'Home'
            ? buttons[0]
            : event.key === 'End'
              ? buttons[buttons.length - 1]
              : undefined;
    if (!next) return;
    event.preventDefault();
    for (const b of buttons) b.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });
  body.append(
    h(
      'div',
      { class: 'timeline-layout' },
      h('div', { class: 'timeline-box' }, list),
      h(
        'div',
        { class: 'compaction-details', id: 'compaction-details', role: 'region', 'aria-label': t('compactionDetails') },
        ...detailsOf(selectedItem, replaced, actions),
      ),
    ),
  );
  return body;
}

function detailsOf(
  e: TimelineView | undefined,
  replaced: ReplacedState | undefined,
  actions: TimelineActions,
): Array<Node | string> {
  if (e?.kind === 'checkpoint' || e?.kind === 'rewind') return checkpointDetails(e, actions.openCheckpointDiff);
  if (!e || e.kind !== 'compaction') {
    if (e) return [h('h3', {}, describe(e)), e.detail ? h('p', { class: 'timeline-detail' }, e.detail) : ''];
    return [h('p', { class: 'empty' }, t('selectCompaction'))];
  }
  const numbers = [
    t('compactionTokens', num(e.tokensBefore), num(e.tokensAfter)),
    t('duration', num(e.durationMs)),
    calls(e.modelCalls),
    e.replaced ? tn('replaced', e.replaced) : '',
    e.trimmed ? tn('trimmed', e.trimmed) : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const summary = h('div', { class: 'compaction-summary', id: 'compaction-summary' });
  if (e.summary) summary.append(...summaryNodes(e.summary));
  else summary.append(h('p', { class: 'empty' }, t('noSummary')));
  const messages = h('div', { class: 'replaced-messages', id: 'replaced-messages' });
  if (replaced === undefined || replaced === 'loading')
    messages.append(h('p', { class: 'empty' }, t('loadingReplaced')));
  else if (replaced.error || replaced.messages.length === 0)
    messages.append(h('p', { class: 'empty' }, replaced.error ?? t('noReplaced')));
  else {
    for (const m of replaced.messages) {
      messages.append(
        h(
          'div',
          { class: `replaced-message role-${m.role === 'assistant' ? 'assistant' : 'user'}` },
          h('div', { class: 'replaced-role' }, m.role),
          h('pre', {}, m.text),
        ),
      );
    }
  }
  return [
    h('h3', {}, t('compaction', tOr(`stage_${e.stage}`, e.stage), tOr(`trigger_${e.trigger}`, e.trigger))),
    h('p', { class: 'compaction-numbers' }, numbers),
    e.undone ? h('p', { class: 'compaction-undone', id: 'compaction-undone' }, t('undoneLong')) : '',
    e.focus ? h('p', {}, t('focus', e.focus)) : '',
    e.stage === 'undo' ? '' : renderDropped(e.dropped, actions.carry, actions.carried),
    // An empty list has nothing to show after the label (the row says "kept: no instruction files").
    e.keptInstructions?.length
      ? h('p', { class: 'compaction-kept', id: 'compaction-kept' }, t('keptLong', e.keptInstructions.join(', ')))
      : '',
    e.summaryEdited ? h('p', { class: 'compaction-edited', id: 'compaction-edited' }, t('summaryEditedLong')) : '',
    e.pinsCarried ? pinsLine(e.pinsCarried) : '',
    // An undone compaction (and an undo) changed nothing that is still in effect: no diff to open.
    e.undone || e.stage === 'undo'
      ? ''
      : h(
          'div',
          { class: 'detail-actions' },
          button(t('openDiff'), { icon: 'diff', id: 'compaction-diff', onClick: () => actions.openDiff(e.id) }),
          e.undoable
            ? button(t('undoCompaction'), {
                appearance: 'secondary',
                icon: 'discard',
                id: 'compaction-undo',
                onClick: () => actions.undo(e.id),
              })
            : null,
        ),
    h('h4', {}, t('summary')),
    summary,
    h('h4', {}, t('replacedMessages')),
    messages,
  ];
}

/** The summary's sections as Markdown; re-attached files and blocks as code under their name. */
function summaryNodes(message: string): HTMLElement[] {
  return summaryParts(message).map((p) => {
    if (p.kind === 'summary') {
      const md = h('div', { class: 'markdown summary-sections' });
      md.append(renderMarkdown(p.markdown));
      return md;
    }
    if (p.kind === 'text') return h('p', { class: 'summary-text' }, p.text);
    const label =
      p.kind === 'file'
        ? `${p.path}${p.truncated ? ` (${t('truncated')})` : ''}`
        : t(p.tag === 'instructions' ? 'attachedInstructions' : 'attachedIndex');
    return h(
      'details',
      { class: `summary-attachment summary-${p.kind}` },
      h(
        'summary',
        {},
        h('span', { class: `codicon codicon-${p.kind === 'file' ? 'file' : 'book'}`, 'aria-hidden': 'true' }),
        ` ${label}`,
      ),
      h('pre', {}, h('code', {}, p.content)),
    );
  });
}

export function describe(e: TimelineView): string {
  if (e.kind === 'checkpoint' || e.kind === 'rewind') return describeCheckpoint(e);
  if (e.kind === 'notes') {
    if (e.status === 'created') return t('notes_created', e.detail ?? 'default');
    if (e.status === 'failed') return t('notes_failed', e.detail ?? '');
    return (
      t('notes_updated', num(e.tokens ?? 0)) +
      (e.condensed ? ` (${t('condensed')})` : '') +
      (e.modelCalls !== undefined ? ` · ${calls(e.modelCalls)}` : '') +
      (e.durationMs !== undefined ? ` · ${t('duration', num(e.durationMs))}` : '')
    );
  }
  if (e.kind === 'memory') {
    if (e.status === 'saved') return t('memory_saved', e.detail ?? e.files.join(', '));
    if (e.status === 'failed') return t('memory_failed', e.detail ?? '');
    return (
      t('memory_extracted', e.files.length ? e.files.join(', ') : t('savedNothing')) +
      (e.modelCalls !== undefined ? ` · ${calls(e.modelCalls)}` : '')
    );
  }
  const head =
    t('compaction', tOr(`stage_${e.stage}`, e.stage), tOr(`trigger_${e.trigger}`, e.trigger)) +
    (e.undone ? ` (${t('undone')})` : '');
  if (e.stage === 'undo') return head;
  const tokens = t('compactionTokens', num(e.tokensBefore), num(e.tokensAfter));
  return `${head} · ${tokens} · ${t('duration', num(e.durationMs))} · ${calls(e.modelCalls)}`;
}

/**
 * What a compaction kept, for its row: "kept: CLAUDE.md, AGENTS.md" (the instruction files re-read into the
 * system prompt after it). Empty for other events, an undo, and records from before it was recorded.
 */
function keptLine(e: TimelineView): string {
  if (e.kind !== 'compaction' || e.stage === 'undo' || !e.keptInstructions) return '';
  return e.keptInstructions.length > 0 ? t('kept', e.keptInstructions.join(', ')) : t('keptNothing');
}

function iconOf(e: TimelineView): string {
  if (e.kind === 'notes') return e.status === 'failed' ? 'warning' : 'note';
  if (e.kind === 'memory') return e.status === 'failed' ? 'warning' : 'save';
  if (e.kind === 'checkpoint' || e.kind === 'rewind') return checkpointIcon(e);
  return e.stage === 'undo' ? 'discard' : 'fold';
}

function calls(n: number): string {
  return n === 1 ? t('modelCall') : t('modelCalls', n);
}

/** What a compaction carried of the pins (issue 24): how many, their tokens, and how many the budget left out. */
function pinsLine(p: { count: number; tokens: number; cut: number }): HTMLElement {
  const cut = p.cut > 0 ? ` ${tn('pinsCut', p.cut)}` : '';
  return h(
    'p',
    { class: 'compaction-pins', id: 'compaction-pins' },
    `${tn('pinsCarried', p.count, num(p.tokens))}${cut}`,
  );
}
