import * as vscode from 'vscode';
import { providerName } from '../core/host/config';
import { currentProvider, showCloudCredentials } from './providerSetup';

/** The SecretStorage key under which the Anthropic API key is kept (never in settings or on disk). */
export const API_KEY_SECRET = 'engram.anthropicApiKey';

/** globalState: the person made the first-run screen's choice (a base URL or the demo); it stays made. */
export const SETUP_CHOSEN = 'engram.setupChosen';

export function registerApiKeyCommands(context: vscode.ExtensionContext): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('engram.setApiKey', async () => {
      if (!(await keyUsedOrSwitchedBack())) return;
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

/**
 * On a cloud provider an Anthropic API key is not used: says so, with the cloud's credentials and login
 * command, and offers to go back to the Anthropic API. True when a key is wanted (the Anthropic API).
 */
async function keyUsedOrSwitchedBack(): Promise<boolean> {
  const provider = currentProvider();
  if (provider.id === 'anthropic') return true;
  const back = vscode.l10n.t('Use the Anthropic API');
  const picked = await showCloudCredentials(
    provider,
    vscode.l10n.t(
      'Engram: the chat talks to Claude on {0}, where an Anthropic API key is not used.',
      providerName(provider.id),
    ),
    back,
  );
  if (picked !== back) return false;
  // A setting beats CLAUDE_CODE_USE_*: "anthropic" written here holds even with one of them set.
  await vscode.workspace.getConfiguration('engram').update('provider', 'anthropic', vscode.ConfigurationTarget.Global);
  return true;
}
