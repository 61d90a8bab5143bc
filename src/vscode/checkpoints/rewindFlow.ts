// A rewind from VS Code (issue 33): planned, shown (the multi-file diff "now ↔ after turn N" and a modal
// saying what changes, what is left as the person's own work and what the conversation loses), applied,
// then told with Undo, and with "Restore anyway" for the files left as conflicts. The chat's actions on a
// message (to before that message: right after the turn before it) and the palette's "Engram: Rewind to a
// Turn…" (to right after the turn picked) all go through here.
import * as vscode from 'vscode';
import type { Logger } from '../../core/host/sessions';
import { clause } from '../../protocol/sentence';
import type { RewindableSession, RewindOutcome, RewindPlan } from './checkpointApi';
import { openRewindPreview } from './checkpointDiff';
import { rewindPrompts } from './rewindPrompts';

export type RewindWhat = 'code' | 'conversation' | 'both';

/** The chat message a rewind goes to before: its turn (undone with every later one) and its text. */
export interface RewoundMessage {
  turn: number;
  text: string;
}

/** What a rewind needs of the window it runs in. */
export interface RewindHost {
  readonly logger: Logger;
  session(): RewindableSession | undefined;
  busy(): boolean;
  /**
   * The conversation changed (the rewind `rewindId`, or its undo): the chat shows it as it now is, with
   * `prompt` (the text of the message it went back to before) in the prompt box.
   */
  conversationChanged(change: { rewindId: string; undo: boolean; prompt?: string }): Promise<void>;
  /** Files or the timeline changed: the chat's marks and the inspector are redrawn. */
  changed(): Promise<void>;
  /** The newest rewind of the session not undone yet (from its timeline), for an Undo after a reload. */
  lastRewindId(): string | undefined;
}
const message = (e: unknown) => clause(e instanceof Error ? e.message : String(e));

/** What the modal says beside its question: each part of the plan in a sentence (`before`: a message's turn). */
function planWords(
  plan: RewindPlan,
  what: RewindWhat,
  before?: number,
): { lines: string[]; code: number; conversation: boolean } {
  const lines: string[] = [];
  const files = plan.code?.files ?? [];
  const conflicts = files.filter((f) => f.conflict);
  const code = files.length - conflicts.length;
  if (what !== 'conversation') {
    if (plan.codeUnavailable)
      lines.push(vscode.l10n.t('The files cannot be rewound: {0}', clause(plan.codeUnavailable)));
    else if (files.length === 0)
      lines.push(
        before === undefined
          ? vscode.l10n.t('No file changed after turn {0}: the files stay as they are.', plan.toTurn)
          : vscode.l10n.t('No file changed from this message (turn {0}) on: the files stay as they are.', before),
      );
    if (conflicts.length > 0)
      lines.push(
        conflicts.length === 1
          ? vscode.l10n.t('1 file you changed after the agent will be left as it is: {0}', conflicts[0].path)
          : vscode.l10n.t(
              '{0} files you changed after the agent will be left as they are: {1}',
              conflicts.length,
              conflicts.map((f) => f.path).join(', '),
            ),
      );
    const skipped = plan.code?.skipped ?? [];
    if (skipped.length > 0)
      lines.push(
        vscode.l10n.t('Not covered by the checkpoints, left as they are: {0}', skipped.map((s) => s.path).join(', ')),
      );
  }
  const conv = what !== 'code' ? plan.conversation : undefined;
  if (conv?.compactedAway)
    lines.push(
      vscode.l10n.t('The conversation cannot go back to turn {0}: {1}', plan.toTurn, clause(conv.compactedAway)),
    );
  else if (conv && conv.droppedTurns > 0)
    lines.push(
      conv.droppedTurns === 1
        ? vscode.l10n.t('1 later turn leaves the conversation (it stays on disk as a side branch).')
        : vscode.l10n.t(
            '{0} later turns leave the conversation (they stay on disk as a side branch).',
            conv.droppedTurns,
          ),
    );
  else if (conv) lines.push(vscode.l10n.t('The conversation already ends at turn {0}.', plan.toTurn));
  return { lines, code, conversation: !!conv && !conv.compactedAway && conv.droppedTurns > 0 };
}

/** The modal's question: to right after `toTurn`, or (`before`, a message's turn) to before that message. */
function question(code: number, conversation: boolean, toTurn: number, before?: number): string {
  // Each: 1 file and the conversation, N files and the conversation, 1 file, N files, the conversation.
  const asks =
    before === undefined
      ? [
          vscode.l10n.t('Rewind 1 file and the conversation to after turn {0}?', toTurn),
          vscode.l10n.t('Rewind {0} files and the conversation to after turn {1}?', code, toTurn),
          vscode.l10n.t('Rewind 1 file to after turn {0}?', toTurn),
          vscode.l10n.t('Rewind {0} files to after turn {1}?', code, toTurn),
          vscode.l10n.t('Rewind the conversation to after turn {0}?', toTurn),
        ]
      : [
          vscode.l10n.t('Rewind 1 file and the conversation to before this message (turn {0})?', before),
          vscode.l10n.t('Rewind {0} files and the conversation to before this message (turn {1})?', code, before),
          vscode.l10n.t('Rewind 1 file to before this message (turn {0})?', before),
          vscode.l10n.t('Rewind {0} files to before this message (turn {1})?', code, before),
          vscode.l10n.t('Rewind the conversation to before this message (turn {0})?', before),
        ];
  const files = code === 1 ? 0 : 1;
  if (code > 0) return asks[(conversation ? 0 : 2) + files];
  return asks[4];
}

/** Where a rewind went, for its summary: before a message's turn, or right after a turn. */
function rewoundTo(toTurn: number, before: number | undefined, what: string): string {
  if (before !== undefined) return vscode.l10n.t('Rewound to before this message (turn {0}): {1}.', before, what);
  if (toTurn === 0) return vscode.l10n.t('Rewound to before the first prompt: {0}.', what);
  return vscode.l10n.t('Rewound to right after turn {0}: {1}.', toTurn, what);
}

/** What a rewind (or its undo) did, in the person's language: its files, its conflicts, its turns. */
function outcomeWords(outcome: RewindOutcome, undo: boolean, before?: number): string {
  const parts: string[] = [];
  const code = outcome.code;
  if (code) {
    parts.push(vscode.l10n.t('{0} files written back, {1} deleted', code.written.length, code.deleted.length));
    if (code.conflicts.length > 0)
      parts.push(vscode.l10n.t('left as you changed them: {0}', code.conflicts.join(', ')));
  }
  if (outcome.conversation && !undo)
    parts.push(vscode.l10n.t('{0} later turns dropped from the conversation', outcome.conversation.droppedTurns));
  if (outcome.conversation && undo) parts.push(vscode.l10n.t('the conversation is back'));
  const what = parts.join('; ');
  if (undo) return what ? vscode.l10n.t('The rewind was undone: {0}.', what) : vscode.l10n.t('The rewind was undone.');
  return what ? rewoundTo(outcome.toTurn, before, what) : vscode.l10n.t('Nothing was rewound.');
}

export class RewindFlow {
  /** The newest rewind of this window ("Engram: Undo Last Rewind"). */
  private last: RewindOutcome | undefined;

  constructor(private readonly host: RewindHost) {}

  /**
   * Rewinds `what` to right after `toTurn` (its prompt's transcript line picks it when two share the
   * number). With `from` (a chat message's action, `toTurn` the turn before its own) the words say
   * "before this message", and a conversation rewind puts the message's text back in the prompt box.
   */
  async rewind(
    toTurn: number,
    promptUuid: string | undefined,
    what: RewindWhat,
    from?: RewoundMessage,
  ): Promise<RewindOutcome | undefined> {
    const prompts = rewindPrompts();
    const session = this.host.session();
    if (!session) {
      await prompts.tell('info', vscode.l10n.t('There is nothing to rewind: this chat has no session yet.'));
      return undefined;
    }
    if (this.host.busy()) {
      await prompts.tell('info', vscode.l10n.t('Wait for the turn to end (or stop it) before rewinding.'));
      return undefined;
    }
    const code = what !== 'conversation';
    const conversation = what !== 'code';
    let plan: RewindPlan;
    try {
      plan = await session.planRewind({ toTurn, ...(promptUuid ? { promptUuid } : {}), code, conversation });
    } catch (e) {
      this.host.logger.error('Planning a rewind failed', e);
      await prompts.tell('error', vscode.l10n.t('Could not plan the rewind: {0}', message(e)));
      return undefined;
    }
    const words = planWords(plan, what, from?.turn);
    if (words.code === 0 && !words.conversation) {
      // Only files the person changed are left: they can still be restored anyway, file by file.
      const conflicts = (plan.code?.files ?? []).filter((f) => f.conflict).map((f) => f.path);
      const restore = vscode.l10n.t('Restore Anyway…');
      const text = words.lines.join(' ') || vscode.l10n.t('Nothing to rewind.');
      const choice = await prompts.tell('info', text, conflicts.length > 0 ? [restore] : []);
      if (choice === restore) await this.restoreAnyway(session, toTurn, conflicts);
      return undefined;
    }
    if (plan.code && plan.code.files.length > 0)
      await openRewindPreview(plan.code, await session.turns()).catch((e: unknown) =>
        this.host.logger.warn(`The rewind preview did not open: ${String(e)}`),
      );
    const ok = await prompts.confirm(
      question(words.code, words.conversation, toTurn, from?.turn),
      words.lines.join('\n\n'),
      vscode.l10n.t('Rewind'),
    );
    if (!ok) return undefined;
    // Only what is to be done: a conversation already at the turn, or files that are all conflicts, is left.
    const apply: RewindPlan = {
      toTurn: plan.toTurn,
      ...(words.code > 0 && plan.code ? { code: plan.code } : {}),
      ...(words.conversation && plan.conversation ? { conversation: plan.conversation } : {}),
    };
    return this.apply(session, apply, from);
  }

  private async apply(
    session: RewindableSession,
    plan: RewindPlan,
    from: RewoundMessage | undefined,
  ): Promise<RewindOutcome | undefined> {
    const prompts = rewindPrompts();
    let outcome: RewindOutcome;
    try {
      outcome = await session.applyRewind(plan);
    } catch (e) {
      this.host.logger.error('A rewind failed', e);
      await prompts.tell('error', vscode.l10n.t('The rewind failed: {0}', message(e)));
      await this.host.changed();
      return undefined;
    }
    this.last = outcome;
    if (outcome.conversation)
      await this.host.conversationChanged({
        rewindId: outcome.id,
        undo: false,
        ...(from ? { prompt: from.text } : {}),
      });
    await this.host.changed();
    void this.tellOutcome(session, outcome, from?.turn);
    return outcome;
  }

  /** The outcome's summary, with Undo and (when files were left as conflicts) Restore anyway. */
  private async tellOutcome(session: RewindableSession, outcome: RewindOutcome, before?: number): Promise<void> {
    const prompts = rewindPrompts();
    const undo = vscode.l10n.t('Undo');
    const restore = vscode.l10n.t('Restore Anyway…');
    const conflicts = outcome.code?.conflicts ?? [];
    const failed = outcome.code?.failed ?? [];
    const failures = failed.map((f) => `${f.path}: ${clause(f.message)}`).join('; ');
    const said = outcomeWords(outcome, false, before);
    const text = failures ? `${said} ${vscode.l10n.t('Not rewound: {0}', failures)}` : said;
    const choice = await prompts.tell(
      failed.length > 0 ? 'warning' : 'info',
      text,
      conflicts.length > 0 ? [undo, restore] : [undo],
    );
    if (choice === undo) await this.undo(outcome.id);
    else if (choice === restore) await this.restoreAnyway(session, outcome.toTurn, conflicts);
  }

  /** The conflict files the person picks, written back anyway (their own change to them is lost). */
  private async restoreAnyway(session: RewindableSession, toTurn: number, conflicts: readonly string[]): Promise<void> {
    const prompts = rewindPrompts();
    const picked = await prompts.pickFiles(vscode.l10n.t('Restore anyway (your changes to them are lost)'), conflicts);
    if (!picked?.length) return;
    try {
      const plan = await session.planRewind({ toTurn, code: true, conversation: false });
      const outcome = await session.applyRewind(
        { toTurn, ...(plan.code ? { code: plan.code } : {}) },
        { force: picked },
      );
      this.last = outcome;
      await this.host.changed();
      await prompts.tell('info', outcomeWords(outcome, false));
    } catch (e) {
      this.host.logger.error('Restoring conflict files failed', e);
      await prompts.tell('error', vscode.l10n.t('Could not restore them: {0}', message(e)));
    }
  }

  /** Takes the rewind `id` back (the newest one without an id); says what it did. */
  async undo(id = this.last?.id ?? this.host.lastRewindId()): Promise<void> {
    const prompts = rewindPrompts();
    const session = this.host.session();
    if (!session || !id) {
      await prompts.tell('info', vscode.l10n.t('There is no rewind to undo in this chat.'));
      return;
    }
    try {
      const result = await session.undoRewind(id);
      if (this.last?.id === id) this.last = undefined;
      if (result.conversation) await this.host.conversationChanged({ rewindId: id, undo: true });
      await this.host.changed();
      await prompts.tell('info', outcomeWords(result, true));
    } catch (e) {
      this.host.logger.error('Undoing a rewind failed', e);
      await prompts.tell('error', vscode.l10n.t('Could not undo the rewind: {0}', message(e)));
    }
  }
}
