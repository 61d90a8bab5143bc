// The session notes pane: each heading with what was written under it (sanitised Markdown), its tokens
// against the section cap, when the notes were last updated and the last response they cover.
import type { NotesView } from '../../src/protocol/messages';
import { button, h } from '../shared/components';
import { renderMarkdown } from '../shared/markdown';
import { ago, dateTime, num } from './format';
import { appendRows, type Fold } from './paneFill';
import { t } from './strings';

/** Sections drawn with the first frame when the notes may reach past it (`fold`); the rest follow after it. */
const FIRST_SECTIONS = 3;

/** The pane; with a `fold`, the sections after the first few are drawn through it (see paneFill.ts). */
export function renderNotesPane(
  notes: NotesView,
  now: number,
  openFile: (path: string) => void,
  fold?: Fold,
): HTMLElement {
  const body = h('div', { id: 'notes-body' });
  if (!notes.exists) {
    body.append(h('p', { class: 'empty' }, notes.updating ? t('notesUpdating') : t('notesNone')));
    return body;
  }
  const facts = h(
    'p',
    { class: 'notes-facts' },
    notes.updatedAt !== undefined
      ? h('span', { title: dateTime(notes.updatedAt) }, t('notesUpdated', ago(notes.updatedAt, now)))
      : t('notesNeverUpdated'),
    notes.covers ? ' · ' : '',
    notes.covers
      ? h(
          'span',
          { class: 'notes-covers', title: notes.covers.preview ?? notes.covers.messageId },
          notes.covers.response !== undefined && notes.covers.responses !== undefined
            ? t('notesCovers', notes.covers.response, notes.covers.responses)
            : t('notesCoversId', notes.covers.messageId),
        )
      : '',
    ' · ',
    h(
      'span',
      { class: notes.tokens > notes.fileCap ? 'over-cap' : '' },
      t('notesTotal', num(notes.tokens), num(notes.fileCap)),
    ),
    notes.updating ? h('span', { class: 'notes-updating' }, ` · ${t('notesUpdating')}`) : '',
  );
  const toolbar = h(
    'div',
    { class: 'pane-toolbar' },
    facts,
    notes.path
      ? button(t('openNotes'), {
          appearance: 'secondary',
          icon: 'go-to-file',
          id: 'open-notes',
          onClick: () => openFile(notes.path!),
        })
      : null,
  );
  body.append(toolbar);
  if (notes.lastError) body.append(h('p', { class: 'notes-error', role: 'note' }, t('notesError', notes.lastError)));
  if (notes.covers?.preview) body.append(h('p', { class: 'notes-cover-preview' }, `“${notes.covers.preview}”`));
  const list = h('div', { class: 'notes-sections' });
  appendRows(list, notes.sections, noteSection, fold, FIRST_SECTIONS);
  body.append(list);
  return body;
}

/** One heading of the notes: its tokens against the section cap, and what was written under it. */
function noteSection(s: NotesView['sections'][number]): HTMLElement {
  const over = s.tokens > s.cap;
  const meter = h(
    'span',
    {
      class: `section-meter${over ? ' over-cap' : ''}`,
      role: 'meter',
      'aria-valuemin': '0',
      'aria-valuemax': String(s.cap),
      'aria-valuenow': String(Math.min(s.tokens, s.cap)),
      'aria-label': t('sectionTokens', num(s.tokens), num(s.cap)),
    },
    h('span', { class: 'section-meter-fill' }),
  );
  (meter.firstChild as HTMLElement).style.width = `${Math.min(100, (s.tokens / Math.max(1, s.cap)) * 100).toFixed(1)}%`;
  const content = h('div', { class: 'markdown notes-section-body' });
  if (s.markdown.trim()) content.append(renderMarkdown(s.markdown));
  else content.append(h('p', { class: 'empty' }, t('sectionEmpty')));
  return h(
    'article',
    { class: `notes-section${over ? ' over-cap' : ''}`, 'aria-label': s.heading },
    h(
      'header',
      { class: 'notes-section-head' },
      h('h3', {}, s.heading),
      h(
        'span',
        { class: 'section-tokens' },
        t('sectionTokens', num(s.tokens), num(s.cap)),
        over ? ` · ${t('sectionOverCap')}` : '',
      ),
      meter,
    ),
    content,
  );
}
