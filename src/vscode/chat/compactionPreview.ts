// "Compact Now" and `/compact` in VS Code. With `engram.compaction.preview` on (the default) the summary
// the model wrote, or the session notes that will replace the older messages, opens in a Markdown
// editor first; the person edits it if they like and applies it (the editor's title button, the
// notification, or the palette), or cancels (the same places, or by closing the editor). Apply reads
// the editor as it is then. Nothing changes in the conversation until Apply; the core refuses an Apply
// after the conversation moved on. Microcompact (nothing to read) and a plan with no summary apply at once.
import path from 'node:path';
import * as vscode from 'vscode';
import { previewText } from '../../core/host/conversationDisplay';
import type { ChainStage, EngramSession } from '../../core/host/sessions';
import { settings } from '../settings';
import { droppedNoteLines, registerDroppedLens } from './droppedLens';

type Compaction = EngramSession['compaction'];
type Prepared = Awaited<ReturnType<Compaction['prepareCompaction']>>;

/** The preview editor's file name (the editor title buttons show for it). */
export const PREVIEW_FILE = 'engram-compaction-preview.md';
/** True while a preview waits for Apply or Cancel (the palette and title buttons show then). */
const CONTEXT_KEY = 'engram.compactionPreview';

export interface ManualCompactHost {
  busy(): boolean;
  session(): EngramSession | undefined;
  notice(level: 'info' | 'warning' | 'error', text: string): void;
  setBusy(busy: boolean, status?: string): void;
  logError(message: string, error: unknown): void;
}

interface OpenPreview {
  compaction: Compaction;
  prepared: Prepared;
  document: vscode.TextDocument;
  /** Set once applied or cancelled: closing the editor afterwards is not a cancel. */
  settled: boolean;
}

export class ManualCompactions implements vscode.Disposable {
  private open: OpenPreview | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly host: ManualCompactHost) {
    // What the summary under review would not carry, above its text (droppedLens.ts).
    this.disposables.push(registerDroppedLens(() => (this.open && !this.open.settled ? this.open : undefined)));
    // Closing the preview editor without applying is a cancel.
    this.disposables.push(
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        const open = this.open;
        if (
          !open ||
          open.settled ||
          !e.closed.some((tab) => isTabOf(tab, open.document.uri)) ||
          tabsOf(open.document.uri).length > 0
        )
          return;
        void this.cancel();
      }),
    );
  }

  /** Compacts now; resolves true when it applied or a preview opened for review. */
  async run(stage: ChainStage, focus?: string): Promise<boolean> {
    const session = this.host.session();
    if (this.host.busy()) {
      this.host.notice('warning', vscode.l10n.t('Wait for the current answer (or stop it) before compacting.'));
      return false;
    }
    if (!session || session.agent.messages.length === 0) {
      this.host.notice('info', vscode.l10n.t('Nothing to compact yet: the conversation is empty.'));
      return false;
    }
    const preview = settings().compaction.preview && stage !== 'micro';
    if (this.open) await this.cancel(true);
    this.host.setBusy(
      true,
      !preview
        ? vscode.l10n.t('Compacting…')
        : stage === 'session-memory'
          ? vscode.l10n.t('Preparing the compaction…')
          : vscode.l10n.t('Writing the summary…'),
    );
    try {
      if (!preview) return (await session.compactNow(stage, focus)).ok;
      const prepared = await session.compaction.prepareCompaction(stage, focus);
      if (!prepared.review) return await this.applyAtOnce(session, prepared, stage);
      await this.show(session.compaction, prepared, path.dirname(session.transcriptPath));
      return true;
    } catch (error) {
      this.host.logError('Compaction failed', error);
      this.host.notice(
        'error',
        vscode.l10n.t('Compaction failed: {0}', error instanceof Error ? error.message : String(error)),
      );
      return false;
    } finally {
      // Once the summary is written and waits in the editor, the chat says so rather than "Writing…".
      this.host.setBusy(false, this.waitingStatus().idleStatus);
    }
  }

  /** The chat's status line while a preview waits for Apply or Cancel (nothing otherwise). */
  waitingStatus(): { idleStatus?: string } {
    const review = this.open && !this.open.settled ? this.open.prepared.review : undefined;
    if (!review) return {};
    return {
      idleStatus:
        review.kind === 'summary'
          ? vscode.l10n.t('Summary ready: review it in the editor, then Apply or Cancel.')
          : vscode.l10n.t('Session notes ready: review them in the editor, then Apply or Cancel.'),
    };
  }

  /** Applies the open preview with the editor's text ("Engram: Apply Compaction Summary"). */
  async apply(): Promise<boolean> {
    const open = this.open;
    if (!open || open.settled) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Engram: there is no compaction summary to apply.'));
      return false;
    }
    const text = previewText(open.document.getText());
    const result = await open.compaction.applyCompaction(open.prepared, text);
    if (result.code === 'invalid-edit' || result.code === 'busy') {
      // Still pending: the person fixes the text (or waits) and applies again.
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Engram: the summary was not applied: {0}', result.reason ?? ''),
      );
      this.offerChoice(open);
      return false;
    }
    await this.close(open);
    if (!result.ok) {
      this.host.notice('warning', vscode.l10n.t('The compaction was not applied: {0}', result.reason ?? ''));
      return false;
    }
    if (result.events.some((e) => e.summaryEdited))
      this.host.notice('info', vscode.l10n.t('Your edited summary now opens the conversation.'));
    return true;
  }

  /** Drops the open preview ("Engram: Cancel Compaction", or its editor closed): the conversation stays as it is. */
  async cancel(quiet = false): Promise<boolean> {
    const open = this.open;
    if (!open || open.settled) return false;
    open.compaction.cancelCompaction(open.prepared);
    await this.close(open);
    if (!quiet) this.host.notice('info', vscode.l10n.t('Compaction cancelled: the conversation is unchanged.'));
    return true;
  }

  private async applyAtOnce(session: EngramSession, prepared: Prepared, stage: ChainStage): Promise<boolean> {
    const result = await session.compaction.applyCompaction(prepared);
    if (!result.ok)
      this.host.notice(
        'warning',
        vscode.l10n.t('Could not compact ({0}): {1}.', stage, result.reason ?? vscode.l10n.t('no reason given')),
      );
    return result.ok;
  }

  private async show(compaction: Compaction, prepared: Prepared, dir: string): Promise<void> {
    const review = prepared.review!;
    const header =
      review.kind === 'summary'
        ? vscode.l10n.t(
            'Engram: this summary will replace the conversation up to its most recent messages. Edit it if you ' +
              'like (keep the section titles), then choose Apply or Cancel in the editor title. Closing this editor ' +
              'cancels. This note is not part of the summary.',
          )
        : vscode.l10n.t(
            'Engram: these session notes will replace the older messages of the conversation. Edit them if you ' +
              'like (keep the headings), then choose Apply or Cancel in the editor title. Closing this editor ' +
              'cancels. This note is not part of the notes.',
          );
    const uri = vscode.Uri.file(path.join(dir, PREVIEW_FILE)).with({ scheme: 'untitled' });
    const document = await vscode.workspace.openTextDocument(uri);
    const edit = new vscode.WorkspaceEdit();
    // The items the summary would not carry, a line each, each with its lens (droppedLens.ts).
    const items = droppedNoteLines(prepared.dropped);
    const note = items.length > 0 ? `<!-- ${[header, '', ...items].join('\n')}\n-->` : `<!-- ${header} -->`;
    edit.replace(uri, new vscode.Range(0, 0, document.lineCount, 0), `${note}\n${review.text}\n`);
    await vscode.workspace.applyEdit(edit);
    const open: OpenPreview = { compaction, prepared, document, settled: false };
    this.open = open;
    await vscode.window.showTextDocument(document, { preview: false });
    await vscode.commands.executeCommand('setContext', CONTEXT_KEY, true);
    this.host.notice(
      'info',
      review.kind === 'summary'
        ? vscode.l10n.t('Review the summary in the editor, then Apply or Cancel.')
        : vscode.l10n.t('Review the session notes in the editor, then Apply or Cancel.'),
    );
    this.offerChoice(open);
  }

  /** A notification with the two choices (it stays until chosen or dismissed; the title buttons stay too). */
  private offerChoice(open: OpenPreview): void {
    const apply = vscode.l10n.t('Apply');
    const cancel = vscode.l10n.t('Cancel');
    void vscode.window
      .showInformationMessage(
        vscode.l10n.t('Engram: apply the compaction summary as it is in the editor?'),
        apply,
        cancel,
      )
      .then((choice) => {
        if (this.open !== open || open.settled) return;
        if (choice === apply) void this.apply();
        if (choice === cancel) void this.cancel();
      });
  }

  private async close(open: OpenPreview): Promise<void> {
    open.settled = true;
    if (this.open === open) this.open = undefined;
    // The "Summary ready" line goes with the preview (unless a turn or another compaction runs now).
    if (!this.host.busy()) this.host.setBusy(false);
    await vscode.commands.executeCommand('setContext', CONTEXT_KEY, false);
    // An untitled editor with text would ask to be saved: revert it, then close it.
    for (const tab of tabsOf(open.document.uri)) {
      await vscode.window.showTextDocument(open.document, { viewColumn: tab.group.viewColumn, preview: false });
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  }

  dispose(): void {
    if (this.open) this.open.compaction.cancelCompaction(this.open.prepared);
    this.open = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function isTabOf(tab: vscode.Tab, uri: vscode.Uri): boolean {
  return tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString();
}

function tabsOf(uri: vscode.Uri): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => isTabOf(t, uri));
}
