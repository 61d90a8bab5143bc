// The chat of one window as its views and commands see it: items, busy state and gauge, and each request
// handed to the part that carries it out (session slot, turns, event view, first-run screen); core does the rest.
import * as vscode from 'vscode';
import { sessionGauge } from '../../core/host/conversationDisplay';
import type { ChainStage, EngramSession, Logger } from '../../core/host/sessions';
import type { TeamSyncReport } from '../../core/host/team';
import type { ChatSnapshot, GaugeState, HostToChat, PermissionChoice, SessionSummary } from '../../protocol/messages';
import { liveInspectorContext, type InspectorContext } from '../inspector/inspectorContext';
import { loadEngine } from '../loadEngine';
import { modelButtonLabel, usesOfflineDemo } from '../modelSetup';
import { settings, workspaceCwd, workspaceTrusted } from '../settings';
import { teamMemoryToken, type TeamSyncChat } from '../teamMemory';
import type { ChatBackend } from './chatBackend';
import { ChatItemsModel } from './chatItemsModel';
import { pinFromChat } from './chatPins';
import { ChatSessionSlot } from './chatSessionSlot';
import { earlierSessions } from './openChatSession';
import { postSnapshotInParts } from './snapshotParts';
import { CompactionFeedback } from './compactionFeedback';
import { ManualCompactions } from './compactionPreview';
import { PermissionBridge } from './permissionBridge';
import { copyCode, insertCode } from './codeActions';
import { ChatTurns } from './chatTurns';
import { ChatCheckpoints } from './chatRewind';
import type { ChatWindow } from './chatWindow';
import { followChatWindowChanges } from './chatWindowChanges';
import { FirstRunScreen } from './firstRunScreen';
import { openLinkedPath, WorkspaceFiles } from './workspaceFiles';
import { withSearchEngine, windowRipgrep } from '../search/chatSearch';

export class ChatSession implements ChatBackend, TeamSyncChat, vscode.Disposable {
  private busy = false;
  /** The engine session this window has open (opened by the first message, or by Resume). */
  private readonly slot: ChatSessionSlot;
  private readonly emitter = new vscode.EventEmitter<HostToChat>();
  private readonly inspectorChanged = new vscode.EventEmitter<void>();
  private readonly teamSync = new vscode.EventEmitter<TeamSyncReport>();
  private readonly items = new ChatItemsModel(
    (m) => this.emitter.fire(m),
    (m, ...args) => vscode.l10n.t(m, ...args),
  );
  private readonly files = new WorkspaceFiles();
  private readonly firstRun: FirstRunScreen;
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
  private readonly turns: ChatTurns;
  readonly checkpoints: ChatCheckpoints;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly logger: Logger,
  ) {
    this.firstRun = new FirstRunScreen(
      context,
      () => this.postSnapshot(),
      () => this.items.items.length === 0,
    );
    const window: ChatWindow = {
      context,
      logger,
      items: this.items,
      files: this.files,
      permissions: this.permissions,
      feedback: this.feedback,
      slash: this,
      busy: () => this.busy,
      setBusy: (busy, status) => this.setBusy(busy, status),
      postGauge: () => this.postGauge(),
      postSnapshot: () => this.postSnapshot(),
      inspectorChanged: () => this.inspectorChanged.fire(),
      teamSynced: (report) => this.teamSync.fire(report),
      stop: () => this.stop(),
      newChat: () => this.newChat(),
      refreshSetup: () => this.refreshSetup(),
    };
    this.slot = new ChatSessionSlot(window);
    this.checkpoints = new ChatCheckpoints(window, () => this.slot.session);
    this.turns = new ChatTurns(window, this.slot, this.checkpoints);
    this.disposables.push(...followChatWindowChanges(window, this.slot), this.firstRun, this.files);
    void this.refreshSetup();
    void windowRipgrep().then(() => this.postGauge()); // the search engine, for /context before a first message
  }

  private get session(): EngramSession | undefined {
    return this.slot.session;
  }

  onEvent(listener: (message: HostToChat) => void): vscode.Disposable {
    return this.emitter.event(listener);
  }

  gauge(): GaugeState {
    return withSearchEngine(sessionGauge(this.session, { ...settings(), offlineDemo: usesOfflineDemo() }));
  }

  snapshot(): ChatSnapshot {
    return {
      sessionId: this.session?.sessionId,
      items: this.items.items,
      busy: this.busy,
      gauge: this.gauge(),
      modelLabel: modelButtonLabel(this.firstRun.shows),
      ...this.compactions.waitingStatus(),
      trusted: workspaceTrusted(),
      setupNeeded: this.firstRun.shows,
      ...this.checkpoints.snapshotPart(),
    };
  }

  /** Works out again whether the first-run screen shows, and redraws the view when that changed. */
  refreshSetup(): Promise<void> {
    return this.firstRun.refresh();
  }

  /** A button of the first-run screen. */
  setup(choice: Parameters<ChatBackend['setup']>[0]): Promise<void> {
    return this.firstRun.choose(choice);
  }

  codeAction(action: 'copy' | 'insert', code: string): Promise<unknown> {
    return action === 'copy' ? copyCode(code) : insertCode(code);
  }

  suggestFiles(query: string): Promise<string[]> {
    return this.files.suggest(query);
  }

  /** Retry: the last prompt again, on the conversation before it. */
  retry(): Promise<void> {
    return this.turns.redo(undefined);
  }

  /** Edit: `text` replaces the last prompt, and everything after it goes. */
  editLast(text: string): Promise<void> {
    return this.turns.redo(text);
  }

  get currentSessionId(): string | undefined {
    return this.session?.sessionId;
  }

  /** The project's auto-memory folder, once a session has started. */
  get memoryDirectory(): string | undefined {
    return this.session?.memoryDir;
  }

  send(text: string, display = text): Promise<void> {
    return this.turns.send(text, display);
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
    this.turns.abort();
    this.session?.cancel();
    this.permissions.denyAll();
  }

  newChat(): void {
    this.stop();
    this.slot.close();
    this.items.reset();
    this.postSnapshot();
    this.inspectorChanged.fire();
  }

  resume(sessionId: string): Promise<void> {
    return this.turns.resume(sessionId);
  }

  listSessions(): Promise<SessionSummary[]> {
    return earlierSessions(this.session?.sessionId);
  }

  /** A recalled memory's "Not relevant" (with `undo`, taken back). */
  notRelevant(itemId: string, file: string, undo: boolean): Promise<void> {
    return this.turns.notRelevant(itemId, file, undo);
  }

  pin(itemId: string, text?: string): Promise<void> {
    return pinFromChat(this.items, this.session, itemId, text);
  }

  openPath(path: string): Promise<void> {
    return openLinkedPath(this.items.linkedPaths, path, this.logger);
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
    return liveInspectorContext(this.session, this.gauge());
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

  private postSnapshot(): void {
    postSnapshotInParts((message) => this.emitter.fire(message), this.snapshot());
  }

  private postGauge(): void {
    this.emitter.fire({ type: 'gauge', gauge: this.gauge() });
  }

  private setBusy(busy: boolean, status?: string): void {
    this.busy = busy;
    this.emitter.fire({ type: 'busy', busy, ...(status ? { status } : {}) });
  }

  dispose(): void {
    this.stop();
    this.slot.close();
    this.feedback.dispose();
    this.compactions.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.emitter.dispose();
    this.inspectorChanged.dispose();
    this.teamSync.dispose();
  }
}
