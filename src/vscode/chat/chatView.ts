import * as vscode from 'vscode';
import type { Logger } from '../../core/host/sessions';
import { CHAT_TO_HOST_SHAPES, type ChatToHost, type HostToChat } from '../../protocol/messages';
import type { ChatBackend } from './chatBackend';
import { postSnapshotInParts } from './snapshotParts';
import { WebviewChannel } from '../webviewChannel';
import { renderWebviewHtml, webviewOptions } from '../webviewHtml';

export const CHAT_VIEW_ID = 'engram.chat';

/** The Chat view in the Engram activity bar container: a thin adapter between the webview and the backend. */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private channel: WebviewChannel<ChatToHost, HostToChat> | undefined;
  private readonly viewDisposables: vscode.Disposable[] = [];
  private readonly resolvedEmitter = new vscode.EventEmitter<void>();
  /** Fires when the view's webview has been created (tests and commands wait on it). */
  readonly onDidResolve = this.resolvedEmitter.event;
  view: vscode.WebviewView | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly backend: () => ChatBackend,
    private readonly logger: Logger,
  ) {}

  get rejectedMessages(): number {
    return this.channel?.rejected ?? 0;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = webviewOptions(this.extensionUri);
    for (const d of this.viewDisposables.splice(0)) d.dispose();
    const channel: WebviewChannel<ChatToHost, HostToChat> = new WebviewChannel<ChatToHost, HostToChat>(
      view.webview,
      'chat',
      CHAT_TO_HOST_SHAPES,
      {
        ready: () => postSnapshotInParts((message) => channel.post(message), this.backend().snapshot()),
        send: (m) => this.backend().send(m.text),
        stop: () => this.backend().stop(),
        newChat: () => this.backend().newChat(),
        permission: (m) => this.backend().answerPermission(m.requestId, m.choice),
        listSessions: async (m) =>
          channel.post({ type: 'sessions', requestId: m.requestId, sessions: await this.backend().listSessions() }),
        resume: (m) => this.backend().resume(m.sessionId),
        runCommand: (m) => {
          void (m.command === 'openMemory'
            ? vscode.commands.executeCommand('engram.openInspector', 'memory')
            : vscode.commands.executeCommand(`engram.${m.command}`));
        },
        openPath: (m) => this.backend().openPath(m.path),
        notRelevant: (m) => this.backend().notRelevant(m.itemId, m.file, m.undo),
        pin: (m) => this.backend().pin(m.itemId, m.text),
        retry: () => this.backend().retry(),
        editLast: (m) => this.backend().editLast(m.text),
        rewind: (m) => this.backend().checkpoints.rewind(m.itemId, m.what),
        openTurnDiff: (m) => this.backend().checkpoints.openTurnDiff(m.itemId),
        codeAction: async (m) => {
          await this.backend().codeAction(m.action, m.code);
        },
        findFiles: async (m) =>
          channel.post({ type: 'files', requestId: m.requestId, files: await this.backend().suggestFiles(m.query) }),
        setup: (m) => this.backend().setup(m.choice),
        ping: (m) => channel.post({ type: 'pong', requestId: m.requestId, text: `pong: ${m.text}` }),
      },
      this.logger,
    );
    this.channel = channel;
    this.viewDisposables.push(channel);
    this.render();
    this.viewDisposables.push(this.backend().onEvent((message) => channel.post(message)));
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
    });
    this.resolvedEmitter.fire();
  }

  private render(): void {
    const view = this.view;
    if (!view) return;
    view.webview.html = renderWebviewHtml(view.webview, this.extensionUri, 'chat', 'Engram Chat');
  }

  dispose(): void {
    this.resolvedEmitter.dispose();
    for (const d of this.viewDisposables.splice(0)) d.dispose();
  }
}
