import type * as vscode from 'vscode';
import type { LiveSession } from '../../core/host/inspector';
import type { EngramSession } from '../../core/host/sessions';
import type { ChatSnapshot, GaugeState, HostToChat } from '../../protocol/messages';
import { dataDir, workspaceCwd } from '../settings';

/** What the chat session tells the Memory Inspector about the live session (the "current session" source). */
export type InspectorContext = LiveSession;

/** The live session (undefined before the first message) and this window's gauge, as the inspector reads them. */
export function liveInspectorContext(session: EngramSession | undefined, gauge: GaugeState): InspectorContext {
  return {
    sessionId: session?.sessionId,
    cwd: workspaceCwd(),
    dataDir: dataDir(),
    transcriptPath: session?.transcriptPath,
    gauge,
    notes: session?.notes,
    memoryDir: session?.memoryDir,
    timeline: session?.timeline ?? [],
    ...(session ? { pins: session.pins } : {}),
  };
}

/** What the inspector uses of the chat session (ChatSession implements it). */
export interface InspectorChat {
  inspectorContext(): InspectorContext;
  onInspectorChange(listener: () => void): vscode.Disposable;
  onEvent(listener: (message: HostToChat) => void): vscode.Disposable;
  snapshot(): ChatSnapshot;
}
