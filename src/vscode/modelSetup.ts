// The model a chat talks to: the settings' model and base URL, the API key from Secret Storage (or the
// environment) or a cloud provider's settings (providerSetup.ts), or the built-in offline demo model,
// started on first use and closed on deactivate(); and the first-run screen's choices.
import * as vscode from 'vscode';
import {
  canonicalModelId,
  providerModelId,
  providerName,
  resolveModelConfig,
  suggestedModels,
  type ModelConfig,
  type ProviderModel,
} from '../core/host/config';
import type { Logger } from '../core/host/sessions';
import type { SetupChoice } from '../protocol/messages';
import type { TestServer } from '../testServer/anthropicTestServer';
import { API_KEY_SECRET, SETUP_CHOSEN } from './apiKey';
import { loadEngine } from './loadEngine';
import {
  currentProvider,
  providerSettings,
  providerShortName,
  setByPerson,
  setUpCloudProvider,
  showCloudCredentials,
} from './providerSetup';
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
 * What the chat's model button says: the offline demo, the model in use (with its cloud, "· Bedrock"), or
 * "Choose a model" while the first-run screen shows and nobody chose one (the default is not a choice;
 * Claude Code's ANTHROPIC_MODEL is).
 */
export function modelButtonLabel(setupNeeded: boolean): string {
  if (usesOfflineDemo()) return vscode.l10n.t('offline demo model');
  if (setupNeeded && !setByPerson('model') && !process.env.ANTHROPIC_MODEL?.trim())
    return vscode.l10n.t('Choose a model');
  const cloud = providerShortName(currentProvider().id);
  return cloud ? `${settings().model} · ${cloud}` : settings().model;
}

export async function resolveModel(secrets: vscode.SecretStorage, logger: Logger): Promise<ResolvedModel> {
  const s = settings();
  const given = { model: s.model, maxOutputTokens: s.maxOutputTokens, baseUrl: s.baseUrl };
  if (s.offlineDemo) {
    const server = await offlineDemoServer(logger);
    return { ...resolveModelConfig({ ...given, baseUrl: server.url }, {}, 'offline-demo'), offlineDemo: true };
  }
  const secret = await secrets.get(API_KEY_SECRET);
  return {
    ...resolveModelConfig({ ...given, ...providerSettings() }, process.env, secret),
    offlineDemo: process.env.ENGRAM_OFFLINE_DEMO === '1',
  };
}

/**
 * Whether the Chat view shows its first-run screen: no key in Secret Storage or ANTHROPIC_API_KEY, no
 * cloud provider (chosen in the settings or by CLAUDE_CODE_USE_BEDROCK / _VERTEX / _FOUNDRY), no demo
 * turned on in the settings, and no choice made on the screen before.
 */
export async function setupNeeded(context: vscode.ExtensionContext): Promise<boolean> {
  if (context.globalState.get<boolean>(SETUP_CHOSEN) || settings().offlineDemo || process.env.ANTHROPIC_API_KEY?.trim())
    return false;
  if (currentProvider().id !== 'anthropic') return false;
  return !(await context.secrets.get(API_KEY_SECRET))?.trim();
}

/** One button of the first-run screen. Resolves once the choice is stored (or was cancelled). */
export async function runSetupChoice(context: vscode.ExtensionContext, choice: SetupChoice): Promise<void> {
  const config = vscode.workspace.getConfiguration('engram');
  if (choice === 'apiKey') {
    await vscode.commands.executeCommand('engram.setApiKey');
    return;
  }
  if (choice === 'bedrock' || choice === 'vertex' || choice === 'foundry') {
    if (await setUpCloudProvider(choice)) await context.globalState.update(SETUP_CHOSEN, true);
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

/**
 * "Engram: Choose Model" (also the model button in the Chat view): the current provider's models, each
 * with its Anthropic API name beside it, and any other id typed. Writes `engram.model`; a cloud's model
 * as its Anthropic API name, which each provider's client turns into its own id (so the setting still
 * works after a change of provider); a typed id as typed.
 */
export function registerModelCommands(): vscode.Disposable[] {
  return [
    // A cloud's auth error in the chat: whose credentials are used and how to log in (not in the palette).
    vscode.commands.registerCommand('engram.cloudLogin', () => {
      const provider = currentProvider();
      return showCloudCredentials(
        provider,
        vscode.l10n.t('Engram: the chat talks to Claude on {0}.', providerName(provider.id)),
      );
    }),
    vscode.commands.registerCommand('engram.pickModel', async () => {
      const current = settings().model;
      const provider = currentProvider();
      const other = vscode.l10n.t('Other model id…');
      const models = suggestedModels(provider).map((m) =>
        provider.id === 'anthropic' ? { ...m, id: alias(m.id) } : m,
      );
      const isCurrent = (m: ProviderModel) => m.canonical === canonicalModelId(current);
      if (!models.some(isCurrent)) models.unshift({ id: providerModelId(current, provider), canonical: current });
      const items: vscode.QuickPickItem[] = models.map((m) => ({
        label: m.id,
        description: [m.canonical !== m.id ? m.canonical : '', isCurrent(m) ? vscode.l10n.t('current') : '']
          .filter(Boolean)
          .join(' · '),
      }));
      items.push({ label: other, alwaysShow: true });
      const cloud = provider.id === 'anthropic' ? undefined : providerName(provider.id);
      const picked = await vscode.window.showQuickPick(items, {
        title: cloud ? vscode.l10n.t('Engram: Choose Model on {0}', cloud) : vscode.l10n.t('Engram: Choose Model'),
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
                value: providerModelId(current, provider),
                ignoreFocusOut: true,
              })
            )?.trim()
          : provider.id === 'anthropic'
            ? picked.label
            : canonicalModelId(picked.label);
      if (!id) return undefined;
      await vscode.workspace.getConfiguration('engram').update('model', id, vscode.ConfigurationTarget.Global);
      return id;
    }),
  ];
}

/** The undated alias of a dated API id when the catalog knows it (`claude-haiku-4-5`), else the id itself. */
function alias(id: string): string {
  const short = id.replace(/-\d{8}$/, '');
  return short !== id && canonicalModelId(short) === id ? short : id;
}
