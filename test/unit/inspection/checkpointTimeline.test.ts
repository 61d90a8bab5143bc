// The timeline's checkpoint and rewind rows (issue 33): what a turn changed and skipped, a rewind's
// numbers, and an undo marking the rewind it took back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  checkpointTimelineView,
  markUndoneRewinds,
  type RewindEntry,
} from '../../../src/core/inspection/checkpointTimeline';
import type { TimelineView } from '../../../src/protocol/messages';

const rewind = (at: number, undo: boolean): RewindEntry => ({
  kind: 'rewind',
  at,
  toTurn: 1,
  rewindId: `code:r${at}`,
  summary: undo ? 'Undid the rewind.' : 'Rewound.',
  undo,
  files: 3,
  droppedTurns: 2,
  conflicts: undo ? [] : ['shared.txt'],
});

test('a checkpoint row lists the files the turn changed and what it skipped', () => {
  const view = checkpointTimelineView(
    {
      kind: 'checkpoint',
      at: 5,
      turn: 3,
      promptUuid: 'p3',
      files: [{ path: 'a.txt', change: 'added' }],
      skipped: [{ path: 'big.bin', reason: 'too-big', bytes: 9 }],
    },
    7,
  );
  assert.deepEqual(view, {
    kind: 'checkpoint',
    id: 'checkpoint-7',
    at: 5,
    turn: 3,
    promptUuid: 'p3',
    files: [{ path: 'a.txt', change: 'added' }],
    skipped: [{ path: 'big.bin', reason: 'too-big' }],
  });
});

test('an undo marks the newest rewind before it undone, and only that one', () => {
  const views: TimelineView[] = [rewind(1, false), rewind(2, false), rewind(3, true)].map((e, i) =>
    checkpointTimelineView(e, i),
  );
  markUndoneRewinds(views);
  assert.deepEqual(
    views.map((v) => v.kind === 'rewind' && [v.undo === true, v.undone === true, v.conflicts ?? []]),
    [
      [false, false, ['shared.txt']],
      [false, true, ['shared.txt']],
      [true, false, []],
    ],
  );
});
