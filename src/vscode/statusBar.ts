import * as vscode from 'vscode';
import type { GaugeState } from '../protocol/messages';

/**
 * The context gauge in the status bar: percent used, coloured past the compaction marks; click opens the
 * inspector. With team memory on, the tooltip also tells the time and result of the last team sync.
 */
export class ContextStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private gauge: GaugeState | undefined;
  private teamLine: string | undefined;

  constructor() {
    this.item = vscode.window.createStatusBarItem('engram.context', vscode.StatusBarAlignment.Right, 100);
    this.item.name = vscode.l10n.t('Engram Context');
    this.item.command = 'engram.openInspector';
    this.update(undefined);
    this.item.show();
  }

  update(gauge: GaugeState | undefined): void {
    this.gauge = gauge;
    const percent = gauge && gauge.window > 0 ? Math.round((gauge.usedTokens / gauge.window) * 100) : 0;
    this.item.text = `$(pulse) ${percent}%`;
    const used = gauge ? gauge.usedTokens.toLocaleString('en-US') : '0';
    const window = gauge ? gauge.window.toLocaleString('en-US') : '-';
    const context = vscode.l10n.t(
      'Engram context: {0} of {1} tokens used. Click to open the Memory Inspector.',
      used,
      window,
    );
    this.item.tooltip = this.teamLine ? `${context}\n${this.teamLine}` : context;
    const marks = gauge?.marks ?? [60, 80, 100];
    this.item.backgroundColor =
      percent >= marks[1]
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : percent >= marks[0]
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }

  /** The team sync's line of the tooltip (undefined: team memory is off here). */
  setTeamSync(line: string | undefined): void {
    this.teamLine = line;
    this.update(this.gauge);
  }

  get text(): string {
    return this.item.text;
  }

  get tooltip(): string {
    return typeof this.item.tooltip === 'string' ? this.item.tooltip : (this.item.tooltip?.value ?? '');
  }

  dispose(): void {
    this.item.dispose();
  }
}
