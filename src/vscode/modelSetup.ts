// The model a chat talks to: the settings' model and base URL, the API key from Secret Storage (or the
// environment), or the built-in offline demo model, started on first use and closed on deactivate().
import * as vscode from 'vscode';
import { resolveModelConfig, type ModelConfig } from '../core/host/config';
import type { Logger } from '../core/host/sessions';
import type { TestServer } from '../testServer/anthropicTestServer';
import { API_KEY_SECRET, SETUP_CHOSEN } from './apiKey';
import { loadEngine } from './loadEngine';
import { settings } from './settings';

export interface ResolvedModel extends ModelConfig {
  offlineDemo: boolean;
}

let demoServer: Promise<TestServer> | undefined;

/** The built-in offline demo model: the project's Anthropic-compatible test server, in this process. */
function offlineDemoServer(logger: Logger): Promise<TestServer> {
  demoServer ??= loadEngine()
    .startTestServer({ demo: true })
    .then((server) => {
      logger.info(`Offline demo model listening on ${server.url}`);
      return server;
    });
  return demoServer;
}

/** Closes the offline demo server if one was started (deactivate, tests). */
export async function disposeOfflineDemo(): Promise<void> {
  const server = demoServer;
  demoServer = undefined;
  await (await server?.catch(() => undefined))?.close();
}

/** Whether the chat runs on the offline demo model. */
export function usesOfflineDemo(): boolean {
  return settings().offlineDemo || process.env.ENGRAM_OFFLINE_DEMO === '1';
}

/**
 * What the chat's model button says: the offline demo, the model in use, or "Choose a model" while the
 * first-run screen shows and nobody chose one (the default is not a choice, and no model answers yet).
 */
export function modelButtonLabel(setupNeeded: boolean): string {
  if (usesOfflineDemo()) return vscode.l10n.t('offline demo model');
  const set = vscode.workspace.getConfiguration('engram').inspect<string>('model');
  const chosen = [set?.globalValue, set?.workspaceValue, set?.workspaceFolderValue].some((v) => v !== undefined);
  return setupNeeded && !chosen ? vscode.l10n.t('Choose a model') : settings().model;
}

export async function resolveModel(secrets: vscode.SecretStorage, logger: Logger): Promise<ResolvedModel> {
  const s = settings();
  const given = { model: s.model, maxOutputTokens: s.maxOutputTokens, baseUrl: s.baseUrl };
  if (s.offlineDemo) {
    const server = await offlineDemoServer(logger);
    return { ...resolveModelConfig({ ...given, baseUrl: server.url }, {}, 'offline-demo'), offlineDemo: true };
  }
  const secret = await secrets.get(API_KEY_SECRET);
  return { ...resolveModelConfig(given, process.env, secret), offlineDemo: process.env.ENGRAM_OFFLINE_DEMO === '1' };
}

/**
 * Whether the Chat view shows its first-run screen: no key in Secret Storage or ANTHROPIC_API_KEY, no
 * demo turned on in the settings, and no choice made on the screen before.
 */
export async function setupNeeded(context: vscode.ExtensionContext): Promise<boolean> {
  if (context.globalState.get<boolean>(SETUP_CHOSEN) || settings().offlineDemo || process.env.ANTHROPIC_API_KEY?.trim())
    return false;
  return !(await context.secrets.get(API_KEY_SECRET))?.trim();
}

/** One button of the first-run screen. Resolves once the choice is stored (or was cancelled). */
export async function runSetupChoice(
  context: vscode.ExtensionContext,
  choice: 'apiKey' | 'baseUrl' | 'demo',
): Promise<void> {
  const config = vscode.workspace.getConfiguration('engram');
  if (choice === 'apiKey') {
    await vscode.commands.executeCommand('engram.setApiKey');
    return;
  }
  if (choice === 'baseUrl') {
    const url = await vscode.window.showInputBox({
      title: vscode.l10n.t('Engram: base URL of an Anthropic-compatible server'),
      prompt: vscode.l10n.t(
        'For example https://gateway.example.com. Saved in the engram.baseUrl setting; set an API key too if the ' +
          'server needs one.',
      ),
      value: settings().baseUrl,
      ignoreFocusOut: true,
      validateInput: (v) =>
        !v.trim() || /^https?:\/\/[^\s]+$/i.test(v.trim())
          ? undefined
          : vscode.l10n.t('Enter an http:// or https:// address.'),
    });
    if (!url?.trim()) return;
    await config.update('baseUrl', url.trim(), vscode.ConfigurationTarget.Global);
  } else {
    // The env var may run the demo already (npm start); the setting makes it last without it.
    if (!usesOfflineDemo()) await config.update('offlineDemo', true, vscode.ConfigurationTarget.Global);
  }
  await context.globalState.update(SETUP_CHOSEN, true);
}

/** Models offered by "Engram: Choose Model"; any other id can be typed. */
const SUGGESTED_MODELS = ['claude-sonnet-4-6', 'claude-opus-4-5', 'claude-haiku-4-5'];

/** "Engram: Choose Model" (also the model button in the Chat view): writes `engram.model`. */
export function registerModelCommands(): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('engram.pickModel', async () => {
      const current = settings().model;
      const other = vscode.l10n.t('Other model id…');
      const items: vscode.QuickPickItem[] = [...new Set([current, ...SUGGESTED_MODELS])].map((id) => ({
        label: id,
        ...(id === current ? { description: vscode.l10n.t('current') } : {}),
      }));
      items.push({ label: other, alwaysShow: true });
      const picked = await vscode.window.showQuickPick(items, {
        title: vscode.l10n.t('Engram: Choose Model'),
        placeHolder: usesOfflineDemo()
          ? vscode.l10n.t('The offline demo answers whatever is chosen; the model is used once a real one is set up.')
          : vscode.l10n.t('The conversation continues on the chosen model from your next message.'),
      });
      if (!picked) return undefined;
      const id =
        picked.label === other
          ? (
              await vscode.window.showInputBox({
                title: vscode.l10n.t('Engram: model id'),
                value: current,
                ignoreFocusOut: true,
              })
            )?.trim()
          : picked.label;
      if (!id) return undefined;
      await vscode.workspace.getConfiguration('engram').update('model', id, vscode.ConfigurationTarget.Global);
      return id;
    }),
  ];
}
