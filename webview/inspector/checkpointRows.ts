// The timeline's checkpoint and rewind rows (issue 33): "Turn 3: 2 files changed" with the files it changed
// (each opens its diff) and what its checkpoint skipped, and "Rewound to turn 2: 3 files, 2 turns dropped"
// with the files it left as the person's own. Every name goes in as text.
import type { TimelineView } from '../../src/protocol/messages';
import { h, icon, lightButton } from '../shared/components';
import { type StringKey, t, tn } from './strings';

type CheckpointView = Extract<TimelineView, { kind: 'checkpoint' }>;
type RewindView = Extract<TimelineView, { kind: 'rewind' }>;

/** Opens a turn's diff of one file (the live session only). */
export type OpenCheckpointDiff = (turn: number, promptUuid: string | undefined, path: string) => void;

export function describeCheckpoint(e: CheckpointView | RewindView): string {
  if (e.kind === 'checkpoint') {
    const skipped = e.skipped.length > 0 ? ` · ${tn('checkpointSkipped', e.skipped.length)}` : '';
    return t('checkpointTurn', e.turn, `${tn('checkpointFiles', e.files.length)}${skipped}`);
  }
  if (e.undo) return t('rewindUndo', tn('rewindFiles', e.files));
  const parts = [tn('rewindFiles', e.files), tn('rewindDropped', e.droppedTurns)];
  if (e.conflicts?.length) parts.push(tn('rewindConflicts', e.conflicts.length));
  return `${t('rewindTo', e.toTurn, parts.join(t('listComma')))}${e.undone ? ` (${t('undone')})` : ''}`;
}

export function checkpointIcon(e: CheckpointView | RewindView): string {
  if (e.kind === 'checkpoint') return 'git-commit';
  return e.undo ? 'discard' : 'history';
}

const MARK = { added: 'diff-added', modified: 'diff-modified', deleted: 'diff-removed' } as const;

/** The details pane of a checkpoint or rewind row. */
export function checkpointDetails(e: CheckpointView | RewindView, open: OpenCheckpointDiff | undefined): HTMLElement[] {
  if (e.kind === 'rewind') {
    return [
      h('h3', {}, describeCheckpoint(e)),
      e.conflicts?.length
        ? h(
            'p',
            { class: 'rewind-conflicts', id: 'rewind-conflicts' },
            t('rewindConflictsLong', e.conflicts.join(', ')),
          )
        : h('p', { class: 'empty' }, t('rewindNoConflicts')),
    ];
  }
  const files = h(
    'ul',
    { class: 'checkpoint-files', id: 'checkpoint-files', 'aria-label': t('checkpointFilesLabel', e.turn) },
    ...e.files.map((f) =>
      h(
        'li',
        { class: `checkpoint-file change-${f.change}`, 'data-path': f.path },
        icon(MARK[f.change]),
        ' ',
        open
          ? lightButton(f.path, {
              title: t('checkpointOpenDiff', f.path),
              look: 'link',
              onClick: () => open(e.turn, e.promptUuid, f.path),
            })
          : h('span', {}, f.path),
        h('span', { class: 'checkpoint-change' }, ` ${t(`change_${f.change}` as StringKey)}`),
      ),
    ),
  );
  const skipped = e.skipped.map((s) =>
    h('li', { class: 'checkpoint-skipped-file' }, `${s.path} (${t(`skipped_${s.reason}` as StringKey)})`),
  );
  const out: HTMLElement[] = [h('h3', {}, describeCheckpoint(e)), files];
  if (skipped.length > 0)
    out.push(
      h('h4', {}, t('checkpointSkippedTitle')),
      h('ul', { class: 'checkpoint-skipped', id: 'checkpoint-skipped' }, ...skipped),
    );
  return out;
}
