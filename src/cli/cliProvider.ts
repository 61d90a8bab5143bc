// `--provider` and the model config of the commands that call the model: the flag, the settings file's
// engram.provider / engram.bedrock.* / engram.vertex.* / engram.foundry.* keys and Claude Code's environment
// (CLAUDE_CODE_USE_BEDROCK, AWS_REGION, ...) are handed to core, which decides once what they mean for every
// host. A name that is not a provider, or a provider that cannot work as set up (Vertex without a project),
// is a usage error (exit 2) saying the fix. The verbose line says which provider, region and where the
// credentials come from, never a credential itself.
import {
  PROVIDER_IDS,
  resolveModelConfig,
  type EngramSettings,
  type Env,
  type ModelConfig,
  type ProviderSettings,
  type RawSettings,
} from '../core/host/config';
import { UsageError, type OptionSpecs } from './args';

/** "anthropic, bedrock, vertex or foundry". */
function namesOf(): string {
  return `${PROVIDER_IDS.slice(0, -1).join(', ')} or ${PROVIDER_IDS.at(-1)}`;
}

export const PROVIDER_OPTIONS = {
  provider: {
    type: 'string',
    valueName: 'NAME',
    help:
      `Where Claude is reached: ${namesOf()} (default: engram.provider, else ` +
      "Claude Code's CLAUDE_CODE_USE_BEDROCK / _VERTEX / _FOUNDRY, else anthropic).",
  },
} satisfies OptionSpecs;

/** The environment line of a --help text that calls the model. */
export const PROVIDER_ENV_HELP =
  'Bedrock: CLAUDE_CODE_USE_BEDROCK=1, AWS_REGION, AWS_PROFILE (or any AWS credentials), ANTHROPIC_BEDROCK_BASE_URL.\n' +
  'Vertex AI: CLAUDE_CODE_USE_VERTEX=1, CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID, Google ADC.\n' +
  'Foundry: CLAUDE_CODE_USE_FOUNDRY=1, ANTHROPIC_FOUNDRY_RESOURCE or _BASE_URL, ANTHROPIC_FOUNDRY_API_KEY.\n' +
  'Gateways that sign requests themselves: CLAUDE_CODE_SKIP_BEDROCK_AUTH / _VERTEX_AUTH / _FOUNDRY_AUTH=1.';

/**
 * The model as a flag of the settings: `--model`, else the --settings file's engram.model, else Claude Code's
 * ANTHROPIC_MODEL (a Bedrock inference profile, a Vertex name), so the model's limits check it as they would
 * the flag; nothing set: the settings' default.
 */
export function modelFlag(
  value: string | undefined,
  base: { raw: RawSettings } | undefined,
  env: Env,
): { flag: string; value: string | undefined } {
  if (value !== undefined || base?.raw.model !== undefined) return { flag: '--model', value };
  return { flag: 'ANTHROPIC_MODEL', value: env.ANTHROPIC_MODEL?.trim() || undefined };
}

/**
 * The model config of a run: `--provider` beats engram.provider (when the --settings file sets it: its
 * default does not decide), which beats Claude Code's environment; each other provider key set in the file
 * beats its variable. Throws UsageError for an unknown provider name or a setup core says cannot work.
 */
export function cliModelConfig(
  settings: EngramSettings,
  flag: string | undefined,
  env: Env,
  base?: { raw: RawSettings },
): ModelConfig {
  if (flag?.trim() === '') throw new UsageError(`--provider needs a name: ${namesOf()}`);
  const { provider, ...fields } = settings.providers;
  const given: ProviderSettings = {};
  for (const [key, value] of Object.entries(fields) as Array<[keyof typeof fields, string]>)
    if (value) given[key] = value;
  if (flag !== undefined) Object.assign(given, { provider: flag, providerFromFlag: true });
  else if (base?.raw.provider !== undefined) given.provider = provider;
  const config = resolveModelConfig(
    { model: settings.model, maxOutputTokens: settings.maxOutputTokens, baseUrl: settings.baseUrl, ...given },
    env,
    undefined,
  );
  // Each problem names the fix (the valid names, the variable to set); on the command line none falls back.
  if (config.providerProblems.length > 0) throw new UsageError(config.providerProblems.join('\n'));
  return config;
}

const SOURCE_WORDS: Record<ModelConfig['providerSource'], string> = {
  flag: '--provider',
  setting: 'engram.provider',
  env: "Claude Code's environment",
  default: 'the default',
};

/**
 * One line for --verbose: the provider, where the choice came from, its region or endpoint, and where
 * the credentials come from (named by variable or file, never their value).
 */
export function providerLine(config: ModelConfig, env: Env): string {
  const p = config.provider;
  const from = `from ${SOURCE_WORDS[config.providerSource]}`;
  switch (p.id) {
    case 'anthropic':
      return `provider anthropic (${from}): ${config.baseUrl}, key from ${config.apiKeySource === 'env' ? 'ANTHROPIC_API_KEY' : config.apiKeySource}`;
    case 'bedrock':
      return (
        `provider bedrock (${from}): region ${p.region}${p.baseUrl ? `, ${p.baseUrl}` : ''}; ` +
        `credentials: ${p.skipAuth ? 'none sent (CLAUDE_CODE_SKIP_BEDROCK_AUTH: the gateway adds them)' : awsCredentials(p.profile, env)}`
      );
    case 'vertex':
      return (
        `provider vertex (${from}): region ${p.region}${perModel(p.modelRegions)}, project ${p.projectId ?? '(none)'}${p.baseUrl ? `, ${p.baseUrl}` : ''}; ` +
        `credentials: ${p.skipAuth ? 'none sent (CLAUDE_CODE_SKIP_VERTEX_AUTH: the gateway adds them)' : googleCredentials(env)}`
      );
    case 'foundry':
      return (
        `provider foundry (${from}): ${p.baseUrl ?? `resource ${p.resource ?? '(none)'}`}; credentials: ` +
        (p.skipAuth
          ? 'none sent (CLAUDE_CODE_SKIP_FOUNDRY_AUTH: the gateway adds them)'
          : p.apiKey
            ? 'ANTHROPIC_FOUNDRY_API_KEY'
            : "Azure's credential chain (az login, managed identity, AZURE_* variables)")
      );
  }
}

function awsCredentials(profile: string | undefined, env: Env): string {
  if (env.AWS_BEARER_TOKEN_BEDROCK?.trim()) return 'a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK)';
  if (env.AWS_ACCESS_KEY_ID?.trim())
    return `AWS_ACCESS_KEY_ID${env.AWS_SESSION_TOKEN?.trim() ? ' with a session token' : ''}`;
  if (profile) return `AWS profile ${profile} (~/.aws/config)`;
  return "AWS's default chain (profiles, SSO, instance role)";
}

function googleCredentials(env: Env): string {
  const file = env.GOOGLE_APPLICATION_CREDENTIALS?.trim();
  if (file) return `Google ADC from ${file} (GOOGLE_APPLICATION_CREDENTIALS)`;
  return 'Google ADC (gcloud auth application-default login, or the metadata server)';
}

/** " (us-east5 for VERTEX_REGION_CLAUDE_4_5_SONNET)": the per-model regions, or nothing. */
function perModel(regions: Record<string, string> | undefined): string {
  const set = Object.entries(regions ?? {});
  return set.length > 0 ? ` (${set.map(([k, v]) => `${v} for ${k}`).join(', ')})` : '';
}
