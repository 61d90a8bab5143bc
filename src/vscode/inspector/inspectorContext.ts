import type * as vscode from 'vscode';
import type { TimelineEntry } from '../../core/inspection/timeline';
import type { SessionNotes } from '../../core/memory/sessionNotes/updater';
import type { ChatSnapshot, GaugeState, HostToChat } from '../../protocol/messages';

/** What the chat session tells the Memory Inspector about the live session (the "current session" source). */
export interface InspectorContext {
  sessionId: string | undefined;
  /** The project folder (transcripts and memory are keyed by it). */
  cwd: string;
  dataDir: string;
  transcriptPath: string | undefined;
  gauge: GaugeState;
  notes: SessionNotes | undefined;
  memoryDir: string | undefined;
  timeline: readonly TimelineEntry[];
}

/** What the inspector uses of the chat session (ChatSession implements it). */
export interface InspectorChat {
  inspectorContext(): InspectorContext;
  onInspectorChange(listener: () => void): vscode.Disposable;
  onEvent(listener: (message: HostToChat) => void): vscode.Disposable;
  snapshot(): ChatSnapshot;
}
