import * as vscode from 'vscode';
import type { Logger } from '../core/ports';
import { INSPECTOR_TO_HOST_SHAPES, type HostToInspector, type InspectorSnapshot, type InspectorToHost } from '../protocol/messages';
import { WebviewChannel } from './webviewChannel';
import { renderWebviewHtml, webviewOptions } from './webviewHtml';

export const INSPECTOR_PANEL_TYPE = 'engram.inspector';

/** Supplies what the inspector shows; the engine side implements it. */
export interface InspectorSource {
  snapshot(): Promise<InspectorSnapshot>;
  onDidChange(listener: () => void): { dispose(): void };
}

/** The Memory Inspector: one webview panel, revealed again when already open. */
export class InspectorPanel implements vscode.Disposable {
  private static current: InspectorPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly channel: WebviewChannel<InspectorToHost, HostToInspector>;

  static show(extensionUri: vscode.Uri, source: InspectorSource, logger: Logger): InspectorPanel {
    if (InspectorPanel.current) {
      InspectorPanel.current.panel.reveal();
      return InspectorPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(INSPECTOR_PANEL_TYPE, vscode.l10n.t('Engram Memory Inspector'),
      vscode.ViewColumn.Active, { ...webviewOptions(extensionUri), retainContextWhenHidden: false });
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'engram.svg');
    InspectorPanel.current = new InspectorPanel(panel, extensionUri, source, logger);
    return InspectorPanel.current;
  }

  static get instance(): InspectorPanel | undefined {
    return InspectorPanel.current;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly source: InspectorSource,
    logger: Logger,
  ) {
    this.channel = new WebviewChannel<InspectorToHost, HostToInspector>(panel.webview, 'inspector', INSPECTOR_TO_HOST_SHAPES, {
      ready: () => this.pushSnapshot(),
      refresh: () => this.pushSnapshot(),
      openFile: (m) => this.openFile(m.path),
      ping: (m) => this.channel.post({ type: 'pong', requestId: m.requestId, text: `pong: ${m.text}` }),
    }, logger);
    this.disposables.push(this.channel, source.onDidChange(() => void this.pushSnapshot()));
    panel.webview.html = renderWebviewHtml(panel.webview, extensionUri, 'inspector', 'Engram Memory Inspector');
    panel.onDidDispose(() => this.dispose(), undefined, this.disposables);
  }

  get rejectedMessages(): number {
    return this.channel.rejected;
  }

  private async pushSnapshot(): Promise<void> {
    this.channel.post({ type: 'snapshot', state: await this.source.snapshot() });
  }

  private async openFile(path: string): Promise<void> {
    // Only files the current snapshot names may be opened: the webview cannot make us open anything else.
    const state = await this.source.snapshot();
    const known = new Set<string>([state.notes.path ?? '', ...state.memory.entries.map((e) => e.file)]);
    if (!known.has(path)) return;
    await vscode.window.showTextDocument(vscode.Uri.file(path), { preview: true });
  }

  private disposed = false;

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (InspectorPanel.current === this) InspectorPanel.current = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}
