import path from 'node:path';
import * as vscode from 'vscode';
import type { CompactionEvent } from '../../core/compaction/events';
import type { Logger } from '../../core/ports';
import { COMPACTION_MARKS } from '../../core/compactionMarks';
import type {
  ChatSnapshot, GaugeState, Handlers, HostToChat, HostToInspector, InspectorSnapshot, MemoryEntryView, TimelineView,
} from '../../protocol/messages';
import type { InspectorContext } from '../inspectorContext';
import type { InspectorRequest, InspectorSource } from '../inspectorPanel';
import { loadEngine } from '../loadEngine';
import { canUndoCompactions } from './compactionControl';
import { InspectorDocuments } from './inspectorDocuments';
import { vscodePrompts, type InspectorPrompts } from './inspectorPrompts';
import { MemoryActions, type ActionTarget } from './memoryActions';
import { pickInspectorSource, type InspectorSourceState } from './sourcePicker';

/** What the inspector uses of the chat session (ChatSession implements it). */
export interface InspectorChat {
  inspectorContext(): InspectorContext;
  onInspectorChange(listener: () => void): vscode.Disposable;
  onEvent(listener: (message: HostToChat) => void): vscode.Disposable;
  snapshot(): ChatSnapshot;
}

/** Coalesces bursts of changes (a turn end fires notes, memory and gauge at once) into one snapshot. */
const REFRESH_DEBOUNCE_MS = 120;

/**
 * The Memory Inspector's host side: what the panel shows (built by the engine chunk from the live
 * session or a source on disk) and what its buttons do. Files are opened only when the last snapshot
 * named them; everything the webview sends is a request to be checked, not an order.
 */
export class InspectorController implements InspectorSource, vscode.Disposable {
  private source: InspectorSourceState = { kind: 'current' };
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly gaugeChanged = new vscode.EventEmitter<GaugeState>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly actions: MemoryActions;
  private last: InspectorSnapshot | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private watcher: { dir: string; watcher: vscode.Disposable } | undefined;

  private prompts: InspectorPrompts = vscodePrompts;

  constructor(private readonly chat: InspectorChat, private readonly docs: InspectorDocuments, private readonly logger: Logger) {
    this.actions = new MemoryActions(logger, () => this.fireChanged(), () => this.prompts);
    this.disposables.push(
      chat.onInspectorChange(() => this.fireChanged()),
      chat.onEvent((m) => {
        if (this.source.kind !== 'current') return;
        if (m.type === 'gauge') this.gaugeChanged.fire(m.gauge);
        if (m.type === 'snapshot') this.fireChanged();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('engram')) this.fireChanged(); }),
      this.changed, this.gaugeChanged,
    );
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.changed.event(listener);
  }

  onGauge(listener: (gauge: GaugeState) => void): vscode.Disposable {
    return this.gaugeChanged.event(listener);
  }

  get currentSource(): InspectorSourceState {
    return this.source;
  }

  /**
   * TEST-ONLY HOOK: answers the inspector's modal confirmations and Undo notifications, which VS Code
   * refuses to show while extension tests run. Returns a function that puts VS Code's own back.
   */
  replacePromptsForTests(prompts: InspectorPrompts): () => void {
    this.prompts = prompts;
    return () => { this.prompts = vscodePrompts; };
  }

  setSource(source: InspectorSourceState): void {
    this.source = source;
    this.fireChanged(true);
  }

  async snapshot(): Promise<InspectorSnapshot> {
    const engine = loadEngine().inspector;
    const config = vscode.workspace.getConfiguration('engram');
    const gaugeSettings = {
      window: config.get<number>('contextWindow', 200_000),
      reservedForOutput: config.get<number>('maxOutputTokens', 16_000),
      marks: COMPACTION_MARKS.map((m) => config.get<number>(`compaction.${m.setting}`, m.default)),
    };
    const now = Date.now();
    let snapshot: InspectorSnapshot;
    if (this.source.kind === 'current') {
      const ctx = this.chat.inspectorContext();
      const memoryOn = vscode.workspace.getConfiguration('engram.memory').get<boolean>('enabled', true);
      const memoryDir = ctx.memoryDir ?? (memoryOn ? await engine.autoMemoryDir(ctx.dataDir, ctx.cwd) : undefined);
      const paths = ctx.sessionId ? engine.sessionPaths(engine.projectDir(ctx.dataDir, ctx.cwd), ctx.sessionId) : undefined;
      const state = ctx.notes?.state;
      snapshot = await engine.buildInspectorSnapshot({
        source: { kind: 'current', label: vscode.l10n.t('Current session'), readOnly: false, root: ctx.dataDir, projectKey: path.basename(engine.projectDir(ctx.dataDir, ctx.cwd)) },
        sessionId: ctx.sessionId,
        transcriptPath: ctx.transcriptPath,
        gauge: ctx.gauge,
        gaugeSettings,
        notes: {
          summaryPath: ctx.notes?.paths.summary ?? paths?.summary,
          statePath: ctx.notes?.paths.state ?? paths?.state,
          ...(ctx.notes ? { caps: ctx.notes.caps } : {}),
          ...(ctx.notes && state ? {
            live: {
              updating: ctx.notes.updating,
              ...(state.lastSummarizedMessageId ? { lastSummarizedMessageId: state.lastSummarizedMessageId } : {}),
              ...(state.updatedAt ? { updatedAt: state.updatedAt } : {}),
              ...(state.lastError ? { lastError: state.lastError } : {}),
            },
          } : {}),
        },
        memoryDir,
        instructions: { cwd: ctx.cwd, configDir: ctx.dataDir, trusted: vscode.workspace.isTrusted },
        timeline: ctx.timeline,
        canUndoCompaction: canUndoCompactions(this.chat),
        now,
      });
    } else {
      const s = this.source;
      const projectDir = path.join(s.root, 'projects', s.projectKey);
      const paths = s.sessionId ? engine.sessionPaths(projectDir, s.sessionId) : undefined;
      snapshot = await engine.buildInspectorSnapshot({
        source: { kind: s.kind, label: s.label, readOnly: s.readOnly, root: s.root, projectKey: s.projectKey },
        sessionId: s.sessionId,
        transcriptPath: paths?.transcript,
        gaugeSettings,
        notes: { summaryPath: paths?.summary, statePath: paths?.state },
        memoryDir: path.join(projectDir, 'memory'),
        instructions: { cwd: undefined, configDir: s.root, trusted: true },
        canUndoCompaction: false,
        now,
      });
    }
    this.last = snapshot;
    this.watchMemory(snapshot.memory.dir);
    return snapshot;
  }

  handlers(reply: (message: HostToInspector) => void): Handlers<InspectorRequest> {
    const report = (r: { text: string; level: 'info' | 'warning' | 'error' } | undefined) => {
      if (r) reply({ type: 'status', text: r.text, level: r.level });
    };
    return {
      openFile: (m) => this.openFile(m.path),
      revealFile: (m) => this.revealFile(m.path),
      openOrigin: (m) => this.openOrigin(m.sessionId, m.messageId),
      inspectSession: (m) => this.inspectSession(m.sessionId),
      renameEntry: async (m) => {
        const found = this.entry(m.group, m.file);
        if (found) report(await this.actions.rename(found.target, found.entry));
      },
      changeType: async (m) => {
        const found = this.entry(m.group, m.file);
        if (found) report(await this.actions.changeType(found.target, found.entry));
      },
      pruneEntry: async (m) => {
        const found = this.entry(m.group, m.file);
        if (found) report(await this.actions.prune(found.target, found.entry));
      },
      restoreEntry: async (m) => {
        const item = this.last?.memory.trash.find((t) => t.id === m.trashId && t.group === m.group);
        const target = this.target(m.group);
        if (item && target) report(await this.actions.restore(target, item));
      },
      deleteTrash: async (m) => {
        const item = this.last?.memory.trash.find((t) => t.id === m.trashId && t.group === m.group);
        const target = this.target(m.group);
        if (item && target) report(await this.actions.deleteForGood(target, item));
      },
      compactionDetails: async (m) => {
        try {
          const messages = await this.replaced(m.id);
          reply({ type: 'compactionDetails', requestId: m.requestId, id: m.id, messages: loadEngine().inspector.clipForWebview(messages) });
        } catch (error) {
          reply({ type: 'compactionDetails', requestId: m.requestId, id: m.id, messages: [], error: String(error) });
        }
      },
      openCompactionDiff: (m) => this.openDiff(m.id),
      undoCompaction: async (m) => report(await this.undoCompaction(m.id)),
      pickSource: async () => {
        const ctx = this.chat.inspectorContext();
        const picked = await pickInspectorSource(ctx.dataDir, ctx.cwd);
        if (picked) this.setSource(picked);
      },
      useCurrentSession: () => this.setSource({ kind: 'current' }),
    };
  }

  // ---- files ----

  private knownPaths(): Set<string> {
    const s = this.last;
    if (!s) return new Set();
    return new Set([
      ...(s.notes.exists && s.notes.path ? [s.notes.path] : []),
      ...s.memory.instructions.map((i) => i.path),
      ...[...s.memory.entries, ...s.memory.unindexed].filter((e) => !e.missing).map((e) => e.path),
    ]);
  }

  private async openFile(file: string, line?: number): Promise<void> {
    if (!this.knownPaths().has(file)) {
      this.logger.warn(`inspector: refused to open a path the inspector did not show: ${file}`);
      return;
    }
    await this.show(file, line);
  }

  private async show(file: string, line?: number): Promise<void> {
    const readOnly = this.source.kind !== 'current' && this.source.readOnly;
    const uri = readOnly ? this.docs.file(file) : vscode.Uri.file(file);
    const selection = line ? new vscode.Range(line - 1, 0, line - 1, 0) : undefined;
    await vscode.window.showTextDocument(uri, { preview: true, ...(selection ? { selection } : {}) });
  }

  private async revealFile(file: string): Promise<void> {
    if (!this.knownPaths().has(file)) return;
    const uri = vscode.Uri.file(file);
    const commands = await vscode.commands.getCommands(true);
    if (commands.includes('revealFileInOS')) {
      await vscode.commands.executeCommand('revealFileInOS', uri);
      return;
    }
    // Where there is no file manager to show it in (VS Code in a browser), say where it is.
    const copy = vscode.l10n.t('Copy Path');
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t('The file is at {0}', file), copy);
    if (choice === copy) await vscode.env.clipboard.writeText(file);
  }

  private async openOrigin(sessionId: string, messageId: string | undefined): Promise<void> {
    const engine = loadEngine().inspector;
    if (!engine.isSessionId(sessionId)) return;
    const transcript = await this.findTranscript(sessionId);
    if (!transcript) {
      void vscode.window.showInformationMessage(vscode.l10n.t('The session {0} is not in this data folder.', sessionId));
      return;
    }
    const line = messageId ? await engine.lineOfMessage(transcript, messageId).catch(() => undefined) : undefined;
    await this.show(transcript, line);
  }

  private async inspectSession(sessionId: string): Promise<void> {
    if (!loadEngine().inspector.isSessionId(sessionId)) return;
    const transcript = await this.findTranscript(sessionId);
    if (!transcript) return;
    const root = this.last?.source.root ?? this.chat.inspectorContext().dataDir;
    const readOnly = this.source.kind !== 'current' && this.source.readOnly;
    const projectKey = path.basename(path.dirname(transcript));
    this.setSource({
      kind: readOnly ? 'claude' : 'session', root, projectKey, sessionId, readOnly,
      label: readOnly ? vscode.l10n.t('Claude Code ({0})', root) + ` · ${projectKey} · ${sessionId}` : vscode.l10n.t('Session {0}', sessionId),
    });
  }

  /** The transcript of a session of the shown project (memory is keyed by git root, transcripts by folder). */
  private async findTranscript(sessionId: string): Promise<string | undefined> {
    const engine = loadEngine().inspector;
    const dirs = new Set<string>();
    if (this.last?.memory.dir) dirs.add(path.dirname(this.last.memory.dir));
    if (this.source.kind === 'current') {
      const ctx = this.chat.inspectorContext();
      dirs.add(engine.projectDir(ctx.dataDir, ctx.cwd));
    } else {
      dirs.add(path.join(this.source.root, 'projects', this.source.projectKey));
    }
    for (const dir of dirs) {
      const { transcript } = engine.sessionPaths(dir, sessionId);
      try {
        await vscode.workspace.fs.stat(vscode.Uri.file(transcript));
        return transcript;
      } catch {
        // not in this folder
      }
    }
    return undefined;
  }

  // ---- memory ----

  private target(group: 'private' | 'team'): ActionTarget | undefined {
    const dir = this.last?.memory.dir;
    if (!dir) return undefined;
    return { dir: group === 'team' ? path.join(dir, 'team') : dir, readOnly: this.source.kind !== 'current' && this.source.readOnly };
  }

  private entry(group: 'private' | 'team', file: string): { entry: MemoryEntryView; target: ActionTarget } | undefined {
    const entry = [...(this.last?.memory.entries ?? []), ...(this.last?.memory.unindexed ?? [])].find((e) => e.group === group && e.file === file);
    const target = this.target(group);
    return entry && target ? { entry, target } : undefined;
  }

  private watchMemory(dir: string | undefined): void {
    if (this.watcher?.dir === dir) return;
    this.watcher?.watcher.dispose();
    this.watcher = undefined;
    if (!dir) return;
    // Edits made elsewhere (an editor, an agent, Claude Code) show up without a manual refresh.
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), '**/*.md'));
    const fire = () => this.fireChanged();
    this.watcher = { dir, watcher: vscode.Disposable.from(w, w.onDidChange(fire), w.onDidCreate(fire), w.onDidDelete(fire)) };
  }

  // ---- compactions ----

  private compaction(id: string): Extract<TimelineView, { kind: 'compaction' }> | undefined {
    const item = this.last?.timeline.find((t) => t.kind === 'compaction' && t.id === id);
    return item?.kind === 'compaction' ? item : undefined;
  }

  private liveEvent(id: string): CompactionEvent | undefined {
    if (this.source.kind !== 'current') return undefined;
    const hit = this.chat.inspectorContext().timeline.find((t) => t.kind === 'compaction' && t.event.id === id);
    return hit?.kind === 'compaction' ? hit.event : undefined;
  }

  private transcriptPath(): string | undefined {
    if (this.source.kind === 'current') return this.chat.inspectorContext().transcriptPath;
    if (!this.source.sessionId) return undefined;
    return loadEngine().inspector.sessionPaths(path.join(this.source.root, 'projects', this.source.projectKey), this.source.sessionId).transcript;
  }

  private async replaced(id: string): Promise<Array<{ role: string; text: string }>> {
    const transcript = this.transcriptPath();
    const item = this.compaction(id);
    if (!transcript || !item) return [];
    const engine = loadEngine().inspector;
    const live = this.liveEvent(id);
    if (live) return engine.readReplacedMessages(transcript, { uuids: live.replacedIds });
    const range = await this.lineRangeOf(id, transcript);
    return range ? engine.readReplacedMessages(transcript, { lineRange: range }) : [];
  }

  private async lineRangeOf(id: string, transcript: string): Promise<[number, number] | undefined> {
    const facts = await loadEngine().inspector.transcriptFacts(transcript);
    const fact = facts?.compactions.find((c) => c.id === id);
    return fact ? [fact.lineRange[0], fact.lineRange[1]] : undefined;
  }

  private async openDiff(id: string): Promise<void> {
    const item = this.compaction(id);
    if (!item) return;
    const engine = loadEngine().inspector;
    const messages = await this.replaced(id);
    const left = this.docs.text(`compaction/${id}/replaced.md`, engine.replacedDocument(messages));
    const right = this.docs.text(`compaction/${id}/summary.md`, item.summary ?? vscode.l10n.t('(this compaction wrote no summary: {0} tool results were trimmed in place)', item.trimmed));
    const title = vscode.l10n.t('Compaction ({0}, {1}): replaced messages ↔ summary', item.stage, item.trigger);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
  }

  private async undoCompaction(id: string): Promise<{ text: string; level: 'info' | 'warning' | 'error' }> {
    const item = this.compaction(id);
    if (!item?.undoable || this.source.kind !== 'current' || !canUndoCompactions(this.chat)) {
      return { text: vscode.l10n.t('Only the newest compaction of the current session can be undone.'), level: 'warning' };
    }
    try {
      const ok = await this.chat.undoLastCompaction();
      this.fireChanged(true);
      return ok
        ? { text: vscode.l10n.t('Compaction undone: the replaced messages are back in the conversation.'), level: 'info' }
        : { text: vscode.l10n.t('This compaction can no longer be undone.'), level: 'warning' };
    } catch (error) {
      return { text: String(error instanceof Error ? error.message : error), level: 'error' };
    }
  }

  private fireChanged(now = false): void {
    if (this.timer) clearTimeout(this.timer);
    if (now) {
      this.timer = undefined;
      this.changed.fire();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.changed.fire();
    }, REFRESH_DEBOUNCE_MS);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.watcher.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
