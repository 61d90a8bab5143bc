// When the Memory Inspector redraws: bursts of changes (a turn end fires notes, memory and gauge at once)
// coalesce into one, and edits made to the shown memory folder elsewhere (an editor, an agent, Claude
// Code, `engram team sync`) count as changes without a manual refresh.
import * as vscode from 'vscode';

/** Coalesces bursts of changes into one snapshot. */
const REFRESH_DEBOUNCE_MS = 120;

export class InspectorRefresh implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private watcher: { dir: string; watcher: vscode.Disposable } | undefined;

  /** Fires once a burst of changes is over (or at once, for a change the person made). */
  readonly onDidChange = this.changed.event;

  /** Something shown may have changed; `now` redraws without waiting for more. */
  fire(now = false): void {
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

  /** Watches the memory folder the last snapshot showed (none: stop watching). */
  watchMemory(dir: string | undefined): void {
    if (this.watcher?.dir === dir) return;
    this.watcher?.watcher.dispose();
    this.watcher = undefined;
    if (!dir) return;
    const w = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.file(dir), '**/{*.md,.sync/state.json}'),
    );
    const fire = () => this.fire();
    this.watcher = {
      dir,
      watcher: vscode.Disposable.from(w, w.onDidChange(fire), w.onDidCreate(fire), w.onDidDelete(fire)),
    };
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.watcher.dispose();
    this.changed.dispose();
  }
}
