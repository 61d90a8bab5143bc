// The chat's checkpoint marks (issue 33): prompts get their turns by text from the newest back, each turn
// that changed files gets one "files changed" line after its items, and a redraw posts only what changed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatItem } from '../../../../src/protocol/messages';
import type { SessionTurn } from '../../../../src/vscode/checkpoints/checkpointApi';
import {
  beforeMessage,
  changedItems,
  keptThroughTurns,
  lastRewindId,
  turnOf,
  withTurns,
} from '../../../../src/vscode/chat/chatCheckpoints';

const user = (id: string, text: string): ChatItem => ({ kind: 'user', id, text });
const reply = (id: string, text: string): ChatItem => ({ kind: 'assistant', id, text, streaming: false });

function turn(n: number, prompt: string, files: string[] = [], compactedAway = false): SessionTurn {
  return {
    turn: n,
    promptUuid: `u${n}`,
    prompt,
    compactedAway,
    checkpoint: {
      sessionId: 's',
      turn: n,
      at: n,
      files: files.map((path) => ({ path, change: 'modified' as const })),
      skipped: [],
    },
  };
}

test('each prompt gets its turn, and a turn that changed files its line before the next prompt', () => {
  const items = [user('a', 'one'), reply('b', 'r1'), user('c', 'two'), reply('d', 'r2'), user('e', 'three')];
  const out = withTurns(items, [turn(1, 'one', ['x.txt']), turn(2, 'two'), turn(3, 'three', ['y', 'z'])]);
  assert.deepEqual(
    out.map((i) => (i.kind === 'changes' ? `changes:${i.turn}:${i.files.length}` : i.id)),
    ['a', 'b', 'changes:1:1', 'c', 'd', 'e', 'changes:3:2'],
  );
  const marks = out.filter((i) => i.kind === 'user').map((i) => (i.kind === 'user' ? [i.turn, i.promptUuid] : []));
  assert.deepEqual(marks, [
    [1, 'u1'],
    [2, 'u2'],
    [3, 'u3'],
  ]);
});

test('a resumed chat that shows only the turns after a compaction matches them from the newest back', () => {
  // The first item is the compaction's summary, which no turn's prompt is.
  const items = [user('s', 'Summary of the earlier conversation'), user('a', 'three'), reply('b', 'r3')];
  const out = withTurns(items, [turn(1, 'one', ['x'], true), turn(2, 'two', [], true), turn(3, 'three', ['y'])]);
  const first = out[0];
  assert.ok(first.kind === 'user' && first.turn === undefined, 'the summary gets no turn');
  const second = out[1];
  assert.ok(second.kind === 'user' && second.turn === 3);
  assert.equal(out[out.length - 1].kind, 'changes');
});

test('a prompt repeated in two turns is matched to the right one, and unchanged items are the same objects', () => {
  const items = [user('a', 'again'), reply('b', 'r1'), user('c', 'again')];
  const out = withTurns(items, [turn(1, 'again'), turn(2, 'again', ['f'])]);
  const marks = out.filter((i) => i.kind === 'user').map((i) => (i.kind === 'user' ? i.turn : 0));
  assert.deepEqual(marks, [1, 2]);
  const again = withTurns(out, [turn(1, 'again'), turn(2, 'again', ['f'])]);
  assert.deepEqual(changedItems(out, again), [], 'nothing to post when nothing changed');
});

test('a redraw posts the items that changed, or the whole list when a new item is not at the end', () => {
  const before = [user('a', 'one'), reply('b', 'r1'), user('c', 'two'), reply('d', 'r2')];
  const atEnd = withTurns(before, [turn(1, 'one'), turn(2, 'two', ['f'])]);
  const posted = changedItems(before, atEnd);
  assert.ok(posted !== 'all');
  assert.deepEqual(
    posted.map((i) => i.id),
    ['a', 'c', 'changes-2-u2'],
  );
  const inMiddle = withTurns(before, [turn(1, 'one', ['f']), turn(2, 'two')]);
  assert.equal(changedItems(before, inMiddle), 'all');
});

test('the turn of a prompt or of a changes line, and none for an unmarked item', () => {
  const items = withTurns([user('a', 'one'), reply('b', 'r')], [turn(1, 'one', ['f'])]);
  assert.deepEqual(turnOf(items, 'a'), { turn: 1, promptUuid: 'u1' });
  assert.deepEqual(turnOf(items, 'changes-1-u1'), { turn: 1, promptUuid: 'u1' });
  assert.equal(turnOf(items, 'b'), undefined);
});

test("a message's rewind goes to before it: the turn before its own, 0 for the first prompt", () => {
  const turns = [turn(1, 'one', ['f']), turn(2, 'two'), turn(3, 'three', ['g'])];
  const items = withTurns([user('a', 'one'), reply('b', 'r1'), user('c', 'two'), user('d', 'three')], turns);
  assert.deepEqual(beforeMessage(items, 'a', turns), { turn: 1, toTurn: 0, text: 'one' });
  assert.deepEqual(beforeMessage(items, 'd', turns), { turn: 3, toTurn: 2, promptUuid: 'u2', text: 'three' });
  // A turn before it that compaction took away has no transcript line: the session picks it by number.
  const compacted = [turn(1, '', [], true), turn(2, 'two'), turn(3, 'three')].map((t) =>
    t.compactedAway ? { ...t, promptUuid: undefined } : t,
  );
  assert.deepEqual(beforeMessage(items, 'c', compacted), { turn: 2, toTurn: 1, text: 'two' });
  // A reply, or a prompt whose turn the session no longer has (another branch): no rewind.
  assert.equal(beforeMessage(items, 'b', turns), undefined);
  assert.equal(beforeMessage(items, 'd', [turn(1, 'one'), turn(2, 'two')]), undefined);
});

test('Undo Last Rewind after a reload: the newest rewind on the timeline that no undo took back', () => {
  const rewind = (id: string, undo = false) => ({ kind: 'rewind', rewindId: id, undo });
  assert.equal(lastRewindId([]), undefined);
  assert.equal(lastRewindId([rewind('a'), { kind: 'notes' }, rewind('b')]), 'b');
  assert.equal(lastRewindId([rewind('a'), rewind('b'), rewind('u', true)]), 'a');
  assert.equal(lastRewindId([rewind('a'), rewind('u', true)]), undefined);
});

test('a conversation rewind keeps the kept turns items as they were and drops what came after', () => {
  const footer: ChatItem = { kind: 'turn', id: 'f1', tokens: { input: 10, output: 2, cacheRead: 0, cacheWrite: 0 } };
  const notice: ChatItem = { kind: 'notice', id: 'n1', level: 'info', text: 'Saved a memory.' };
  const marked = withTurns(
    [user('a', 'one'), reply('b', 'r1'), footer, notice, user('c', 'two'), reply('d', 'r2'), user('e', '/help')],
    [turn(1, 'one', ['x.txt']), turn(2, 'two')],
  );
  const kept = keptThroughTurns(marked, [turn(1, 'one', ['x.txt'])]);
  assert.ok(kept, 'the items match the turns');
  assert.deepEqual(
    kept.map((i) => i.id),
    ['a', 'b', 'f1', 'n1', 'changes-1-u1'],
  );
  assert.equal(kept[2], footer, 'the footer is the same item');
  // Its undo: the dropped items back after the kept ones, and the conversation at turn 2 again.
  const back = keptThroughTurns([...kept, ...marked.slice(5)], [turn(1, 'one', ['x.txt']), turn(2, 'two')], true);
  assert.deepEqual(
    back?.map((i) => i.id),
    ['a', 'b', 'f1', 'n1', 'changes-1-u1', 'c', 'd', 'e'],
  );
});

test('a rewind whose kept turns the chat does not show (a resumed, compacted chat) asks for a rebuild', () => {
  // The chat shows the compaction's summary and turn 3 only; the rewound conversation ends at turn 2.
  const items = withTurns(
    [user('s', 'Summary of the earlier conversation'), user('a', 'three'), reply('b', 'r3')],
    [turn(1, 'one', [], true), turn(2, 'two', [], true), turn(3, 'three')],
  );
  assert.equal(keptThroughTurns(items, [turn(1, 'one'), turn(2, 'two')]), undefined);
  // A turn whose prompt is in the chat, but an earlier kept one is missing: a rebuild too.
  const partial = withTurns(
    [user('c', 'two'), reply('d', 'r2'), user('e', 'three')],
    [turn(2, 'two'), turn(3, 'three')],
  );
  assert.equal(keptThroughTurns(partial, [turn(1, 'one'), turn(2, 'two')]), undefined);
  // An unmarked chat (the turns could not be read when it was drawn): a rebuild.
  assert.equal(keptThroughTurns([user('a', 'one'), reply('b', 'r1')], [turn(1, 'one')]), undefined);
});

test('a rewind to before the first prompt keeps only what came before it', () => {
  const items: ChatItem[] = [{ kind: 'instructions', id: 'i', files: [], skipped: true }, user('a', 'one')];
  assert.deepEqual(
    keptThroughTurns(items, [])?.map((i) => i.id),
    ['i'],
  );
});
