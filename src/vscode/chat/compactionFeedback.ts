// What only VS Code shows of a compaction: a notification with progress while the model writes a
// summary, and a warning with actions when automatic compaction stopped. The words of every other
// compaction line come from the core session as notices.
import * as vscode from 'vscode';
import type { OrchestratorEvent } from '../../core/host/sessions';

export interface CompactionActions {
  compactNow(): void;
  turnAutoBackOn(): void;
}

export class CompactionFeedback implements vscode.Disposable {
  private progress: { report(text: string): void; done(): void } | undefined;

  constructor(private readonly actions: CompactionActions) {}

  onEvent(event: OrchestratorEvent): void {
    if (event.type === 'progress') this.onProgress(event);
    if (event.type === 'autoCompactionStopped') {
      const compactNow = vscode.l10n.t('Compact Now');
      const backOn = vscode.l10n.t('Turn Back On');
      void vscode.window
        .showWarningMessage(
          vscode.l10n.t('Engram: automatic compaction stopped after {0} failures in a row.', event.failures),
          compactNow,
          backOn,
        )
        .then((choice) => {
          if (choice === compactNow) this.actions.compactNow();
          if (choice === backOn) this.actions.turnAutoBackOn();
        });
    }
  }

  /** A model-written summary takes a while: show it in a notification with progress. */
  private onProgress(event: Extract<OrchestratorEvent, { type: 'progress' }>): void {
    const p = event.progress;
    if (p.phase === 'started') {
      this.progress?.done();
      void vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Engram: compacting the conversation') },
        (reporter) =>
          new Promise<void>((resolve) => {
            this.progress = { report: (message) => reporter.report({ message }), done: resolve };
          }),
      );
    } else if (p.phase === 'streaming') {
      this.progress?.report(vscode.l10n.t('writing the summary ({0} characters)', p.chars));
    } else {
      this.progress?.done();
      this.progress = undefined;
    }
  }

  dispose(): void {
    this.progress?.done();
    this.progress = undefined;
  }
}
