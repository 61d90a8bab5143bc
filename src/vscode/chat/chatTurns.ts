// A chat window's turns: a message sent (a slash command answered here, its file mentions attached, the
// session opened if need be, the prompt kept in the shared history), Retry and Edit of the last prompt,
// Stop, Resume of an earlier session, a message sent again (after Resume) when another process wrote to
// the same session, and the person's "Not relevant" on a memory a turn recalled. Apart from ChatSession,
// which owns the window's state, because how a turn runs is its own concern.
import * as vscode from 'vscode';
import { clause } from '../../protocol/sentence';
import { loadEngine } from '../loadEngine';
import { dataDir, workspaceCwd } from '../settings';
import { itemsFromMessages, toolSummarizer } from './chatItems';
import { withPinMarks } from './chatPins';
import type { ChatSessionSlot } from './chatSessionSlot';
import type { ChatWindow } from './chatWindow';
import { runSlashCommand } from './slashCommands';

/** What a turn reads and changes of its chat window. */
export type ChatTurnWindow = Pick<
  ChatWindow,
  'items' | 'files' | 'logger' | 'slash' | 'busy' | 'setBusy' | 'postSnapshot' | 'inspectorChanged' | 'newChat'
>;

export class ChatTurns {
  /** The running send's turn, stopped by Stop. */
  private turnAbort: AbortController | undefined;

  constructor(
    private readonly window: ChatTurnWindow,
    private readonly slot: ChatSessionSlot,
    /** Marks prompts with their turns and draws the "files changed" lines (chatRewind.ts). */
    private readonly marks: { refresh(): Promise<void> },
  ) {}

  /** Stop: ends the running turn, or the wait for another process's turn. */
  abort(): void {
    this.turnAbort?.abort();
  }

  /** `afterReload`: sent again after the session was read again from disk (continueAfterOthers). */
  async send(text: string, display = text, afterReload = false): Promise<void> {
    const { items, files, logger } = this.window;
    const slot = this.slot;
    if (this.window.busy() || !text.trim()) return;
    if (await runSlashCommand(this.window.slash, text)) return;
    this.window.setBusy(true);
    // Stop ends a wait for another process's turn too, not only this window's own turn.
    const turn = new AbortController();
    this.turnAbort = turn;
    let changedElsewhere: string | undefined;
    try {
      const attached = await files.attach(text);
      items.user(display, attached.files);
      for (const s of attached.skipped)
        items.notice('warning', vscode.l10n.t('Not attached: {0} ({1}).', s.path, s.reason));
      const session = await slot.forNextMessage();
      if (!session) return;
      if (!afterReload) {
        void loadEngine()
          .appendPromptHistory(dataDir(), {
            display,
            timestamp: Date.now(),
            project: workspaceCwd(),
            sessionId: session.sessionId,
          })
          .catch((e) => logger.warn(`Could not append to history.jsonl: ${String(e)}`));
      }
      await session.runTurn(
        text,
        turn.signal,
        attached.blocks.length > 0 ? { attachments: attached.blocks } : undefined,
      );
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      if (name === 'SessionChangedError' && !afterReload) changedElsewhere = slot.session?.sessionId;
      else if (!turn.signal.aborted) {
        logger.error('The chat turn failed', error);
        items.notice(
          'error',
          vscode.l10n.t(
            'Something went wrong: {0}. See "Engram: Show Log".',
            clause(error instanceof Error ? error.message : String(error)),
          ),
        );
      }
    } finally {
      this.turnAbort = undefined;
      items.finishStreaming();
      this.window.setBusy(false);
      this.window.inspectorChanged();
    }
    await this.marks.refresh();
    if (changedElsewhere) await this.continueAfterOthers(changedElsewhere, text, display);
  }

  /** Retry (`edited` undefined: the last prompt again) or Edit (`edited` replaces the last prompt). */
  async redo(edited: string | undefined): Promise<void> {
    const { items } = this.window;
    const slot = this.slot;
    if (this.window.busy()) return;
    const last = [...items.items].reverse().find((i) => i.kind === 'user');
    if (!last || last.kind !== 'user') return;
    // Without a session the prompt never reached the model (no key, say): there is nothing to take back.
    const taken = slot.session ? slot.session.rewindLastTurn() : { prompt: last.text };
    if (!taken) {
      items.notice(
        'warning',
        vscode.l10n.t('Retry and Edit work on the newest message sent in this window, and not across a compaction.'),
      );
      return;
    }
    items.dropLastPrompt();
    this.window.postSnapshot();
    this.window.inspectorChanged();
    if (edited !== undefined) await this.send(edited);
    else await this.send(taken.prompt, last.text);
  }

  /**
   * Another window or `engram -p` wrote to this session since this window opened it (the engine noticed
   * before sending anything): the session is read again, so their turns show and the model sees them,
   * and the message is sent after them.
   */
  private async continueAfterOthers(sessionId: string, text: string, display: string): Promise<void> {
    await this.resume(sessionId);
    this.window.items.notice(
      'info',
      vscode.l10n.t(
        'This session was continued in another window or by engram -p: ' +
          'its newest turns are shown above, and your message follows them.',
      ),
    );
    await this.send(text, display, true);
  }

  /** Resume: an earlier session, read from disk, in place of what the window shows. */
  async resume(sessionId: string): Promise<void> {
    const { items } = this.window;
    if (this.window.busy()) return;
    this.window.newChat();
    this.window.setBusy(true, vscode.l10n.t('Loading the session…'));
    try {
      const session = await this.slot.open(sessionId);
      if (session) {
        const read = itemsFromMessages(
          session.agent.messages,
          toolSummarizer(session.agent.offeredTools),
          session.resumed?.fullOutputs,
        );
        items.reset(withPinMarks(read, session.pins.list()));
        this.slot.announceInstructions(session);
        this.window.postSnapshot();
        await this.marks.refresh();
      }
    } finally {
      this.window.setBusy(false);
    }
  }

  /** A recalled memory's "Not relevant" on the recall item `itemId` (with `undo`, taken back). */
  async notRelevant(itemId: string, file: string, undo: boolean): Promise<void> {
    const { items } = this.window;
    const session = this.slot.session;
    const words = items.markRecall(itemId, file, !undo);
    if (!words || !session) return;
    try {
      await session.markNotRelevant(file, words, undo);
    } catch (e) {
      items.markRecall(itemId, file, undo);
      items.notice(
        'error',
        vscode.l10n.t(
          'Could not record that {0} is not relevant: {1}',
          file,
          e instanceof Error ? e.message : String(e),
        ),
      );
    }
    this.window.inspectorChanged();
  }
}
