// "Engram: Tidy Memory" (issue 32 item 6): the model is asked once, with progress shown, to propose a
// tidy of the project's memory; each change opens as a diff of the memory folder in VS Code's diff
// editor (read-only `engram-tidy:` documents: the file before, and after the change), the person ticks
// the changes to apply in a list (none ticked at first) and confirms; the accepted ones are applied
// together with MEMORY.md as one step, and "Undo Tidy" takes it back. Nothing is written without that
// yes. With `engram.memory.tidyCadence: "daily"` a host calls prepareInBackground when a session opens:
// at most once a day after five sessions a proposal is prepared (never applied) and a notice says one
// is waiting.
import * as vscode from 'vscode';
import { modelReady } from '../core/host/config';
import type { Logger } from '../core/host/sessions';
import type { TidyChange, TidyProposal, TidyRecord } from '../core/host/memory';
import { loadEngine } from './loadEngine';
import { resolveModel } from './modelSetup';
import { dataDir, settings, workspaceCwd } from './settings';

const SCHEME = 'engram-tidy';

/** What the command may be given (tests, other commands): the change ids to apply without the list. */
export interface TidyRunOptions {
  accept?: string[];
}

export class MemoryTidy implements vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [];
  private last: { dir: string; id: string } | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly logger: Logger,
  ) {
    const texts = this.texts;
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
        provideTextDocumentContent: (uri) => texts.get(uri.toString()) ?? '',
      }),
      vscode.commands.registerCommand('engram.tidyMemory', (opts?: TidyRunOptions) => this.run(opts)),
      vscode.commands.registerCommand('engram.undoTidyMemory', () => this.undo()),
    );
  }

  /** Proposes (or takes the one waiting), shows the diffs, applies what the person accepts. */
  async run(opts: TidyRunOptions = {}): Promise<TidyRecord | undefined> {
    try {
      const proposal = await this.waiting().then((p) => p ?? this.propose());
      if (!proposal) return undefined;
      if (proposal.changes.length === 0) {
        void vscode.window.showInformationMessage(
          proposal.note ??
            vscode.l10n.t('The model proposed no change to memory ({0} refused).', proposal.refused.length),
        );
        return undefined;
      }
      for (const r of proposal.refused) this.logger.warn(`Tidy: refused ${r.kind} ${r.files.join(' + ')}: ${r.reason}`);
      this.showChangeLater(proposal, proposal.changes[0]);
      const accepted = opts.accept ?? (await this.pick(proposal));
      if (!accepted || accepted.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Nothing in memory was changed.'));
        return undefined;
      }
      const engine = loadEngine();
      const record = await engine.applyTidy(proposal.memoryDir, proposal, accepted);
      await engine.clearPendingTidy(proposal.memoryDir);
      this.last = { dir: proposal.memoryDir, id: record.id };
      void vscode.window
        .showInformationMessage(
          vscode.l10n.t('Memory tidied: {0} of {1} changes applied.', accepted.length, proposal.changes.length),
          vscode.l10n.t('Undo Tidy'),
        )
        .then((choice) => (choice ? this.undo() : undefined));
      return record;
    } catch (e) {
      this.logger.error(`Tidy memory failed: ${String(e)}`);
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Could not tidy memory: {0}', e instanceof Error ? e.message : String(e)),
      );
      return undefined;
    }
  }

  /** Takes the last applied tidy back (this window's, else the newest of the project). */
  async undo(): Promise<boolean> {
    const engine = loadEngine();
    const dir = this.last?.dir ?? (await engine.autoMemoryDir(dataDir(), workspaceCwd()));
    const id = this.last?.id ?? (await engine.listTidies(dir))[0]?.id;
    if (!id) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No memory tidy to undo.'));
      return false;
    }
    try {
      await engine.undoTidy(dir, id);
      this.last = undefined;
      void vscode.window.showInformationMessage(vscode.l10n.t('The memory tidy was undone.'));
      return true;
    } catch (e) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t('Could not undo the tidy: {0}', e instanceof Error ? e.message : String(e)),
      );
      return false;
    }
  }

  /**
   * When a session opens: counts it, and with the daily cadence on prepares a proposal in the background
   * when one is due (kept for review, never applied), then says one is waiting.
   */
  async prepareInBackground(): Promise<void> {
    const engine = loadEngine();
    const dir = await engine.autoMemoryDir(dataDir(), workspaceCwd());
    if (!(await engine.noteSessionForTidy(dir, settings().memory.tidyCadence))) return;
    const proposal = await this.ask(new AbortController().signal);
    await engine.keepPendingTidy(dir, proposal);
    if (proposal.changes.length === 0) return;
    const review = vscode.l10n.t('Review');
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t('A memory tidy is waiting for your review ({0} changes).', proposal.changes.length),
      review,
    );
    if (choice === review) await this.run();
  }

  private async waiting(): Promise<TidyProposal | undefined> {
    const engine = loadEngine();
    return engine.pendingTidy(await engine.autoMemoryDir(dataDir(), workspaceCwd()));
  }

  private propose(): Thenable<TidyProposal> {
    return vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Engram: the model is proposing a memory tidy…'),
        cancellable: true,
      },
      (_progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return this.ask(abort.signal);
      },
    );
  }

  private async ask(signal: AbortSignal): Promise<TidyProposal> {
    const engine = loadEngine();
    const config = await resolveModel(this.context.secrets, this.logger);
    if (!modelReady(config))
      throw new Error(vscode.l10n.t('No model is set up: set an API key or turn on the offline demo.'));
    const client = engine.createAnthropicClient(config, this.logger);
    const result = await engine.proposeProjectTidy(dataDir(), workspaceCwd(), { client, model: config.model, signal });
    for (const line of result.recovered) this.logger.warn(line);
    return result.proposal;
  }

  /** The change's files as diffs (before | after), the kept file's diff in front. */
  private async showChange(proposal: TidyProposal, change: TidyChange): Promise<void> {
    const diffs = await loadEngine().tidyDiffs(proposal.memoryDir, proposal, [change.id]);
    for (const d of [...diffs].reverse()) {
      const base = `${SCHEME}:/${proposal.id}/${change.id}`;
      const before = vscode.Uri.parse(`${base}/before/${d.file}`);
      const after = vscode.Uri.parse(`${base}/after/${d.file}`);
      this.texts.set(before.toString(), d.before);
      this.texts.set(after.toString(), d.after ?? '');
      const gone = d.after === null ? vscode.l10n.t(' (removed)') : '';
      await vscode.commands.executeCommand(
        'vscode.diff',
        before,
        after,
        vscode.l10n.t('Tidy [{0}] {1}{2}', change.id, d.file, gone),
        { preview: true, preserveFocus: true },
      );
    }
  }

  private showChangeLater(proposal: TidyProposal, change: TidyChange): void {
    this.showChange(proposal, change).catch((e: unknown) =>
      this.logger.warn(`Tidy: could not show a diff: ${String(e)}`),
    );
  }

  /** The list: one item per change (none ticked); an item's button shows its diff. */
  private pick(proposal: TidyProposal): Promise<string[] | undefined> {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { id: string }>();
    qp.canSelectMany = true;
    qp.ignoreFocusOut = true;
    qp.title = vscode.l10n.t('Tidy memory: tick the changes to apply, then press Enter');
    qp.items = proposal.changes.map((c) => ({
      id: c.id,
      label: `[${c.id}] ${kindLabel(c)} ${c.files.map((f) => f.file).join(' + ')}`,
      detail: c.reason,
      buttons: [{ iconPath: new vscode.ThemeIcon('diff'), tooltip: vscode.l10n.t('Show the diff') }],
    }));
    qp.onDidTriggerItemButton((e) => {
      const change = proposal.changes.find((c) => c.id === e.item.id);
      if (change) this.showChangeLater(proposal, change);
    });
    return new Promise((resolve) => {
      let done = false;
      qp.onDidAccept(() => {
        done = true;
        resolve(qp.selectedItems.map((i) => i.id));
        qp.hide();
      });
      qp.onDidHide(() => {
        if (!done) resolve(undefined);
        qp.dispose();
      });
      qp.show();
    });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function kindLabel(c: TidyChange): string {
  if (c.kind === 'merge') return vscode.l10n.t('Merge');
  if (c.kind === 'rewrite') return vscode.l10n.t('Rewrite');
  return vscode.l10n.t('Delete');
}
