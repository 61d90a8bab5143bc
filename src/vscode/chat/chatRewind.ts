// A chat window's checkpoints (issue 33): its prompts marked with their turns and its "3 files changed"
// lines (after each turn, and for a resumed session), a message's rewind to before it (code, conversation
// or both) with the chat cut back to the kept turns' items as they were (or, when they cannot be matched,
// rebuilt from the conversation) and the message's text back in the prompt box, and the turn's diff.
// Apart from ChatSession,
// which only hands requests here.
import type { EngramSession } from '../../core/host/sessions';
import type { RewindWhat } from '../../protocol/messages';
import { checkpointsOff, rewindable, type RewindableSession, type SessionTurn } from '../checkpoints/checkpointApi';
import { openTurnDiff } from '../checkpoints/checkpointDiff';
import { RewindFlow } from '../checkpoints/rewindFlow';
import type { ChatItem } from '../../protocol/messages';
import { itemsFromMessages, toolSummarizer } from './chatItems';
import { beforeMessage, changedItems, keptThroughTurns, lastRewindId, turnOf, withTurns } from './chatCheckpoints';
import { withPinMarks } from './chatPins';
import type { ChatWindow } from './chatWindow';

type RewindWindow = Pick<ChatWindow, 'items' | 'logger' | 'busy' | 'postSnapshot' | 'inspectorChanged'>;

export class ChatCheckpoints {
  /** Plans, shows, applies and undoes rewinds for this window (the palette's commands too). */
  readonly flow: RewindFlow;
  /** Why the files cannot be rewound, as the view was last told (a snapshot carries it). */
  private shownOff: string | undefined;
  /** The items the newest conversation rewind of this window dropped, put back when it is undone. */
  private dropped: { rewindId: string; kept: string[]; items: ChatItem[] } | undefined;

  constructor(
    private readonly window: RewindWindow,
    private readonly session: () => EngramSession | undefined,
  ) {
    this.flow = new RewindFlow({
      logger: window.logger,
      session: () => rewindable(this.session()),
      busy: () => window.busy(),
      conversationChanged: (change) => this.redraw(change),
      changed: async () => {
        await this.refresh();
        window.inspectorChanged();
      },
      lastRewindId: () => lastRewindId(this.session()?.timeline ?? []),
    });
  }

  /** What the chat's snapshot says of checkpoints: why the files cannot be rewound, when they cannot. */
  snapshotPart(): { checkpointsOff?: string } {
    const off = checkpointsOff(this.session());
    this.shownOff = off;
    return off ? { checkpointsOff: off } : {};
  }

  /** The open session's rewind side (undefined without a session, or in a build without checkpoints). */
  rewindable(): RewindableSession | undefined {
    return rewindable(this.session());
  }

  /** The session's turns, oldest first (none without a session that has them). */
  async turns(): Promise<SessionTurn[]> {
    const r = rewindable(this.session());
    if (!r) return [];
    try {
      return await r.turns();
    } catch (e) {
      this.window.logger.warn(`Could not read the session's turns: ${String(e)}`);
      return [];
    }
  }

  /** Marks the prompts with their turns and draws the changes lines (after a turn, a resume, a rewind). */
  async refresh(): Promise<void> {
    const turns = await this.turns();
    const { items } = this.window;
    const before = items.items;
    // No turns read (none yet, or the read failed): the marks already drawn stay.
    const next = turns.length > 0 ? withTurns(before, turns) : before;
    const changed = changedItems(before, next);
    items.reset(next);
    // The session opened (or its checkpoints changed) since the view was told: the snapshot says why not.
    if (changed === 'all' || checkpointsOff(this.session()) !== this.shownOff) this.window.postSnapshot();
    else for (const item of changed) items.update(item);
  }

  /** A message's Rewind code / conversation / both: to before that message (right after the turn before it). */
  async rewind(itemId: string, what: RewindWhat): Promise<void> {
    const target = beforeMessage(this.window.items.items, itemId, await this.turns());
    if (!target) {
      this.window.logger.warn(`chat: no turn of the session is known for item ${itemId}`);
      return;
    }
    await this.flow.rewind(target.toTurn, target.promptUuid, what, { turn: target.turn, text: target.text });
  }

  /** A "3 files changed" line: the turn's diff, or (with `path`) one file's. */
  async openDiff(target: { turn: number; promptUuid?: string } | undefined, path?: string): Promise<void> {
    if (!target) return;
    const turns = await this.turns();
    const turn =
      turns.find((t) => t.turn === target.turn && t.promptUuid === target.promptUuid) ??
      turns.find((t) => t.turn === target.turn && target.promptUuid === undefined);
    if (turn?.checkpoint) await openTurnDiff(turn.checkpoint, path);
  }

  /** The line `itemId` (a changes line or a prompt): its turn's diff. */
  openTurnDiff(itemId: string): Promise<void> {
    return this.openDiff(turnOf(this.window.items.items, itemId));
  }

  /**
   * The chat as the conversation now is (after a conversation rewind or its undo), the prompt box holding
   * `change.prompt` (or empty): the kept turns' items as they were, or, when they cannot be matched, the
   * chat rebuilt from the messages.
   */
  private async redraw(change: { rewindId: string; undo: boolean; prompt?: string }): Promise<void> {
    const session = this.session();
    if (!session) return;
    const { items } = this.window;
    const before = items.items;
    const turns = await this.turns();
    const stash = this.dropped;
    const ids = (list: readonly ChatItem[]) => list.filter((i) => i.kind !== 'changes').map((i) => i.id);
    // An undo of this window's rewind, with nothing sent since: the dropped items come back after the kept.
    const back =
      change.undo && stash?.rewindId === change.rewindId && ids(before).join('\n') === stash.kept.join('\n')
        ? [...before, ...stash.items]
        : undefined;
    // No turns read while the conversation has messages (a failed read): the chat is drawn from them.
    const unread = turns.length === 0 && session.agent.messages.length > 0;
    let next = unread ? undefined : back ? keptThroughTurns(back, turns, true) : keptThroughTurns(before, turns);
    this.dropped = undefined;
    if (next && !change.undo) {
      const kept = new Set(next.map((i) => i.id));
      this.dropped = { rewindId: change.rewindId, kept: ids(next), items: before.filter((i) => !kept.has(i.id)) };
    }
    if (!next) {
      this.window.logger.info('chat: the rewound conversation is drawn anew from its messages');
      const read = itemsFromMessages(
        session.agent.messages,
        toolSummarizer(session.agent.offeredTools),
        session.resumed?.fullOutputs,
      );
      next = withTurns(withPinMarks(read, session.pins.list()), turns);
    }
    items.reset(next);
    this.window.postSnapshot();
    items.tell({ type: 'rewound', ...(change.prompt !== undefined ? { text: change.prompt } : {}) });
  }
}
