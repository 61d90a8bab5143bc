import * as vscode from 'vscode';
import type { Logger } from '../core/ports';
import type { ChatItem, ChatSnapshot, GaugeState, HostToChat, PermissionChoice, SessionSummary } from '../protocol/messages';
import type { ChatBackend } from './chatBackend';
import type { InspectorSource } from './inspectorPanel';

const DEFAULT_MARKS = [60, 80, 100];

/** The chat state of one window: items shown in the Chat view, the busy flag and the context gauge. */
export class ChatSession implements ChatBackend, vscode.Disposable {
  private items: ChatItem[] = [];
  private busy = false;
  private sessionId: string | undefined;
  private readonly emitter = new vscode.EventEmitter<HostToChat>();
  private readonly inspectorChanged = new vscode.EventEmitter<void>();
  private nextId = 0;

  constructor(private readonly context: vscode.ExtensionContext, private readonly logger: Logger) {}

  onEvent(listener: (message: HostToChat) => void): vscode.Disposable {
    return this.emitter.event(listener);
  }

  gauge(): GaugeState {
    const config = vscode.workspace.getConfiguration('engram');
    return {
      usedTokens: 0,
      window: config.get<number>('contextWindow', 200_000),
      reservedForOutput: config.get<number>('maxOutputTokens', 16_000),
      marks: DEFAULT_MARKS,
      breakdown: [],
    };
  }

  snapshot(): ChatSnapshot {
    return {
      sessionId: this.sessionId,
      items: this.items,
      busy: this.busy,
      gauge: this.gauge(),
      modelLabel: vscode.workspace.getConfiguration('engram').get<string>('model', ''),
      trusted: vscode.workspace.isTrusted,
    };
  }

  async send(text: string): Promise<void> {
    if (this.busy) return;
    this.add({ kind: 'user', id: this.id(), text });
    this.add({ kind: 'notice', id: this.id(), level: 'warning', text: 'The agent is not connected yet.' });
  }

  stop(): void {
    this.setBusy(false);
  }

  newChat(): void {
    this.items = [];
    this.sessionId = undefined;
    this.emitter.fire({ type: 'snapshot', state: this.snapshot() });
  }

  answerPermission(_requestId: string, _choice: PermissionChoice): void {}

  async listSessions(): Promise<SessionSummary[]> {
    return [];
  }

  async resume(_sessionId: string): Promise<void> {}

  inspectorSource(): InspectorSource {
    return {
      snapshot: async () => ({
        source: 'Engram',
        sessionId: this.sessionId,
        gauge: this.gauge(),
        notes: { path: undefined, markdown: undefined },
        memory: { dir: undefined, entries: [] },
        timeline: [],
      }),
      onDidChange: (listener) => this.inspectorChanged.event(listener),
    };
  }

  private add(item: ChatItem): void {
    this.items.push(item);
    this.emitter.fire({ type: 'item', item });
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.emitter.fire({ type: 'busy', busy });
  }

  private id(): string {
    return `i${++this.nextId}`;
  }

  dispose(): void {
    this.emitter.dispose();
    this.inspectorChanged.dispose();
  }
}
