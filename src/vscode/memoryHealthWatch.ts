// Memory health in the VS Code window (issue 32): the workspace's memories checked against its files,
// kept fresh without re-checking everything. The first check starts in the background when a chat
// session opens (or the Health view asks), never during activation; then a FileSystemWatcher on the
// workspace feeds created, changed and deleted files to the engine's index (debounced, in batches),
// and one on the memory folder re-reads the memories when they change. The inspector's Health view
// draws the last result; the chat says so once per session when memories name things that are gone.
import * as vscode from 'vscode';
import type { FileEvent, HealthResult, HealthState, WorkspaceHealth } from '../core/host/inspector';
import type { Logger } from '../core/host/sessions';
import { loadEngine } from './loadEngine';
import { dataDir, settings, workspaceCwd, workspaceTrusted } from './settings';

/** File events are gathered this long before the index hears of them (a branch switch is one batch). */
const DEBOUNCE_MS = 300;

/** The window's one health watch (created on first use). */
let shared: MemoryHealthWatch | undefined;

export function memoryHealthWatch(logger: Logger): MemoryHealthWatch {
  shared ??= new MemoryHealthWatch(logger);
  return shared;
}

/** Ends the window's watch (the extension's deactivation). */
export function disposeMemoryHealthWatch(): void {
  shared?.dispose();
  shared = undefined;
}

export class MemoryHealthWatch implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly watchers: vscode.Disposable[] = [];
  private health: WorkspaceHealth | undefined;
  /** What the watch was opened for (data dir, folder, team): a change of any opens it again. */
  private key: string | undefined;
  private result: HealthResult | undefined;
  private error: string | undefined;
  /** The running or last open-and-check; later work queues behind it. */
  private work: Promise<unknown> = Promise.resolve();
  private running = 0;
  private queued: FileEvent[] = [];
  private memoryChanged = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** Trusting the folder later makes the view check (it said "not checked" until then). */
  private readonly trust = vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed.fire());

  constructor(private readonly logger: Logger) {}

  /** Fires when a check starts or ends (the inspector redraws). */
  readonly onDidChange = this.changed.event;

  /** What the Health view shows now; starts the first check in the background when none ran. */
  state(): HealthState {
    const off = this.unavailable();
    if (off) return { checking: false, unavailable: off };
    if (this.key !== this.currentKey()) void this.start();
    return {
      checking: this.running > 0,
      ...(this.result ? { result: this.result } : {}),
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /**
   * Checks again now (the palette's "Check Memory Health"), opening the watch first when it is not yet
   * (or was opened for another folder). Resolves with the result, undefined when there is none.
   */
  recheck(): Promise<HealthResult | undefined> {
    if (this.unavailable()) return Promise.resolve(undefined);
    if (this.key !== this.currentKey()) return this.start();
    return this.enqueue(() => this.check());
  }

  /** The first result (started when needed): what a session opening asks before its notice. */
  async ready(): Promise<HealthResult | undefined> {
    if (this.unavailable()) return undefined;
    if (this.key !== this.currentKey()) return this.start();
    await this.work;
    return this.result;
  }

  private unavailable(): HealthState['unavailable'] {
    if (!settings().memory.enabled) return 'memoryOff';
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
    if (!folder) return 'noWorkspace';
    // The check runs git and reads the workspace's files: not before the person trusts the folder.
    return workspaceTrusted() ? undefined : 'untrusted';
  }

  private currentKey(): string {
    return [dataDir(), workspaceCwd(), this.team()].join('\n');
  }

  private team(): boolean {
    return settings().teamMemory.enabled && workspaceTrusted();
  }

  private start(): Promise<HealthResult | undefined> {
    const key = this.currentKey();
    this.key = key;
    this.result = undefined;
    for (const w of this.watchers.splice(0)) w.dispose();
    return this.enqueue(async () => {
      if (this.key !== key) return undefined;
      const started = performance.now();
      this.health = await loadEngine().inspector.WorkspaceHealth.open(dataDir(), workspaceCwd(), this.team());
      const result = await this.check();
      if (result) {
        this.watch(result.memoryDir);
        this.logger.info(
          `Memory health: ${result.memories.length} memories checked against ${result.workspace} in ` +
            `${(performance.now() - started).toFixed(0)} ms; ${result.memories.filter((m) => m.stale.length).length} stale`,
        );
      }
      return result;
    });
  }

  private async check(): Promise<HealthResult | undefined> {
    if (!this.health) return undefined;
    this.result = await this.health.check();
    return this.result;
  }

  /** Runs `job` after what is queued, with `checking` on meanwhile; a failure is kept to show, and logged. */
  private enqueue<T>(job: () => Promise<T>): Promise<T | undefined> {
    const run = async (): Promise<T | undefined> => {
      this.running++;
      this.changed.fire();
      try {
        const out = await job();
        this.error = undefined;
        return out;
      } catch (e) {
        this.error = e instanceof Error ? e.message : String(e);
        this.logger.warn(`Memory health: the check failed: ${this.error}`);
        return undefined;
      } finally {
        this.running--;
        this.changed.fire();
      }
    };
    const next = this.work.then(run, run);
    this.work = next;
    return next;
  }

  private watch(memoryDir: string): void {
    const files = vscode.workspace.createFileSystemWatcher('**/*');
    const memory = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.file(memoryDir), '**'),
    );
    const event = (kind: FileEvent['kind'] & ('create' | 'change' | 'delete')) => (uri: vscode.Uri) => {
      // The memory folder may sit inside the workspace (a data dir there): its own watcher covers it.
      if (uri.fsPath.startsWith(memoryDir)) return;
      this.queued.push({ kind, path: uri.fsPath });
      this.schedule();
    };
    const memoryEvent = () => {
      this.memoryChanged = true;
      this.schedule();
    };
    this.watchers.push(
      files,
      memory,
      files.onDidCreate(event('create')),
      files.onDidChange(event('change')),
      files.onDidDelete(event('delete')),
      memory.onDidCreate(memoryEvent),
      memory.onDidChange(memoryEvent),
      memory.onDidDelete(memoryEvent),
    );
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const events = this.queued.splice(0);
      const memories = this.memoryChanged;
      this.memoryChanged = false;
      void this.enqueue(async () => {
        const touched = events.length > 0 && (await this.health?.onFileEvents(events));
        if (touched || memories) await this.check();
      });
    }, DEBOUNCE_MS);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watchers.splice(0)) w.dispose();
    this.trust.dispose();
    this.changed.dispose();
  }
}

/**
 * The chat's line when a session opens with stale memories ("2 memories name things that no longer
 * exist", with Review opening the Health view), once the background check is done; nothing otherwise.
 */
export async function noticeStaleMemories(
  items: { notice(level: 'info', text: string, action: string): void; dropNotices(action: string): boolean },
  logger: Logger,
): Promise<void> {
  const result = await memoryHealthWatch(logger).ready();
  const stale = result?.memories.filter((m) => m.stale.length > 0).length ?? 0;
  if (stale === 0) return;
  items.dropNotices('checkMemoryHealth');
  items.notice(
    'info',
    stale === 1
      ? vscode.l10n.t('1 memory names something that no longer exists.')
      : vscode.l10n.t('{0} memories name things that no longer exist.', stale),
    'checkMemoryHealth',
  );
}
