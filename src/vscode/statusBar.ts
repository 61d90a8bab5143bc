import * as vscode from 'vscode';
import type { GaugeState } from '../protocol/messages';

/** The context gauge in the status bar: percent used, coloured past the compaction marks; click opens the inspector. */
export class ContextStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('engram.context', vscode.StatusBarAlignment.Right, 100);
    this.item.name = vscode.l10n.t('Engram Context');
    this.item.command = 'engram.openInspector';
    this.update(undefined);
    this.item.show();
  }

  update(gauge: GaugeState | undefined): void {
    const percent = gauge && gauge.window > 0 ? Math.round((gauge.usedTokens / gauge.window) * 100) : 0;
    this.item.text = `$(pulse) ${percent}%`;
    const used = gauge ? gauge.usedTokens.toLocaleString('en-US') : '0';
    const window = gauge ? gauge.window.toLocaleString('en-US') : '-';
    this.item.tooltip = vscode.l10n.t('Engram context: {0} of {1} tokens used. Click to open the Memory Inspector.', used, window);
    const marks = gauge?.marks ?? [60, 80, 100];
    this.item.backgroundColor = percent >= marks[1]
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : percent >= marks[0] ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  get text(): string {
    return this.item.text;
  }

  dispose(): void {
    this.item.dispose();
  }
}
