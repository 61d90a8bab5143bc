// What UIs (chat view, inspector timeline) hear about the session notes: data only, rendered as is.
import type { CapReport } from './template';

export type NotesUpdateKind = 'init' | 'update';

export type SessionNotesEvent =
  | { type: 'notesCreated'; path: string; template: 'default' | 'user' }
  | { type: 'notesUpdateStarted'; path: string; kind: NotesUpdateKind; contextTokens: number; messageId: string }
  | {
      type: 'notesUpdated';
      path: string;
      kind: NotesUpdateKind;
      /** Tokens of the whole file after the update. */
      tokens: number;
      sections: Array<{ heading: string; tokens: number }>;
      /** The update went over a cap and the condense run followed. */
      condensed: boolean;
      /** What is still over a cap after everything (normally nothing). */
      overCap: CapReport;
      lastSummarizedMessageId: string;
      /** Sub-transcripts of the forks (`subagents/agent-<id>.jsonl`). */
      agentIds: string[];
      modelCalls: number;
      durationMs: number;
    }
  | { type: 'notesUpdateFailed'; path: string; kind: NotesUpdateKind; error: string };

export type SessionNotesListener = (event: SessionNotesEvent) => void;
