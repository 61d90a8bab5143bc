// The palette's rewind commands (issue 33): "Engram: Rewind to a Turn…" (a pick of the chat session's
// turns, "right after turn N", or before the first prompt; then of what to rewind) and "Engram: Undo Last
// Rewind", with the read-only documents the diff views of checkpoints are served from.
import * as vscode from 'vscode';
import type { RewindableSession, SessionTurn } from './checkpointApi';
import { CheckpointDocuments } from './checkpointDiff';
import type { RewindFlow, RewindWhat } from './rewindFlow';

/** What the commands need of the chat: its session's turns and checkpoints, and its rewind flow. */
export interface RewindChat {
  readonly checkpoints: {
    readonly flow: RewindFlow;
    turns(): Promise<SessionTurn[]>;
    rewindable(): RewindableSession | undefined;
  };
}

function filesChanged(turn: SessionTurn): string {
  const n = turn.checkpoint?.files.length ?? 0;
  if (n === 0) return vscode.l10n.t('no files changed');
  return n === 1 ? vscode.l10n.t('1 file changed') : vscode.l10n.t('{0} files changed', n);
}

/** Picks a turn, newest first; undefined when there is none or the person cancelled. */
async function pickTurn(chat: RewindChat): Promise<SessionTurn | undefined> {
  const turns = await chat.checkpoints.turns();
  if (turns.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('There is nothing to rewind: this chat has no turns yet.'));
    return undefined;
  }
  // Turn 0, last (the oldest, and not what a hasty Enter picks): as before the first prompt was sent.
  const start: SessionTurn = { turn: 0, prompt: '', compactedAway: false };
  const picked = await vscode.window.showQuickPick(
    [
      ...[...turns].reverse().map((turn) => ({
        label: vscode.l10n.t('Turn {0}', turn.turn),
        description: turn.prompt.replace(/\s+/g, ' ').slice(0, 80),
        detail: turn.compactedAway ? `${filesChanged(turn)} · ${vscode.l10n.t('compacted away')}` : filesChanged(turn),
        turn,
      })),
      {
        label: vscode.l10n.t('Before the first prompt'),
        description: vscode.l10n.t('Turn 0'),
        detail: vscode.l10n.t('as the session started'),
        turn: start,
      },
    ],
    { title: vscode.l10n.t('Rewind to right after which turn?'), matchOnDescription: true },
  );
  return picked?.turn;
}

async function pickWhat(): Promise<RewindWhat | undefined> {
  const choices: Array<{ label: string; what: RewindWhat }> = [
    { label: vscode.l10n.t('Code and conversation'), what: 'both' },
    { label: vscode.l10n.t('Code only'), what: 'code' },
    { label: vscode.l10n.t('Conversation only'), what: 'conversation' },
  ];
  return (await vscode.window.showQuickPick(choices, { title: vscode.l10n.t('What should go back?') }))?.what;
}

export function registerRewindCommands(chat: () => RewindChat): vscode.Disposable[] {
  return [
    new CheckpointDocuments(() => chat().checkpoints.rewindable()),
    vscode.commands.registerCommand('engram.rewind', async () => {
      const turn = await pickTurn(chat());
      const what = turn && (await pickWhat());
      if (turn && what) await chat().checkpoints.flow.rewind(turn.turn, turn.promptUuid, what);
    }),
    vscode.commands.registerCommand('engram.undoRewind', () => chat().checkpoints.flow.undo()),
  ];
}
