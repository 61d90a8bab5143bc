// Which provider a session talks to, and its region, project, endpoint and auth switches, decided once for
// every host from the raw values it hands over (settings, flags) and the environment a Claude Code user
// already has. Precedence: a choice the person made (a flag, a setting they changed) beats Claude Code's
// CLAUDE_CODE_USE_BEDROCK / _VERTEX / _FOUNDRY, which beat the Anthropic API; each other field set in
// Engram beats its environment variable. Pure: no file, no network, no credential is touched here.
import {
  PROVIDER_IDS,
  type ProviderConfig,
  type ProviderId,
  type ProviderSettings,
  type ProviderSource,
} from './providerTypes';

/** The environment as a host hands it over (process.env, or a test's own). */
export type Env = Readonly<Record<string, string | undefined>>;

export interface ResolvedProvider {
  config: ProviderConfig;
  source: ProviderSource;
  /** What keeps the provider from working, each with its fix; empty when nothing does. */
  problems: string[];
}

/** Bedrock's region when neither a setting nor AWS_REGION / AWS_DEFAULT_REGION says one (as the AWS CLI). */
export const DEFAULT_BEDROCK_REGION = 'us-east-1';
/** Vertex's region when neither a setting nor CLOUD_ML_REGION says one: the global endpoint. */
export const DEFAULT_VERTEX_REGION = 'global';

/** Claude Code's switches, in the order it checks them when more than one is on. */
const ENV_SWITCHES: ReadonlyArray<[variable: string, id: ProviderId]> = [
  ['CLAUDE_CODE_USE_BEDROCK', 'bedrock'],
  ['CLAUDE_CODE_USE_VERTEX', 'vertex'],
  ['CLAUDE_CODE_USE_FOUNDRY', 'foundry'],
];

/**
 * The provider for `settings` and `env`. An unknown provider name is a problem naming the valid ones (the
 * CLI exits 2 on it) and falls back to what the environment says; so is a Vertex without a project and a
 * Foundry without a resource or base URL (the config is still returned, so a status line can show it).
 */
export function resolveProvider(settings: ProviderSettings, env: Env): ResolvedProvider {
  const problems: string[] = [];
  const chosen = clean(settings.provider)?.toLowerCase();
  let id: ProviderId | undefined;
  let source: ProviderSource = 'default';
  if (chosen !== undefined) {
    if (isProviderId(chosen)) {
      id = chosen;
      source = settings.providerFromFlag ? 'flag' : 'setting';
    } else {
      problems.push(
        `Unknown provider "${settings.provider?.trim()}"${settings.providerFromFlag ? ' (--provider)' : ' (engram.provider)'}: ` +
          `use one of ${PROVIDER_IDS.join(', ')}.`,
      );
    }
  }
  if (id === undefined) {
    const switched = ENV_SWITCHES.find(([variable]) => isTruthy(env[variable]));
    if (switched) {
      id = switched[1];
      source = 'env';
    }
  }
  const config = providerFor(id ?? 'anthropic', settings, env);
  problems.push(...providerProblems(config));
  return { config, source, problems };
}

function providerFor(id: ProviderId, s: ProviderSettings, env: Env): ProviderConfig {
  switch (id) {
    case 'anthropic':
      return { id };
    case 'bedrock':
      return {
        id,
        region:
          clean(s.bedrockRegion) ?? clean(env.AWS_REGION) ?? clean(env.AWS_DEFAULT_REGION) ?? DEFAULT_BEDROCK_REGION,
        ...optional('profile', clean(s.bedrockProfile) ?? clean(env.AWS_PROFILE)),
        ...optional('baseUrl', baseUrl(s.bedrockBaseUrl) ?? baseUrl(env.ANTHROPIC_BEDROCK_BASE_URL)),
        skipAuth: isTruthy(env.CLAUDE_CODE_SKIP_BEDROCK_AUTH),
      };
    case 'vertex':
      return {
        id,
        region: clean(s.vertexRegion) ?? clean(env.CLOUD_ML_REGION) ?? DEFAULT_VERTEX_REGION,
        ...withRegions(vertexModelRegions(env)),
        ...optional(
          'projectId',
          clean(s.vertexProjectId) ??
            clean(env.ANTHROPIC_VERTEX_PROJECT_ID) ??
            clean(env.GCLOUD_PROJECT) ??
            clean(env.GOOGLE_CLOUD_PROJECT),
        ),
        ...optional('baseUrl', baseUrl(s.vertexBaseUrl) ?? baseUrl(env.ANTHROPIC_VERTEX_BASE_URL)),
        skipAuth: isTruthy(env.CLAUDE_CODE_SKIP_VERTEX_AUTH),
      };
    case 'foundry': {
      // A base URL beats a resource (the client takes one or the other); either set in Engram beats both
      // variables, so a resource chosen in the settings is not overridden by ANTHROPIC_FOUNDRY_BASE_URL.
      const url = baseUrl(s.foundryBaseUrl);
      const resource = clean(s.foundryResource);
      const envUrl = baseUrl(env.ANTHROPIC_FOUNDRY_BASE_URL);
      const where = url
        ? { baseUrl: url }
        : resource
          ? { resource }
          : envUrl
            ? { baseUrl: envUrl }
            : optional('resource', clean(env.ANTHROPIC_FOUNDRY_RESOURCE));
      return {
        id,
        ...where,
        ...optional('apiKey', clean(env.ANTHROPIC_FOUNDRY_API_KEY)),
        skipAuth: isTruthy(env.CLAUDE_CODE_SKIP_FOUNDRY_AUTH),
      };
    }
  }
}

/** What a resolved provider still lacks, with the setting or variable that fixes it. */
function providerProblems(config: ProviderConfig): string[] {
  if (config.id === 'vertex' && !config.projectId)
    return [
      'Google Vertex AI needs a project: set ANTHROPIC_VERTEX_PROJECT_ID (or GOOGLE_CLOUD_PROJECT) ' +
        'or engram.vertex.projectId.',
    ];
  if (config.id === 'foundry' && !config.resource && !config.baseUrl)
    return [
      'Microsoft Foundry needs its endpoint: set ANTHROPIC_FOUNDRY_RESOURCE (the resource name) or ' +
        'ANTHROPIC_FOUNDRY_BASE_URL, or engram.foundry.resource / engram.foundry.baseUrl.',
    ];
  return [];
}

/** The environment variables that hold a cloud credential the chains may use, by provider. */
const CLOUD_SECRET_VARS: Record<ProviderId, readonly string[]> = {
  anthropic: [],
  bedrock: ['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK'],
  vertex: [],
  foundry: ['ANTHROPIC_FOUNDRY_API_KEY', 'AZURE_CLIENT_SECRET'],
};

/**
 * The cloud credentials in `env` that `provider`'s client may use, for a session to redact wherever they
 * show up (a tool that prints the environment). Engram stores none of them.
 */
export function cloudSecrets(provider: ProviderConfig, env: Env): string[] {
  return CLOUD_SECRET_VARS[provider.id].flatMap((name) => clean(env[name]) ?? []);
}

/** The display name of a provider, for messages and the status line. */
export function providerName(id: ProviderId): string {
  return PROVIDER_NAMES[id];
}

const PROVIDER_NAMES: Record<ProviderId, string> = {
  anthropic: 'Anthropic API',
  bedrock: 'Amazon Bedrock',
  vertex: 'Google Vertex AI',
  foundry: 'Microsoft Foundry',
};

export function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}

/** An environment switch as Claude Code reads one: `1`, `true`, `yes` or `on`, in any case. */
export function isTruthy(value: string | undefined): boolean {
  const v = value?.trim().toLowerCase();
  return v === '1' || v === 'true' || v === 'yes' || v === 'on';
}

function clean(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

function baseUrl(value: string | undefined): string | undefined {
  return clean(value)?.replace(/\/+$/, '');
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

/** VERTEX_REGION_CLAUDE_* variables that hold a region, by name; undefined when there are none. */
function vertexModelRegions(env: Env): Record<string, string> | undefined {
  const found = Object.entries(env).filter(
    (e): e is [string, string] => e[0].startsWith('VERTEX_REGION_CLAUDE_') && clean(e[1]) !== undefined,
  );
  return found.length > 0 ? Object.fromEntries(found.map(([k, v]) => [k, v.trim()])) : undefined;
}

function withRegions(modelRegions: Record<string, string> | undefined): { modelRegions?: Record<string, string> } {
  return modelRegions ? { modelRegions } : {};
}
