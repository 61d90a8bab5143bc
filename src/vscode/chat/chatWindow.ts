// What the parts of a chat window (the session slot, the turns, the event view, the change watchers)
// reach of the window they serve. ChatSession builds one of these and hands each part only the fields it
// declares it needs, so the parts never see each other or the whole ChatSession.
import type * as vscode from 'vscode';
import type { TeamSyncReport } from '../../core/host/team';
import type { Logger, PermissionPrompt } from '../../core/host/sessions';
import type { ChatItemsModel } from './chatItemsModel';
import type { CompactionFeedback } from './compactionFeedback';
import type { SlashHost } from './slashCommands';
import type { WorkspaceFiles } from './workspaceFiles';

export interface ChatWindow {
  readonly context: vscode.ExtensionContext;
  readonly logger: Logger;
  /** The items the Chat view shows, with their notices. */
  readonly items: ChatItemsModel;
  /** The workspace's files, for `@` mentions. */
  readonly files: WorkspaceFiles;
  /** Asks the person in the view when a tool needs permission. */
  readonly permissions: PermissionPrompt;
  readonly feedback: CompactionFeedback;
  /** Answers the slash commands. */
  readonly slash: SlashHost;
  busy(): boolean;
  setBusy(busy: boolean, status?: string): void;
  postGauge(): void;
  postSnapshot(): void;
  /** Anything the inspector shows may have changed. */
  inspectorChanged(): void;
  teamSynced(report: TeamSyncReport): void;
  stop(): void;
  newChat(): void;
  refreshSetup(): Promise<void>;
}
