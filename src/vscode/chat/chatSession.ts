// The chat of one window: opens the core EngramSession (new or resumed), forwards the person's prompts
// and commands to it, and turns its events into Chat view items, notices and gauge updates. Everything
// the session does (notes, memory, compaction, the timeline) lives in core; this is the VS Code adapter.
import * as vscode from 'vscode';
import type { ChainStage, EngramSession, SessionEvent } from '../../core/session/hostSession';
import type { Logger } from '../../core/ports';
import type { LockHolder } from '../../core/fs/writerLock';
import type { TeamSyncReport } from '../../core/memory/team/teamSyncTypes';
import type { ChatSnapshot, GaugeState, HostToChat, PermissionChoice, SessionSummary } from '../../protocol/messages';
import type { InspectorContext } from '../inspector/inspectorContext';
import { loadEngine } from '../loadEngine';
import { runSetupChoice, setupNeeded, usesOfflineDemo } from '../modelSetup';
import { dataDir, settings, settingsStore, workspaceCwd, workspaceTrusted } from '../settings';
import { teamMemoryToken, type TeamSyncChat } from '../teamMemory';
import type { ChatBackend } from './chatBackend';
import { chatGauge } from './chatGauge';
import { itemsFromMessages, recalledMemories, toolSummarizer } from './chatItems';
import { isRecallNotice } from '../../core/session/sessionNotices';
import { ChatItemsModel } from './chatItemsModel';
import { earlierSessions, openChatSession } from './openChatSession';
import { CompactionFeedback } from './compactionFeedback';
import { ManualCompactions } from './compactionPreview';
import { PermissionBridge } from './permissionBridge';
import { copyCode, insertCode } from './codeActions';
import { runSlashCommand } from './slashCommands';
import { WorkspaceFiles } from './workspaceFiles';

export class ChatSession implements ChatBackend, TeamSyncChat, vscode.Disposable {
  private busy = false;
  private session: EngramSession | undefined;
  private readonly emitter = new vscode.EventEmitter<HostToChat>();
  private readonly inspectorChanged = new vscode.EventEmitter<void>();
  private readonly teamSync = new vscode.EventEmitter<TeamSyncReport>();
  private readonly items = new ChatItemsModel(
    (m) => this.emitter.fire(m),
    (m, ...args) => vscode.l10n.t(m, ...args),
  );
  private readonly files = new WorkspaceFiles();
  /** The first-run screen shows (kept current: snapshot() must answer at once). */
  private setupScreen = false;
  /** `engram.model` changed while a session was open: the next message reopens it on the new model. */
  private modelChanged = false;
  private readonly permissions = new PermissionBridge(this.items, workspaceCwd);
  private readonly feedback = new CompactionFeedback({
    compactNow: () => void this.compact('auto'),
    turnAutoBackOn: () => this.session?.compaction.setAuto(true),
  });
  /** Compact Now and `/compact`, with the summary's preview (the Apply / Cancel commands act on it). */
  readonly compactions = new ManualCompactions({
    busy: () => this.busy,
    session: () => this.session,
    notice: (level, text) => this.items.notice(level, text),
    setBusy: (busy, status) => this.setBusy(busy, status),
    logError: (message, error) => this.logger.error(message, error),
  });
  private readonly disposables: vscode.Disposable[] = [];
  private unsubscribe: (() => void) | undefined;
  /** Continue this session with the next message (after the workspace was trusted). */
  private resumeOnNextSend: string | undefined;
  /** The running send's turn, stopped by Stop. */
  private turnAbort: AbortController | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly logger: Logger,
  ) {
    // An untrusted session was built without tools or project instructions: once the user trusts the
    // workspace, the next message continues the same session with both.
    this.disposables.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        if (!this.session) return;
        const sessionId = this.session.sessionId;
        this.stop();
        this.closeSession();
        this.resumeOnNextSend = sessionId;
        this.items.notice(
          'info',
          vscode.l10n.t('Workspace trusted: tools and project instructions are on from your next message.'),
        );
      }),
    );
    // With no session open, a changed window or mark still moves the gauge (the session posts its own).
    let model = settings().model;
    const offSettings = settingsStore().onChange((next) => {
      if (!this.session) this.postGauge();
      if (next.model !== model) {
        model = next.model;
        this.modelChanged = this.session !== undefined;
        if (this.session)
          this.items.notice(
            'info',
            vscode.l10n.t('Model set to {0}: your next message continues this conversation on it.', next.model),
          );
        // The header's model button reads the snapshot: redraw it, or it names the old model.
        this.emitter.fire({ type: 'snapshot', state: this.snapshot() });
      }
      void this.refreshSetup();
    });
    this.disposables.push(
      { dispose: offSettings },
      context.secrets.onDidChange(() => void this.refreshSetup()),
    );
    void this.refreshSetup();
  }

  onEvent(listener: (message: HostToChat) => void): vscode.Disposable {
    return this.emitter.event(listener);
  }

  gauge(): GaugeState {
    return chatGauge(this.session, settings());
  }

  snapshot(): ChatSnapshot {
    return {
      sessionId: this.session?.sessionId,
      items: this.items.items,
      busy: this.busy,
      gauge: this.gauge(),
      modelLabel: usesOfflineDemo() ? vscode.l10n.t('offline demo model') : settings().model,
      trusted: workspaceTrusted(),
      setupNeeded: this.setupScreen,
    };
  }

  /** Works out again whether the first-run screen shows, and redraws the view when that changed. */
  async refreshSetup(): Promise<void> {
    const needed = await setupNeeded(this.context);
    const changed = needed !== this.setupScreen;
    this.setupScreen = needed;
    if (changed || this.items.items.length === 0) this.emitter.fire({ type: 'snapshot', state: this.snapshot() });
  }

  /** A button of the first-run screen. */
  async setup(choice: 'apiKey' | 'baseUrl' | 'demo'): Promise<void> {
    await runSetupChoice(this.context, choice);
    await this.refreshSetup();
  }

  codeAction(action: 'copy' | 'insert', code: string): Promise<unknown> {
    return action === 'copy' ? copyCode(code) : insertCode(code);
  }

  suggestFiles(query: string): Promise<string[]> {
    return this.files.suggest(query);
  }

  /** Retry: the last prompt again, on the conversation before it. */
  retry(): Promise<void> {
    return this.redo(undefined);
  }

  /** Edit: `text` replaces the last prompt, and everything after it goes. */
  editLast(text: string): Promise<void> {
    return this.redo(text);
  }

  private async redo(edited: string | undefined): Promise<void> {
    if (this.busy) return;
    const last = [...this.items.items].reverse().find((i) => i.kind === 'user');
    if (!last || last.kind !== 'user') return;
    // Without a session the prompt never reached the model (no key, say): there is nothing to take back.
    const taken = this.session ? this.session.rewindLastTurn() : { prompt: last.text };
    if (!taken) {
      this.items.notice(
        'warning',
        vscode.l10n.t('Retry and Edit work on the newest message sent in this window, and not across a compaction.'),
      );
      return;
    }
    this.items.dropLastPrompt();
    this.emitter.fire({ type: 'snapshot', state: this.snapshot() });
    this.inspectorChanged.fire();
    if (edited !== undefined) await this.send(edited);
    else await this.send(taken.prompt, last.text);
  }

  get currentSessionId(): string | undefined {
    return this.session?.sessionId;
  }

  /** The project's auto-memory folder, once a session has started. */
  get memoryDirectory(): string | undefined {
    return this.session?.memoryDir;
  }

  /** `afterReload`: sent again after the session was read again from disk (continueAfterOthers). */
  async send(text: string, display = text, afterReload = false): Promise<void> {
    if (this.busy || !text.trim()) return;
    if (await runSlashCommand(this, text)) return;
    this.setBusy(true);
    // Stop ends a wait for another process's turn too, not only this window's own turn.
    const turn = new AbortController();
    this.turnAbort = turn;
    let changedElsewhere: string | undefined;
    try {
      const attached = await this.files.attach(text);
      this.items.user(display, attached.files);
      for (const s of attached.skipped)
        this.items.notice('warning', vscode.l10n.t('Not attached: {0} ({1}).', s.path, s.reason));
      if (this.modelChanged && this.session) {
        this.resumeOnNextSend = this.session.sessionId;
        this.closeSession();
      }
      this.modelChanged = false;
      const session = await this.ensureSession(this.resumeOnNextSend);
      this.resumeOnNextSend = undefined;
      if (!session) return;
      if (!afterReload) {
        void loadEngine()
          .appendHistory(dataDir(), {
            display,
            timestamp: Date.now(),
            project: workspaceCwd(),
            sessionId: session.sessionId,
          })
          .catch((e) => this.logger.warn(`Could not append to history.jsonl: ${String(e)}`));
      }
      await session.runTurn(
        text,
        turn.signal,
        attached.blocks.length > 0 ? { attachments: attached.blocks } : undefined,
      );
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      if (name === 'SessionChangedError' && !afterReload) changedElsewhere = this.session?.sessionId;
      else if (!turn.signal.aborted) {
        this.logger.error('The chat turn failed', error);
        this.items.notice(
          'error',
          vscode.l10n.t(
            'Something went wrong: {0}. See "Engram: Show Log".',
            error instanceof Error ? error.message : String(error),
          ),
        );
      }
    } finally {
      this.turnAbort = undefined;
      this.items.finishStreaming();
      this.setBusy(false);
      this.inspectorChanged.fire();
    }
    if (changedElsewhere) await this.continueAfterOthers(changedElsewhere, text, display);
  }

  /**
   * Another window or `engram -p` wrote to this session since this window opened it (the engine noticed
   * before sending anything): the session is read again, so their turns show and the model sees them,
   * and the message is sent after them.
   */
  private async continueAfterOthers(sessionId: string, text: string, display: string): Promise<void> {
    await this.resume(sessionId);
    this.items.notice(
      'info',
      vscode.l10n.t(
        'This session was continued in another window or by engram -p: its newest turns are shown above, and your message follows them.',
      ),
    );
    await this.send(text, display, true);
  }

  /** Said in the busy line while another process has this session's turn. */
  private waitingFor(holder: LockHolder | undefined): void {
    const who = holder
      ? vscode.l10n.t('another Engram process (pid {0})', holder.pid)
      : vscode.l10n.t('another Engram process');
    this.setBusy(true, vscode.l10n.t('Waiting for {0} to finish its turn in this session…', who));
  }

  /** "Engram: Remember" and `/remember`: the main agent writes the memory file and its index line. */
  async remember(text: string): Promise<void> {
    const trimmed = text.trim();
    if (trimmed) await this.send(loadEngine().rememberPrompt(trimmed), vscode.l10n.t('Remember: {0}', trimmed));
  }

  /** `/help`: answered in the view, never sent to the model. */
  help(): void {
    this.items.local({ kind: 'help' });
  }

  /** `/context`: the gauge's breakdown as a chat item. */
  showContext(): void {
    this.items.local({ kind: 'context', gauge: this.gauge() });
  }

  /** `/memory`: the Memory Inspector at its memory pane. */
  async openMemory(): Promise<void> {
    await vscode.commands.executeCommand('engram.openInspector', 'memory');
  }

  stop(): void {
    this.turnAbort?.abort();
    this.session?.cancel();
    this.permissions.denyAll();
  }

  newChat(): void {
    this.stop();
    this.closeSession();
    this.items.reset();
    this.emitter.fire({ type: 'snapshot', state: this.snapshot() });
    this.inspectorChanged.fire();
  }

  async resume(sessionId: string): Promise<void> {
    if (this.busy) return;
    this.newChat();
    this.setBusy(true, vscode.l10n.t('Loading the session…'));
    try {
      const session = await this.ensureSession(sessionId);
      if (session) {
        this.items.reset(
          itemsFromMessages(
            session.agent.messages,
            toolSummarizer(session.agent.offeredTools),
            session.resumed?.fullOutputs,
          ),
        );
        this.emitter.fire({ type: 'snapshot', state: this.snapshot() });
      }
    } finally {
      this.setBusy(false);
    }
  }

  listSessions(): Promise<SessionSummary[]> {
    return earlierSessions(this.session?.sessionId);
  }

  async notRelevant(itemId: string, file: string, undo: boolean): Promise<void> {
    const words = this.items.markRecall(itemId, file, !undo);
    if (!words || !this.session) return;
    try {
      await this.session.markNotRelevant(file, words, undo);
    } catch (e) {
      this.items.markRecall(itemId, file, undo);
      this.items.notice(
        'error',
        vscode.l10n.t(
          'Could not record that {0} is not relevant: {1}',
          file,
          e instanceof Error ? e.message : String(e),
        ),
      );
    }
    this.inspectorChanged.fire();
  }

  async openPath(path: string): Promise<void> {
    if (!this.items.linkedPaths.has(path)) {
      this.logger.warn(`chat: refused to open a path it did not link: ${path}`);
      return;
    }
    await vscode.window.showTextDocument(vscode.Uri.file(path), { preview: true });
  }

  answerPermission = (requestId: string, choice: PermissionChoice): void => this.permissions.answer(requestId, choice);

  /** Compacts now (commands, `/compact [focus]`); not while a turn adds to the conversation. */
  compact(stage: ChainStage, focus?: string): Promise<boolean> {
    return this.compactions.run(stage, focus);
  }

  /** Undoes the latest compaction (the inspector's "Undo compaction", the command). */
  async undoLastCompaction(): Promise<boolean> {
    if (this.busy || !this.session) return false;
    return this.session.undoLastCompaction();
  }

  /** What automatic compaction would do before the next model call ('none' without a session). */
  nextCompaction(): string {
    return this.session?.nextCompaction() ?? 'none';
  }

  /** Resolves when no background memory work runs (tests and shutdown). */
  idleForTests(): Promise<void> {
    return this.session?.idle() ?? Promise.resolve();
  }

  /** The live session as the Memory Inspector sees it. */
  inspectorContext(): InspectorContext {
    return {
      sessionId: this.session?.sessionId,
      cwd: workspaceCwd(),
      dataDir: dataDir(),
      transcriptPath: this.session?.transcriptPath,
      gauge: this.gauge(),
      notes: this.session?.notes,
      memoryDir: this.session?.memoryDir,
      timeline: this.session?.timeline ?? [],
    };
  }

  /** Fires when anything the inspector shows may have changed (turn end, notes, memory, compaction). */
  onInspectorChange(listener: () => void): vscode.Disposable {
    return this.inspectorChanged.event(listener);
  }

  /** Every team sync report of the open session (at its start, after team writes, by command). */
  onTeamSync(listener: (report: TeamSyncReport) => void): vscode.Disposable {
    return this.teamSync.event(listener);
  }

  /** The open session's sync, when it has team memory on and can sync; else the command syncs on its own. */
  sessionSync(): Promise<TeamSyncReport> | undefined {
    const team = this.session?.teamMemory;
    return team?.on && team.canSync ? this.session!.syncTeamMemory() : undefined;
  }

  /** The token in Secret Storage changed: the open session syncs with the new one from its next sync. */
  async teamTokenChanged(): Promise<void> {
    this.session?.setTeamMemoryToken(await teamMemoryToken(this.context.secrets));
  }

  teamSynced(): void {
    this.inspectorChanged.fire();
  }

  /** Lets the inspector link to a file from the chat too (e.g. after it opened a memory entry). */
  allowPath(path: string): void {
    this.items.linkedPaths.add(path);
  }

  private async ensureSession(resumeSessionId?: string): Promise<EngramSession | undefined> {
    if (this.session) return this.session;
    const opened = await openChatSession(this.context, this.logger, this.permissions, resumeSessionId, (holder) =>
      this.waitingFor(holder),
    );
    if ('error' in opened) {
      this.items.notice('error', opened.error, 'setApiKey');
      return undefined;
    }
    const { session } = opened;
    for (const warning of session.warnings) this.items.notice('warning', warning);
    for (const notice of session.notices) this.items.notice('info', notice);
    this.session = session;
    this.unsubscribe = session.on((event) => this.onSessionEvent(event));
    this.logger.info(
      `Session ${session.sessionId} (${resumeSessionId ? 'resumed' : 'new'}): ${session.transcriptPath}`,
    );
    return session;
  }

  private onSessionEvent(event: SessionEvent): void {
    switch (event.type) {
      case 'agent': {
        const e = event.event;
        this.items.onAgentEvent(e);
        // A wait for another process's turn is over once this one starts.
        if (e.type === 'turnStart') this.setBusy(true);
        if (e.type === 'retrying')
          this.setBusy(
            true,
            vscode.l10n.t(
              '{0} Retrying in {1} s (attempt {2} of {3}).',
              e.reason,
              Math.ceil(e.delayMs / 1000),
              e.attempt,
              e.maxRetries,
            ),
          );
        break;
      }
      case 'notice': {
        // The engine says it in English and hands over the template; the bundle says it in the user's language.
        // Recalled memories show as their own line under the prompt (the 'memory' event).
        if (event.words && isRecallNotice(event.words.template)) break;
        const text = event.words ? vscode.l10n.t(event.words.template, ...event.words.args) : event.text;
        const file = event.file ? { ...event.file, label: vscode.l10n.t(event.file.label) } : undefined;
        this.items.notice(event.level, text, event.action, file);
        break;
      }
      case 'compaction':
        this.feedback.onEvent(event.event);
        if (event.event.type === 'undone') this.inspectorChanged.fire();
        break;
      case 'context':
        this.postGauge();
        break;
      case 'memory':
        if (event.event.type === 'memoryRecalled') this.items.recall(recalledMemories(event.event));
        if (event.event.type === 'memoryPending') {
          if (this.items.reviewWaiting(event.event.waiting))
            this.emitter.fire({ type: 'snapshot', state: this.snapshot() });
          this.inspectorChanged.fire();
        }
        break;
      case 'timeline':
      case 'settings':
        this.inspectorChanged.fire();
        break;
      case 'teamSync':
        this.teamSync.fire(event.report);
        this.inspectorChanged.fire();
        break;
      default:
        break;
    }
  }

  private postGauge(): void {
    this.emitter.fire({ type: 'gauge', gauge: this.gauge() });
  }

  private closeSession(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.session?.dispose();
    this.session = undefined;
  }

  private setBusy(busy: boolean, status?: string): void {
    this.busy = busy;
    this.emitter.fire({ type: 'busy', busy, ...(status ? { status } : {}) });
  }

  dispose(): void {
    this.stop();
    this.closeSession();
    this.feedback.dispose();
    this.compactions.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.emitter.dispose();
    this.inspectorChanged.dispose();
    this.teamSync.dispose();
  }
}
