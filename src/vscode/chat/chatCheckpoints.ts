// The chat's marks of checkpoints (issue 33): each prompt gets its turn in the session (so it offers Rewind
// code / conversation / both), and each turn that changed files gets a "3 files changed" line after its
// items. Built from the session's turns, for a resumed session and after each live turn alike. No vscode
// import: pure, so it is unit-tested in plain Node.
import type { ChatItem } from '../../protocol/messages';
import type { SessionTurn } from '../checkpoints/checkpointApi';

type UserItem = Extract<ChatItem, { kind: 'user' }>;
type ChangesItem = Extract<ChatItem, { kind: 'changes' }>;

/** A changes line's id: stable for one turn, so a redraw replaces it in place. */
function changesId(turn: SessionTurn): string {
  return `changes-${turn.turn}-${turn.promptUuid ?? ''}`;
}

function changesLine(turn: SessionTurn): ChangesItem | undefined {
  const c = turn.checkpoint;
  if (!c || c.files.length === 0) return undefined;
  return {
    kind: 'changes',
    id: changesId(turn),
    turn: turn.turn,
    ...(turn.promptUuid ? { promptUuid: turn.promptUuid } : {}),
    files: c.files.map((f) => ({ path: f.path, change: f.change })),
    skipped: c.skipped.length,
  };
}

const same = (a: string, b: string) => a.trim() === b.trim();

/**
 * `items` with each prompt marked with its turn and each turn's changes line after its items. Prompts are
 * matched to turns from the newest back by their text (a resumed chat shows only what compaction kept,
 * and a slash command shows words of its own): a prompt no turn matches gets no mark. Items that did not
 * change are the same objects, so a caller can post only what changed.
 */
export function withTurns(items: readonly ChatItem[], turns: readonly SessionTurn[]): ChatItem[] {
  const kept = items.filter((i) => i.kind !== 'changes');
  const marks = new Map<number, SessionTurn>();
  let t = turns.length - 1;
  for (let i = kept.length - 1; i >= 0 && t >= 0; i--) {
    const item = kept[i];
    if (item.kind !== 'user') continue;
    // The newest turn whose prompt this is, at or before the turns already matched to later prompts.
    let k = t;
    while (k >= 0 && (turns[k].compactedAway || !same(turns[k].prompt, item.text))) k--;
    if (k < 0) continue;
    marks.set(i, turns[k]);
    t = k - 1;
  }
  const previous = new Map(items.filter((i) => i.kind === 'changes').map((i) => [i.id, i]));
  const out: ChatItem[] = [];
  let pending: ChangesItem | undefined;
  kept.forEach((item, i) => {
    if (item.kind === 'user') {
      if (pending) out.push(pending);
      pending = undefined;
      const turn = marks.get(i);
      out.push(turn ? marked(item, turn) : item);
      if (turn) pending = reuse(changesLine(turn), previous);
      return;
    }
    out.push(item);
  });
  if (pending) out.push(pending);
  return out;
}

function marked(item: UserItem, turn: SessionTurn): UserItem {
  if (item.turn === turn.turn && item.promptUuid === turn.promptUuid) return item;
  return { ...item, turn: turn.turn, ...(turn.promptUuid ? { promptUuid: turn.promptUuid } : {}) };
}

/** The earlier changes line when it says the same, so it is not drawn again. */
function reuse(line: ChangesItem | undefined, previous: ReadonlyMap<string, ChatItem>): ChangesItem | undefined {
  const was = line && previous.get(line.id);
  return was && JSON.stringify(was) === JSON.stringify(line) ? (was as ChangesItem) : line;
}

/**
 * How `next` differs from `before` for posting: the items to post one by one (new or changed), or
 * 'all' when a new item is not at the end (the view appends unknown items, so the list is sent whole).
 */
export function changedItems(before: readonly ChatItem[], next: readonly ChatItem[]): ChatItem[] | 'all' {
  const old = new Map(before.map((i) => [i.id, i]));
  const seenAll = next.findIndex((i) => !old.has(i.id));
  if (seenAll >= 0 && next.slice(seenAll).some((i) => old.has(i.id))) return 'all';
  if (next.length - before.length !== next.filter((i) => !old.has(i.id)).length) return 'all';
  return next.filter((i) => old.get(i.id) !== i);
}

/** The turn and transcript line of the prompt `itemId`, when the chat knows them. */
export function turnOf(items: readonly ChatItem[], itemId: string): { turn: number; promptUuid?: string } | undefined {
  const item = items.find((i) => i.id === itemId);
  if (item?.kind === 'user' && item.turn !== undefined)
    return { turn: item.turn, ...(item.promptUuid ? { promptUuid: item.promptUuid } : {}) };
  if (item?.kind === 'changes') return { turn: item.turn, ...(item.promptUuid ? { promptUuid: item.promptUuid } : {}) };
  return undefined;
}

/** Where a message's rewind goes: right after the turn before its own (0: before the first prompt). */
export interface BeforeMessage {
  /** The message's own turn, which the rewind undoes with every later one. */
  turn: number;
  toTurn: number;
  /** The transcript line of turn `toTurn` in the conversation now, when it has one. */
  promptUuid?: string;
  /** The message's text, for the prompt box after a conversation rewind. */
  text: string;
}

/**
 * The rewind of the prompt `itemId` ("before this message"): to the turn before its own in `turns` (the
 * session's, oldest first), found by the prompt's transcript line. Undefined when the chat knows no turn
 * for it, or the session no longer has that turn.
 */
export function beforeMessage(
  items: readonly ChatItem[],
  itemId: string,
  turns: readonly SessionTurn[],
): BeforeMessage | undefined {
  const item = items.find((i) => i.id === itemId);
  if (item?.kind !== 'user' || item.turn === undefined) return undefined;
  const at = turns.findIndex((t) => t.turn === item.turn && (t.promptUuid ?? '') === (item.promptUuid ?? ''));
  if (at < 0) return undefined;
  const previous = turns[at - 1];
  return {
    turn: item.turn,
    toTurn: item.turn - 1,
    ...(previous?.promptUuid ? { promptUuid: previous.promptUuid } : {}),
    text: item.text,
  };
}

/** The newest rewind on a session's timeline that no undo took back yet (an undo takes back the newest). */
export function lastRewindId(
  timeline: ReadonlyArray<{ kind: string; rewindId?: string; undo?: boolean }>,
): string | undefined {
  const open: string[] = [];
  for (const e of timeline) {
    if (e.kind !== 'rewind' || !e.rewindId) continue;
    if (e.undo) open.pop();
    else open.push(e.rewindId);
  }
  return open[open.length - 1];
}

const sameTurn = (item: ChatItem, turn: SessionTurn) =>
  item.kind === 'user' && item.turn === turn.turn && (item.promptUuid ?? '') === (turn.promptUuid ?? '');

/**
 * The chat's items for a conversation that now ends at the last of `turns` (after a conversation rewind,
 * or its undo with the dropped items put back after `items`): every item up to that turn's last one, as it
 * was (token footers, notices, tool cards), marked anew; with `keepTail` (an undo) the items after it stay
 * too. Undefined when the items cannot be matched to the turns (that turn's prompt is not in the chat, or a
 * kept turn's prompt is missing, as in a resumed chat that shows only what a compaction kept): the caller
 * then rebuilds the chat from the conversation.
 */
export function keptThroughTurns(
  items: readonly ChatItem[],
  turns: readonly SessionTurn[],
  keepTail = false,
): ChatItem[] | undefined {
  const last = turns[turns.length - 1];
  const at = last ? items.findLastIndex((i) => sameTurn(i, last)) : -1;
  if (last && at < 0) return undefined;
  // The next prompt after that turn's (a later turn, a slash command) starts what the conversation lost.
  const next = keepTail ? -1 : items.findIndex((i, k) => k > at && i.kind === 'user');
  const kept = withTurns(next < 0 ? items : items.slice(0, next), turns);
  const marked = kept.filter((i) => i.kind === 'user' && i.turn !== undefined).length;
  return marked === turns.filter((t) => !t.compactedAway).length ? kept : undefined;
}
