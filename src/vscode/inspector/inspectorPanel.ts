import * as vscode from 'vscode';
import type { Logger } from '../../core/host/sessions';
import {
  INSPECTOR_TO_HOST_SHAPES,
  type GaugeState,
  type Handlers,
  type HostToInspector,
  type InspectorPane,
  type InspectorSnapshot,
  type InspectorToHost,
} from '../../protocol/messages';
import { WebviewChannel } from '../webviewChannel';
import { renderWebviewHtml, webviewOptions } from '../webviewHtml';

export const INSPECTOR_PANEL_TYPE = 'engram.inspector';

/** What the webview may ask for besides the page's own lifecycle (ready, refresh, ping). */
export type InspectorRequest = Exclude<InspectorToHost, { type: 'ready' | 'refresh' | 'ping' }>;

/** Supplies what the inspector shows and answers what it asks (inspectorController.ts). */
export interface InspectorSource {
  snapshot(): Promise<InspectorSnapshot>;
  onDidChange(listener: () => void): { dispose(): void };
  /** The live gauge while a response streams (between snapshots). */
  onGauge(listener: (gauge: GaugeState) => void): { dispose(): void };
  /** One handler per request type: a new request type fails the build until it is handled. */
  handlers(reply: (message: HostToInspector) => void): Handlers<InspectorRequest>;
}

/** The Memory Inspector: one webview panel, revealed again when already open. */
export class InspectorPanel implements vscode.Disposable {
  private static current: InspectorPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly channel: WebviewChannel<InspectorToHost, HostToInspector>;
  /** Snapshots are built one at a time; a change during a build asks for one more afterwards. */
  private building: Promise<void> | undefined;
  private again = false;

  static show(extensionUri: vscode.Uri, source: InspectorSource, logger: Logger): InspectorPanel {
    if (InspectorPanel.current) {
      InspectorPanel.current.panel.reveal();
      return InspectorPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(
      INSPECTOR_PANEL_TYPE,
      vscode.l10n.t('Engram Memory Inspector'),
      vscode.ViewColumn.Active,
      { ...webviewOptions(extensionUri), retainContextWhenHidden: false },
    );
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
    /** Public for tests (e.g. the test-only timeline hook of the controller). */
    readonly source: InspectorSource,
    private readonly logger: Logger,
  ) {
    const post = (m: HostToInspector) => this.channel.post(m);
    this.channel = new WebviewChannel<InspectorToHost, HostToInspector>(
      panel.webview,
      'inspector',
      INSPECTOR_TO_HOST_SHAPES,
      {
        ready: () => this.pushSnapshot(),
        refresh: () => this.pushSnapshot(),
        ping: (m) => post({ type: 'pong', requestId: m.requestId, text: `pong: ${m.text}` }),
        ...source.handlers(post),
      },
      logger,
    );
    this.disposables.push(
      this.channel,
      source.onDidChange(() => void this.pushSnapshot()),
      source.onGauge((gauge) => post({ type: 'gauge', gauge })),
      // Without retained context a hidden panel's page is gone; it says `ready` again when shown.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.channel.reset();
      }),
    );
    panel.webview.html = renderWebviewHtml(panel.webview, extensionUri, 'inspector', 'Engram Memory Inspector');
    panel.onDidDispose(() => this.dispose(), undefined, this.disposables);
  }

  get rejectedMessages(): number {
    return this.channel.rejected;
  }

  /** Scrolls the panel to a pane (the chat's `/memory`); shown once the page has drawn it. */
  revealPane(pane: InspectorPane): void {
    this.channel.post({ type: 'revealPane', pane });
  }

  /** Resolves once the newest snapshot has been posted (tests wait on it after changing files). */
  async refresh(): Promise<void> {
    await this.pushSnapshot();
  }

  private pushSnapshot(): Promise<void> {
    if (this.building !== undefined) {
      this.again = true;
      return this.building;
    }
    this.building = (async () => {
      do {
        this.again = false;
        try {
          this.channel.post({ type: 'snapshot', state: await this.source.snapshot() });
        } catch (error) {
          this.logger.error('inspector: building the snapshot failed', error);
        }
      } while (this.again && !this.disposed);
    })().finally(() => {
      this.building = undefined;
    });
    return this.building;
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
