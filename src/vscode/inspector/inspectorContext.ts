import type * as vscode from 'vscode';
import type { LiveSession } from '../../core/inspection/inspectorService';
import type { ChatSnapshot, HostToChat } from '../../protocol/messages';

/** What the chat session tells the Memory Inspector about the live session (the "current session" source). */
export type InspectorContext = LiveSession;

/** What the inspector uses of the chat session (ChatSession implements it). */
export interface InspectorChat {
  inspectorContext(): InspectorContext;
  onInspectorChange(listener: () => void): vscode.Disposable;
  onEvent(listener: (message: HostToChat) => void): vscode.Disposable;
  snapshot(): ChatSnapshot;
}
