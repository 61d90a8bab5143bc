// The one engine session a chat window has open at a time: opened (new or resumed) when a message needs
// it, closed on New Chat, and reopened on the same conversation when the workspace is trusted or the
// model changes. Apart from ChatSession, which decides what the window shows, because when a session is
// opened, closed and continued is its own concern.
import * as vscode from 'vscode';
import { instructionsShown } from '../../core/host/conversationDisplay';
import type { EngramSession, LockHolder } from '../../core/host/sessions';
import { hubClosed } from '../mcp/mcpServers';
import { noticeStaleMemories } from '../memoryHealthWatch';
import { currentProvider } from '../providerSetup';
import { workspaceTrusted } from '../settings';
import { showSessionEvent, type SessionEventView } from './chatSessionEvents';
import type { ChatWindow } from './chatWindow';
import { openChatSession } from './openChatSession';

/** What the slot needs of its chat window: how to open a session, and where its events show. */
export type SessionSlotOwner = Pick<ChatWindow, 'context' | 'logger' | 'permissions'> & SessionEventView;

export class ChatSessionSlot {
  private current: EngramSession | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Continue this session with the next message (after the workspace was trusted). */
  private resumeOnNextSend: string | undefined;
  /** `engram.model` or a provider setting changed while a session was open: the next message reopens it. */
  private modelChanged = false;

  constructor(private readonly owner: SessionSlotOwner) {}

  get session(): EngramSession | undefined {
    return this.current;
  }

  /**
   * The session the next message goes to: the open one, or one opened now (continuing the conversation
   * the window had, after a model change or the workspace's trust); undefined when it could not open.
   */
  async forNextMessage(): Promise<EngramSession | undefined> {
    if (this.modelChanged && this.current) {
      this.resumeOnNextSend = this.current.sessionId;
      this.close();
    }
    this.modelChanged = false;
    const session = await this.open(this.resumeOnNextSend);
    this.resumeOnNextSend = undefined;
    return session;
  }

  /** Closes the session; the next message opens it again, continuing the same conversation. */
  continueOnNextMessage(): void {
    if (!this.current) return;
    const sessionId = this.current.sessionId;
    this.close();
    this.resumeOnNextSend = sessionId;
  }

  /** The model or provider settings changed: a session open now is reopened on them by the next message. */
  modelSettingChanged(): void {
    this.modelChanged = this.current !== undefined;
  }

  /** The open session, or `resumeSessionId` (or a new one) opened now. */
  async open(resumeSessionId?: string): Promise<EngramSession | undefined> {
    if (this.current) return this.current;
    const { context, logger, items, permissions } = this.owner;
    items.authAction = currentProvider().id === 'anthropic' ? 'setApiKey' : 'cloudLogin';
    const opened = await openChatSession(context, logger, permissions, resumeSessionId, (holder) =>
      this.waitingFor(holder),
    );
    if ('error' in opened) {
      // A cloud's problem names the setting that fixes it; without a key, the key is the fix.
      items.notice('error', opened.error, items.authAction === 'setApiKey' ? 'setApiKey' : undefined);
      return undefined;
    }
    const { session } = opened;
    for (const warning of session.warnings) items.notice('warning', warning);
    for (const notice of session.notices) items.notice('info', notice);
    this.announceInstructions(session);
    this.current = session;
    this.unsubscribe = session.on((event) => showSessionEvent(event, this.owner));
    // In the background: the first memory health check of the window, then a line if memories went stale.
    void noticeStaleMemories(items, logger);
    logger.info(`Session ${session.sessionId} (${resumeSessionId ? 'resumed' : 'new'}): ${session.transcriptPath}`);
    return session;
  }

  /** The quiet line naming the instruction files the session loaded (again after a resume redraws the chat). */
  announceInstructions(session: EngramSession): void {
    this.owner.items.instructions(instructionsShown(session), !workspaceTrusted());
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    // The session closes its MCP servers' hub as it goes.
    if (this.current?.mcp) hubClosed(this.current.mcp);
    this.current?.dispose();
    this.current = undefined;
  }

  /** Said in the busy line while another process has this session's turn. */
  private waitingFor(holder: LockHolder | undefined): void {
    const who = holder
      ? vscode.l10n.t('another Engram process (pid {0})', holder.pid)
      : vscode.l10n.t('another Engram process');
    this.owner.setBusy(true, vscode.l10n.t('Waiting for {0} to finish its turn in this session…', who));
  }
}
