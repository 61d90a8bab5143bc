import type {
  ChatSnapshot,
  HostToChat,
  PermissionChoice,
  RewindWhat,
  SessionSummary,
  SetupChoice,
} from '../../protocol/messages';

/** What the Chat view needs from the agent side; implemented by ChatSession over the core engine. */
export interface ChatBackend {
  snapshot(): ChatSnapshot;
  send(text: string): Promise<void>;
  stop(): void;
  newChat(): void;
  answerPermission(requestId: string, choice: PermissionChoice): void;
  listSessions(): Promise<SessionSummary[]>;
  resume(sessionId: string): Promise<void>;
  openPath(path: string): Promise<void>;
  /** A recalled memory's "Not relevant" on the recall item `itemId` (with `undo`, taken back). */
  notRelevant(itemId: string, file: string, undo: boolean): Promise<void>;
  /** Pins the message `itemId`, or `text` selected in it (issue 24). */
  pin(itemId: string, text?: string): Promise<void>;
  retry(): Promise<void>;
  editLast(text: string): Promise<void>;
  codeAction(action: 'copy' | 'insert', code: string): Promise<unknown>;
  suggestFiles(query: string): Promise<string[]>;
  setup(choice: SetupChoice): Promise<void>;
  /** Rewinds and turn diffs from the chat's messages (checkpoints, issue 33). */
  readonly checkpoints: {
    rewind(itemId: string, what: RewindWhat): Promise<void>;
    openTurnDiff(itemId: string): Promise<void>;
  };
  onEvent(listener: (message: HostToChat) => void): { dispose(): void };
}
