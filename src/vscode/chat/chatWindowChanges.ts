// What a chat window does when the world around it changes: the workspace is trusted (the session is
// reopened with tools and project instructions), or a setting changes (the gauge moves, a new model or
// provider takes over from the next message, the first-run screen is checked again).
import * as vscode from 'vscode';
import { settings, settingsStore } from '../settings';
import type { ChatSessionSlot } from './chatSessionSlot';
import type { ChatWindow } from './chatWindow';

/** The parts of a chat window these changes reach. */
export type ChangingChatWindow = Pick<ChatWindow, 'items' | 'stop' | 'postGauge' | 'postSnapshot' | 'refreshSetup'>;

/** Starts following the changes; the disposables stop it. */
export function followChatWindowChanges(window: ChangingChatWindow, slot: ChatSessionSlot): vscode.Disposable[] {
  const { items } = window;
  // An untrusted session was built without tools or project instructions: once the user trusts the
  // workspace, the next message continues the same session with both.
  const offTrust = vscode.workspace.onDidGrantWorkspaceTrust(() => {
    if (!slot.session) return;
    window.stop();
    slot.continueOnNextMessage();
    items.notice(
      'info',
      vscode.l10n.t('Workspace trusted: tools and project instructions are on from your next message.'),
    );
  });
  // With no session open, a changed window or mark still moves the gauge (the session posts its own).
  let model = settings().model;
  let providers = JSON.stringify(settings().providers);
  const offSettings = settingsStore().onChange((next) => {
    if (!slot.session) window.postGauge();
    const nextProviders = JSON.stringify(next.providers);
    if (next.model !== model || nextProviders !== providers) {
      const said =
        next.model !== model
          ? vscode.l10n.t('Model set to {0}: your next message continues this conversation on it.', next.model)
          : vscode.l10n.t('Provider settings changed: your next message continues this conversation with them.');
      model = next.model;
      providers = nextProviders;
      slot.modelSettingChanged();
      if (slot.session) items.notice('info', said);
      // The header's model button reads the snapshot: redraw it, or it names the old model.
      window.postSnapshot();
    }
    void window.refreshSetup();
  });
  return [offTrust, { dispose: offSettings }];
}
