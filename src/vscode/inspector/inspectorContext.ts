import type * as vscode from 'vscode';
import type { LiveSession } from '../../core/host/inspector';
import type { McpHub } from '../../core/host/mcp';
import type { EngramSession } from '../../core/host/sessions';
import type { ChatSnapshot, GaugeState, HostToChat } from '../../protocol/messages';
import { mcpInspection } from '../mcp/mcpServers';
import { dataDir, workspaceCwd } from '../settings';

/**
 * What the chat session tells the Memory Inspector about the live session (the "current session" source),
 * and the session's MCP hub, which the inspector's MCP buttons act on.
 */
export type InspectorContext = LiveSession & { mcpHub?: McpHub };

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
    mcp: () => mcpInspection(session?.mcp),
    ...(session?.mcp ? { mcpHub: session.mcp } : {}),
  };
}

/** What the inspector uses of the chat session (ChatSession implements it). */
export interface InspectorChat {
  inspectorContext(): InspectorContext;
  onInspectorChange(listener: () => void): vscode.Disposable;
  onEvent(listener: (message: HostToChat) => void): vscode.Disposable;
  snapshot(): ChatSnapshot;
  /** The timeline's checkpoint rows open a turn's diff through the chat (issue 33). */
  readonly checkpoints: { openDiff(target: { turn: number; promptUuid?: string }, path?: string): Promise<void> };
}
