// The Chat view's first-run screen, shown while no model is set up (no API key, no gateway, no offline
// demo): whether it shows, worked out again when a secret or a setting changes, and what its buttons do.
import type * as vscode from 'vscode';
import type { SetupChoice } from '../../protocol/messages';
import { runSetupChoice, setupNeeded } from '../modelSetup';

export class FirstRunScreen implements vscode.Disposable {
  /** Kept current, because the chat's snapshot() must answer at once. */
  private needed = false;
  private readonly offSecrets: vscode.Disposable;

  /**
   * `redraw` posts the chat's snapshot; `empty` says the chat shows no items yet (an empty chat is
   * redrawn even when the screen did not change, so the view leaves its loading state).
   */
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly redraw: () => void,
    private readonly empty: () => boolean,
  ) {
    this.offSecrets = context.secrets.onDidChange(() => void this.refresh());
  }

  get shows(): boolean {
    return this.needed;
  }

  /** Works out again whether the screen shows, and redraws the view when that changed. */
  async refresh(): Promise<void> {
    const needed = await setupNeeded(this.context);
    const changed = needed !== this.needed;
    this.needed = needed;
    if (changed || this.empty()) this.redraw();
  }

  /** A button of the screen. */
  async choose(choice: SetupChoice): Promise<void> {
    await runSetupChoice(this.context, choice);
    await this.refresh();
  }

  dispose(): void {
    this.offSecrets.dispose();
  }
}
