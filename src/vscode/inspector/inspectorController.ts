// The Memory Inspector controller: the source shown and the last snapshot, and the routing of each webview
// request to the part that carries it out, each in its own file (memory actions, the cap banner, compactions,
// pending memory, file links, refreshing).
import * as vscode from 'vscode';
import type { Logger } from '../../core/host/sessions';
import type {
  EntryGroup,
  GaugeState,
  Handlers,
  HostToInspector,
  InspectorSnapshot,
  MemoryEntryView,
} from '../../protocol/messages';
import { loadEngine } from '../loadEngine';
import { type MemoryHealthWatch, memoryHealthWatch } from '../memoryHealthWatch';
import { settings, settingsStore, workspaceTrusted } from '../settings';
import { CapActions } from './capActions';
import { healthHandlers, healthInput } from './healthActions';
import { canUndoCompactions } from './compactionControl';
import type { InspectorChat } from './inspectorContext';
import { checkpointHandlers } from './checkpointActions';
import { InspectorCompactions } from './inspectorCompactions';
import type { InspectorDocuments } from './inspectorDocuments';
import { InspectorFiles } from './inspectorFiles';
import { InspectorRefresh } from './inspectorRefresh';
import type { InspectorRequest, InspectorSource } from './inspectorPanel';
import { vscodePrompts, type InspectorPrompts } from './inspectorPrompts';
import { mcpHandlers } from './mcpActions';
import { MemoryActions, type ActionResult, type ActionTarget } from './memoryActions';
import { PendingActions } from './pendingActions';
import { pinHandlers } from './pinActions';
import { pickInspectorSource, type InspectorSourceState } from './sourcePicker';

/**
 * The Memory Inspector's host side: what the panel shows (built by the engine chunk from the live session or a source
 * on disk) and what its buttons do. Files open only when the last snapshot named them; requests are checked first.
 */
export class InspectorController implements InspectorSource, vscode.Disposable {
  private source: InspectorSourceState = { kind: 'current' };
  private readonly refresh = new InspectorRefresh();
  private readonly gaugeChanged = new vscode.EventEmitter<GaugeState>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly actions: MemoryActions;
  private readonly cap: CapActions;
  private readonly compactions: InspectorCompactions;
  private readonly pending: PendingActions;
  private readonly files: InspectorFiles;
  private last: InspectorSnapshot | undefined;
  /** What this panel pruned, by trash id: a late Undo can then say the entry is back already. */
  private readonly pruned = new Map<string, { file: string; title: string }>();

  private prompts: InspectorPrompts = vscodePrompts;
  private readonly health: MemoryHealthWatch;

  constructor(
    private readonly chat: InspectorChat,
    docs: InspectorDocuments,
    logger: Logger,
  ) {
    this.health = memoryHealthWatch(logger);
    this.actions = new MemoryActions(
      logger,
      () => this.fireChanged(),
      () => this.prompts,
    );
    this.cap = new CapActions(
      logger,
      () => this.fireChanged(),
      () => this.prompts,
    );
    this.pending = new PendingActions(
      {
        last: () => this.last,
        readOnly: () => this.source.kind !== 'current' && this.source.readOnly,
        changed: () => this.fireChanged(true),
      },
      logger,
    );
    this.files = new InspectorFiles({
      chat,
      docs,
      logger,
      source: () => this.source,
      last: () => this.last,
      setSource: (source) => this.setSource(source),
    });
    this.compactions = new InspectorCompactions({
      chat,
      docs,
      source: () => this.source,
      last: () => this.last,
      refreshNow: () => this.fireChanged(true),
    });
    // A changed window, mark or memory setting shows at once (the store fires after VS Code's event).
    const offSettings = settingsStore().onChange(() => this.fireChanged());
    this.disposables.push(
      chat.onInspectorChange(() => this.fireChanged()),
      chat.onEvent((m) => {
        if (this.source.kind !== 'current') return;
        if (m.type === 'gauge') this.gaugeChanged.fire(m.gauge);
        if (m.type === 'snapshot') this.fireChanged();
      }),
      { dispose: offSettings },
      this.health.onDidChange(() => this.fireChanged()),
      this.refresh,
      this.gaugeChanged,
    );
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.refresh.onDidChange(listener);
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
    return () => {
      this.prompts = vscodePrompts;
    };
  }

  setSource(source: InspectorSourceState): void {
    this.source = source;
    this.fireChanged(true);
  }

  async snapshot(): Promise<InspectorSnapshot> {
    const now = Date.now();
    const engine = loadEngine().inspector;
    const input =
      this.source.kind === 'current'
        ? await engine.liveSessionInput(this.chat.inspectorContext(), {
            label: vscode.l10n.t('Current session'),
            trusted: workspaceTrusted(),
            settings: settings(),
            canUndoCompaction: canUndoCompactions(this.chat),
            now,
          })
        : engine.diskSourceInput(this.source, settings(), now);
    input.health = healthInput(this.health, this.source.kind === 'current');
    const snapshot = await engine.buildInspectorSnapshot(input);
    this.last = snapshot;
    this.refresh.watchMemory(snapshot.memory.dir);
    return snapshot;
  }

  handlers(reply: (message: HostToInspector) => void): Handlers<InspectorRequest> {
    const report = (r: ActionResult | undefined, group?: EntryGroup) => {
      if (!r) return;
      reply({
        type: 'status',
        text: r.text,
        level: r.level,
        ...(r.undo && group ? { undo: { group, trashId: r.undo.trashId } } : {}),
      });
    };
    return {
      openFile: (m) => this.files.openFile(m.path),
      revealFile: (m) => this.files.revealFile(m.path),
      openOrigin: (m) => this.files.openOrigin(m.sessionId, m.messageId),
      inspectSession: (m) => this.files.inspectSession(m.sessionId),
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
        if (!found) return;
        const result = await this.actions.prune(found.target, found.entry, (undone) => report(undone));
        if (result?.undo) this.pruned.set(result.undo.trashId, { file: found.entry.file, title: found.entry.title });
        report(result, m.group);
      },
      restoreEntry: async (m) => {
        // The cap banner's Undo takes back a whole batch (several prunes, or a merge).
        if (this.cap.owns(m.trashId)) return report(await this.cap.undo(m.trashId));
        const item = this.last?.memory.trash.find((t) => t.id === m.trashId && t.group === m.group);
        const target = this.target(m.group);
        if (item && target) report(await this.actions.restore(target, item));
        // The inspector's Undo after the notification's (or the reverse): the trash no longer holds it.
        else if (target && this.pruned.has(m.trashId)) {
          const { file, title } = this.pruned.get(m.trashId)!;
          report(await this.actions.alreadyRestored(target, file, title));
        }
      },
      deleteTrash: async (m) => {
        const item = this.last?.memory.trash.find((t) => t.id === m.trashId && t.group === m.group);
        const target = this.target(m.group);
        if (item && target) report(await this.actions.deleteForGood(target, item));
      },
      undoNotRelevant: async (m) => {
        const found = this.entry(m.group, m.file);
        const words = found?.entry.notRelevant?.[m.index];
        if (!found || !words) return;
        report(await this.actions.undoNotRelevant(found.target, found.entry, words));
        this.fireChanged(true);
      },
      pruneLeastUsed: async (m) => {
        const target = this.target(m.group);
        if (target) report(await this.cap.pruneLeastUsed(target, (undone) => report(undone)), m.group);
      },
      mergeEntries: async (m) => {
        const target = this.target(m.group);
        if (target)
          report(
            await this.cap.merge(target, m.group, this.last?.memory.entries ?? [], (undone) => report(undone)),
            m.group,
          );
      },
      compactionDetails: async (m) => {
        try {
          const messages = await this.compactions.replaced(m.id);
          reply({
            type: 'compactionDetails',
            requestId: m.requestId,
            id: m.id,
            messages: loadEngine().inspector.clipForWebview(messages),
          });
        } catch (error) {
          reply({ type: 'compactionDetails', requestId: m.requestId, id: m.id, messages: [], error: String(error) });
        }
      },
      openCompactionDiff: (m) => this.compactions.openDiff(m.id),
      undoCompaction: async (m) => report(await this.compactions.undo(m.id)),
      pickSource: async () => {
        const ctx = this.chat.inspectorContext();
        const picked = await pickInspectorSource(ctx.dataDir, ctx.cwd);
        if (picked) this.setSource(picked);
      },
      useCurrentSession: () => this.setSource({ kind: 'current' }),
      syncTeamMemory: async () => {
        // The command syncs the workspace's team folder, which only the current session shows.
        if (this.source.kind !== 'current') return;
        const outcome = await vscode.commands.executeCommand<{ ok: boolean; text: string } | undefined>(
          'engram.syncTeamMemory',
        );
        if (outcome) report({ text: outcome.text, level: outcome.ok ? 'info' : 'warning' });
        this.fireChanged(true);
      },
      ...checkpointHandlers(this.chat, () => this.source),
      ...pinHandlers(
        this.chat,
        () => this.source,
        report,
        () => this.fireChanged(true),
      ),
      ...mcpHandlers(
        this.chat,
        () => this.source,
        report,
        () => this.fireChanged(true),
      ),
      ...healthHandlers({ last: () => this.last, entry: (g, f) => this.entry(g, f), cap: this.cap, report }),
      ...this.pending.handlers((r) =>
        reply({ type: 'status', text: r.text, level: r.level, ...(r.undoReject ? { undoReject: r.undoReject } : {}) }),
      ),
    };
  }

  // ---- memory ----

  private target(group: 'private' | 'team'): ActionTarget | undefined {
    const dir = this.last?.memory.dir;
    if (!dir) return undefined;
    return {
      dir: loadEngine().inspector.memoryGroupDir(dir, group),
      readOnly: this.source.kind !== 'current' && this.source.readOnly,
    };
  }

  private entry(group: 'private' | 'team', file: string): { entry: MemoryEntryView; target: ActionTarget } | undefined {
    const entry = [...(this.last?.memory.entries ?? []), ...(this.last?.memory.unindexed ?? [])].find(
      (e) => e.group === group && e.file === file,
    );
    const target = this.target(group);
    return entry && target ? { entry, target } : undefined;
  }

  private fireChanged(now = false): void {
    this.refresh.fire(now);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
