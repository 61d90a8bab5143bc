// The inspector's "Waiting for review" group, host side: Accept saves a proposal through the engine's
// memory writer (an edit saved in the editor counts; an unsaved one is saved first), Edit opens the
// proposal's file in an editor, Reject moves it aside with an Undo, and the toggle writes
// `engram.memory.extraction.review`. Only items of the last snapshot are acted on.
import path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/host/sessions';
import type { Handlers, InspectorSnapshot, InspectorToHost, PendingMemoryView } from '../../protocol/messages';
import { loadEngine } from '../loadEngine';
import type { ActionResult } from './memoryActions';

type PendingRequest = Extract<
  InspectorToHost,
  { type: 'acceptPending' | 'editPending' | 'rejectPending' | 'restorePending' | 'setReview' }
>;

export interface PendingContext {
  last(): InspectorSnapshot | undefined;
  /** The source is Claude Code's folder (or another read-only one): nothing is changed there. */
  readOnly(): boolean;
  changed(): void;
}

type Report = (result: ActionResult & { undoReject?: string }) => void;

/** The folder the queue lives in (`<memory>/.pending`, as pendingQueue.ts names it). */
const QUEUE_DIR = '.pending';

export class PendingActions {
  private report: Report = () => undefined;

  constructor(
    private readonly ctx: PendingContext,
    private readonly logger: Logger,
  ) {}

  /** The handlers of the queue's requests; outcomes go to `report` (the panel's status line). */
  handlers(report: Report): Handlers<PendingRequest> {
    this.report = report;
    return {
      acceptPending: (m) => this.accept(m.id),
      editPending: (m) => this.edit(m.id),
      rejectPending: (m) => this.reject(m.id),
      restorePending: (m) => this.restore(m.id),
      setReview: (m) => this.setReview(m.on),
    };
  }

  private item(id: string): { item: PendingMemoryView; dir: string; file: vscode.Uri } | undefined {
    const memory = this.ctx.last()?.memory;
    const item = memory?.review?.items.find((i) => i.id === id);
    if (!item || !memory?.dir) return undefined;
    return { item, dir: memory.dir, file: vscode.Uri.file(path.join(memory.dir, QUEUE_DIR, `${item.id}.md`)) };
  }

  private async accept(id: string): Promise<void> {
    const found = this.writable(id);
    if (!found) return;
    // An edit still in the editor is what the user means to keep.
    const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === found.file.fsPath);
    if (open?.isDirty) await open.save();
    await this.run(async () => {
      const saved = await loadEngine().inspector.acceptPending(found.dir, id);
      await closeProposal(found.file);
      return { text: vscode.l10n.t('Saved "{0}" in memory ({1}).', saved.title, saved.file), level: 'info' };
    });
  }

  private async edit(id: string): Promise<void> {
    const found = this.writable(id);
    if (!found) return;
    // Beside the inspector, so its Accept stays in view while the user edits.
    await vscode.window.showTextDocument(found.file, { preview: false, viewColumn: vscode.ViewColumn.Beside });
    this.report({
      text: vscode.l10n.t('Edit the proposal and save it, then Accept it in the inspector.'),
      level: 'info',
    });
  }

  private async reject(id: string): Promise<void> {
    const found = this.writable(id);
    if (!found) return;
    await this.run(async () => {
      if (vscode.workspace.textDocuments.find((d) => d.uri.fsPath === found.file.fsPath)?.isDirty) {
        throw new Error(
          vscode.l10n.t('"{0}" has unsaved edits in an editor: save or close them first.', found.item.title),
        );
      }
      await loadEngine().inspector.rejectPending(found.dir, id);
      await closeProposal(found.file);
      return {
        text: vscode.l10n.t('Rejected "{0}": it was not saved.', found.item.title),
        level: 'info',
        undoReject: id,
      };
    });
  }

  private async restore(id: string): Promise<void> {
    const dir = this.ctx.last()?.memory.dir;
    if (!dir || this.ctx.readOnly()) return;
    await this.run(async () => {
      const record = await loadEngine().inspector.restorePending(dir, id);
      return { text: vscode.l10n.t('{0} waits for review again.', record.file), level: 'info' };
    });
  }

  private async setReview(on: boolean): Promise<void> {
    await vscode.workspace
      .getConfiguration('engram')
      .update('memory.extraction.review', on, vscode.ConfigurationTarget.Global);
    this.report({
      text: on
        ? vscode.l10n.t('Review is on: background memories wait here until you accept them.')
        : vscode.l10n.t('Review is off: the background agent saves memories directly.'),
      level: 'info',
    });
    this.ctx.changed();
  }

  private writable(id: string): ReturnType<PendingActions['item']> {
    if (this.ctx.readOnly()) return undefined;
    return this.item(id);
  }

  private async run(action: () => Promise<ActionResult & { undoReject?: string }>): Promise<void> {
    try {
      this.report(await action());
    } catch (error) {
      this.logger.warn(`inspector: review queue action failed: ${String(error)}`);
      this.report({ text: error instanceof Error ? error.message : String(error), level: 'error' });
    }
    this.ctx.changed();
  }
}

/** Closes the editor tabs of a proposal that was just accepted or rejected: their file has left the queue. */
async function closeProposal(file: vscode.Uri): Promise<void> {
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === file.fsPath && !t.isDirty);
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
}
