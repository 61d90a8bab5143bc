// A chat window's checkpoints (issue 33): its prompts marked with their turns and its "3 files changed"
// lines (after each turn, and for a resumed session), the rewind of a message's turn (code, conversation
// or both) with the chat redrawn as the conversation now is, and the turn's diff. Apart from ChatSession,
// which only hands requests here.
import type { EngramSession } from '../../core/host/sessions';
import type { RewindWhat } from '../../protocol/messages';
import { checkpointsOff, rewindable, type RewindableSession, type SessionTurn } from '../checkpoints/checkpointApi';
import { openTurnDiff } from '../checkpoints/checkpointDiff';
import { RewindFlow } from '../checkpoints/rewindFlow';
import { itemsFromMessages, toolSummarizer } from './chatItems';
import { changedItems, lastRewindId, turnOf, withTurns } from './chatCheckpoints';
import { withPinMarks } from './chatPins';
import type { ChatWindow } from './chatWindow';

type RewindWindow = Pick<ChatWindow, 'items' | 'logger' | 'busy' | 'postSnapshot' | 'inspectorChanged'>;

export class ChatCheckpoints {
  /** Plans, shows, applies and undoes rewinds for this window (the palette's commands too). */
  readonly flow: RewindFlow;
  /** Why the files cannot be rewound, as the view was last told (a snapshot carries it). */
  private shownOff: string | undefined;

  constructor(
    private readonly window: RewindWindow,
    private readonly session: () => EngramSession | undefined,
  ) {
    this.flow = new RewindFlow({
      logger: window.logger,
      session: () => rewindable(this.session()),
      busy: () => window.busy(),
      conversationChanged: () => this.redraw(),
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

  /** A message's Rewind code / conversation / both: to right after that message's turn. */
  async rewind(itemId: string, what: RewindWhat): Promise<void> {
    const target = turnOf(this.window.items.items, itemId);
    if (!target) {
      this.window.logger.warn(`chat: no turn is known for item ${itemId}`);
      return;
    }
    await this.flow.rewind(target.turn, target.promptUuid, what);
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

  /** The chat as the conversation now is (after a conversation rewind or its undo), the prompt box empty. */
  private async redraw(): Promise<void> {
    const session = this.session();
    if (!session) return;
    const read = itemsFromMessages(
      session.agent.messages,
      toolSummarizer(session.agent.offeredTools),
      session.resumed?.fullOutputs,
    );
    const { items } = this.window;
    items.reset(withTurns(withPinMarks(read, session.pins.list()), await this.turns()));
    this.window.postSnapshot();
    items.tell({ type: 'rewound' });
  }
}
