// Which cloud the chat's model is reached through, as VS Code sees it (issue 34): the provider settings as
// the person set them (an unset `engram.provider` lets Claude Code's CLAUDE_CODE_USE_* decide), the first-run
// screen's Amazon Bedrock / Google Vertex AI / Microsoft Foundry choices (ask for what is missing, write the
// settings), and the note saying whose credentials are used and the command that logs in.
import * as vscode from 'vscode';
import {
  providerName,
  resolveModelConfig,
  type ProviderConfig,
  type ProviderId,
  type ProviderSettings,
} from '../core/host/config';
import { settings } from './settings';

type CloudProviderId = Exclude<ProviderId, 'anthropic'>;

/** Whether the person set `engram.<key>` themselves (user, workspace or folder), not left the default. */
export function setByPerson(key: string): boolean {
  const set = vscode.workspace.getConfiguration('engram').inspect(key);
  return [set?.globalValue, set?.workspaceValue, set?.workspaceFolderValue].some((v) => v !== undefined);
}

/**
 * The provider settings to resolve with: `provider` only when the person set it (else the environment a
 * Claude Code user has decides), and each text only when not empty (an empty one leaves its variable).
 */
export function providerSettings(): ProviderSettings {
  const { provider, ...fields } = settings().providers;
  const given: ProviderSettings = setByPerson('provider') ? { provider } : {};
  for (const [key, value] of Object.entries(fields) as Array<[keyof typeof fields, string]>)
    if (value) given[key] = value;
  return given;
}

/** The provider the next session uses, from the settings and this extension host's environment. */
export function currentProvider(): ProviderConfig {
  return resolveModelConfig(providerSettings(), process.env, undefined).provider;
}

/** A short name for the chat's model button: "Bedrock", "Vertex AI", "Foundry"; undefined for the Anthropic API. */
export function providerShortName(id: ProviderId): string | undefined {
  return id === 'anthropic' ? undefined : providerName(id).replace(/^(Amazon|Google|Microsoft) /, '');
}

/** The command that logs in to the provider's cloud, for messages and the terminal. */
function loginCommand(provider: ProviderConfig): string | undefined {
  switch (provider.id) {
    case 'bedrock':
      return provider.profile ? `aws sso login --profile ${provider.profile}` : 'aws sso login';
    case 'vertex':
      return 'gcloud auth application-default login';
    case 'foundry':
      return 'az login';
    case 'anthropic':
      return undefined;
  }
}

/** Whose credentials the provider's requests carry, in a sentence; never a secret itself. */
function credentialsSentence(provider: ProviderConfig, env: NodeJS.ProcessEnv = process.env): string {
  if (provider.id !== 'anthropic' && provider.skipAuth)
    return vscode.l10n.t(
      'Requests go without credentials ({0}): the gateway adds them.',
      `CLAUDE_CODE_SKIP_${provider.id.toUpperCase()}_AUTH`,
    );
  switch (provider.id) {
    case 'bedrock':
      if (env.AWS_BEARER_TOKEN_BEDROCK?.trim())
        return vscode.l10n.t('Requests carry the Bedrock API key in AWS_BEARER_TOKEN_BEDROCK.');
      if (provider.profile)
        return vscode.l10n.t('Requests are signed with the AWS profile "{0}" (~/.aws/config).', provider.profile);
      return env.AWS_ACCESS_KEY_ID?.trim()
        ? vscode.l10n.t('Requests are signed with the AWS keys in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.')
        : vscode.l10n.t(
            "Requests are signed with AWS's default credentials: the environment, ~/.aws profiles, SSO or the instance role.",
          );
    case 'vertex':
      return env.GOOGLE_APPLICATION_CREDENTIALS?.trim()
        ? vscode.l10n.t('Requests carry a token from the key file in GOOGLE_APPLICATION_CREDENTIALS.')
        : vscode.l10n.t(
            "Requests carry a token from Google's Application Default Credentials (gcloud, or the metadata server).",
          );
    case 'foundry':
      return provider.apiKey
        ? vscode.l10n.t('Requests carry the key in ANTHROPIC_FOUNDRY_API_KEY.')
        : vscode.l10n.t(
            "Requests carry a token from Azure's credentials: the environment, a managed identity or the Azure CLI.",
          );
    case 'anthropic':
      return vscode.l10n.t('Requests carry your Anthropic API key.');
  }
}

/**
 * Says which provider and credentials Engram uses and how to log in, with "Open Terminal" (the login
 * command typed, not run) and "Copy Command"; `extra` are more buttons, the chosen one is returned.
 */
export async function showCloudCredentials(
  provider: ProviderConfig,
  lead: string,
  ...extra: string[]
): Promise<string | undefined> {
  const command = loginCommand(provider);
  const openTerminal = vscode.l10n.t('Open Terminal');
  const copy = vscode.l10n.t('Copy Command');
  const text = [
    lead,
    credentialsSentence(provider),
    command ? vscode.l10n.t('If they are missing or expired, log in with: {0}', command) : '',
  ]
    .filter(Boolean)
    .join(' ');
  const buttons = command ? [openTerminal, copy, ...extra] : extra;
  const picked = await vscode.window.showInformationMessage(text, ...buttons);
  if (command && picked === openTerminal) {
    const terminal = vscode.window.createTerminal({ name: providerName(provider.id) });
    terminal.show();
    // Typed, not run: the person presses Enter (a login may open a browser).
    terminal.sendText(command, false);
  } else if (command && picked === copy) await vscode.env.clipboard.writeText(command);
  return picked;
}

/** The value a field is prefilled with: its setting, else the environment Claude Code reads, else `fallback`. */
function prefill(setting: string, variables: string[], fallback = ''): string {
  const env = variables.map((v) => process.env[v]?.trim()).find(Boolean);
  return vscode.workspace.getConfiguration('engram').get<string>(setting)?.trim() || env || fallback;
}

interface Field {
  setting: string;
  title: string;
  prompt: string;
  value: string;
  /** An empty answer is refused (a project id, a resource name). */
  required: boolean;
}

function fieldsFor(id: CloudProviderId): Field[] {
  switch (id) {
    case 'bedrock':
      return [
        {
          setting: 'bedrock.region',
          title: vscode.l10n.t('Engram: AWS region for Amazon Bedrock'),
          prompt: vscode.l10n.t('For example us-east-1 or eu-central-1. Saved in the engram.bedrock.region setting.'),
          value: prefill('bedrock.region', ['AWS_REGION', 'AWS_DEFAULT_REGION'], 'us-east-1'),
          required: true,
        },
      ];
    case 'vertex':
      return [
        {
          setting: 'vertex.projectId',
          title: vscode.l10n.t('Engram: Google Cloud project for Vertex AI'),
          prompt: vscode.l10n.t(
            'The project where Claude is enabled in Vertex AI. Saved in the engram.vertex.projectId setting.',
          ),
          value: prefill('vertex.projectId', ['ANTHROPIC_VERTEX_PROJECT_ID', 'GOOGLE_CLOUD_PROJECT', 'GCLOUD_PROJECT']),
          required: true,
        },
        {
          setting: 'vertex.region',
          title: vscode.l10n.t('Engram: Google Cloud region for Vertex AI'),
          prompt: vscode.l10n.t('For example global or us-east5. Saved in the engram.vertex.region setting.'),
          value: prefill('vertex.region', ['CLOUD_ML_REGION'], 'global'),
          required: true,
        },
      ];
    case 'foundry':
      // An endpoint from the environment or the settings needs no resource name.
      if (prefill('foundry.baseUrl', ['ANTHROPIC_FOUNDRY_BASE_URL'])) return [];
      return [
        {
          setting: 'foundry.resource',
          title: vscode.l10n.t('Engram: Microsoft Foundry resource'),
          prompt: vscode.l10n.t(
            'The resource name, the first part of https://NAME.services.ai.azure.com. Saved in the engram.foundry.resource setting.',
          ),
          value: prefill('foundry.resource', ['ANTHROPIC_FOUNDRY_RESOURCE']),
          required: true,
        },
      ];
  }
}

/**
 * The first-run screen's cloud choice: asks for what the provider needs (prefilled from the settings and
 * the environment), writes the settings and `engram.provider`, then says whose credentials are used and
 * how to log in. False when the person cancelled (nothing is written then).
 */
export async function setUpCloudProvider(id: CloudProviderId): Promise<boolean> {
  const answers: Array<[string, string]> = [];
  for (const field of fieldsFor(id)) {
    const answer = await vscode.window.showInputBox({
      title: field.title,
      prompt: field.prompt,
      value: field.value,
      ignoreFocusOut: true,
      validateInput: (v) =>
        field.required && !v.trim()
          ? vscode.l10n.t('This is needed.')
          : /\s/.test(v.trim())
            ? vscode.l10n.t('It has no spaces.')
            : undefined,
    });
    if (answer === undefined) return false;
    answers.push([field.setting, answer.trim()]);
  }
  const config = vscode.workspace.getConfiguration('engram');
  for (const [setting, value] of answers) await config.update(setting, value, vscode.ConfigurationTarget.Global);
  await config.update('provider', id, vscode.ConfigurationTarget.Global);
  void showCloudCredentials(
    currentProvider(),
    vscode.l10n.t('Engram: the chat now talks to Claude on {0}.', providerName(id)),
  );
  return true;
}
