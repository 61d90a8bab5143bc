import * as vscode from 'vscode';

/** The SecretStorage key under which the Anthropic API key is kept (never in settings or on disk). */
export const API_KEY_SECRET = 'engram.anthropicApiKey';

/** globalState: the person made the first-run screen's choice (a base URL or the demo); it stays made. */
export const SETUP_CHOSEN = 'engram.setupChosen';

export function registerApiKeyCommands(context: vscode.ExtensionContext): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('engram.setApiKey', async () => {
      const key = await vscode.window.showInputBox({
        title: vscode.l10n.t('Engram: Anthropic API key'),
        prompt: vscode.l10n.t('Stored in VS Code Secret Storage. Leave empty to cancel.'),
        password: true,
        ignoreFocusOut: true,
        validateInput: (v) =>
          v.trim() && /\s/.test(v.trim()) ? vscode.l10n.t('An API key has no spaces.') : undefined,
      });
      if (!key?.trim()) return;
      await context.secrets.store(API_KEY_SECRET, key.trim());
      void vscode.window.showInformationMessage(vscode.l10n.t('Engram: API key saved in Secret Storage.'));
    }),
    vscode.commands.registerCommand('engram.clearApiKey', async () => {
      // Without a key the Chat view offers its first-run screen again (unless the demo is on). The
      // choice is forgotten first: the view looks again when the secret changes.
      await context.globalState.update(SETUP_CHOSEN, undefined);
      await context.secrets.delete(API_KEY_SECRET);
      void vscode.window.showInformationMessage(vscode.l10n.t('Engram: API key removed.'));
    }),
  ];
}
