// Which cloud a session's model is reached through (issue 34): the Anthropic API itself (or a gateway at
// its base URL), Amazon Bedrock, Google Vertex AI or Microsoft Foundry. Each is one of Anthropic's official
// clients over the same Messages API; what differs is where requests go, how they are signed, the model ids
// and the errors. A host reads its own sources (settings, flags, the environment) and core decides once
// what they mean (providerConfig.ts); the client for a provider is built in providerClient.ts.

export const PROVIDER_IDS = ['anthropic', 'bedrock', 'vertex', 'foundry'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** The Anthropic API (or an Anthropic-compatible gateway): base URL and key stay in ModelConfig as before. */
export interface AnthropicProvider {
  id: 'anthropic';
}

/** Amazon Bedrock: SigV4 with AWS's default credential chain (environment, profiles, SSO, instance roles). */
export interface BedrockProvider {
  id: 'bedrock';
  /** AWS_REGION (or AWS_DEFAULT_REGION), `engram.bedrock.region`; us-east-1 when nothing says. */
  region: string;
  /** AWS_PROFILE, `engram.bedrock.profile`: the named profile the chain starts from. */
  profile?: string;
  /** ANTHROPIC_BEDROCK_BASE_URL, `engram.bedrock.baseUrl`: a gateway or a test server. */
  baseUrl?: string;
  /** CLAUDE_CODE_SKIP_BEDROCK_AUTH: a gateway adds credentials itself; requests go unsigned. */
  skipAuth: boolean;
}

/** Google Vertex AI: Application Default Credentials (gcloud, a key file, the metadata server). */
export interface VertexProvider {
  id: 'vertex';
  /** CLOUD_ML_REGION, `engram.vertex.region`; `global` when nothing says. */
  region: string;
  /**
   * Claude Code's per-model regions, VERTEX_REGION_CLAUDE_4_5_SONNET=us-east5 and the like, by variable name:
   * a model whose variable is set goes to that region instead (vertexRegionFor in providerModels.ts).
   */
  modelRegions?: Record<string, string>;
  /** ANTHROPIC_VERTEX_PROJECT_ID (or GCLOUD_PROJECT / GOOGLE_CLOUD_PROJECT), `engram.vertex.projectId`. */
  projectId?: string;
  /** ANTHROPIC_VERTEX_BASE_URL, `engram.vertex.baseUrl`. */
  baseUrl?: string;
  /** CLAUDE_CODE_SKIP_VERTEX_AUTH. */
  skipAuth: boolean;
}

/** Microsoft Foundry: an API key (ANTHROPIC_FOUNDRY_API_KEY) or Azure's credential chain (Entra ID). */
export interface FoundryProvider {
  id: 'foundry';
  /** ANTHROPIC_FOUNDRY_RESOURCE, `engram.foundry.resource`: the resource name in the endpoint's host. */
  resource?: string;
  /** ANTHROPIC_FOUNDRY_BASE_URL, `engram.foundry.baseUrl`; beats the resource. */
  baseUrl?: string;
  /** ANTHROPIC_FOUNDRY_API_KEY, from the environment only: Engram stores no cloud secret of its own. */
  apiKey?: string;
  /** CLAUDE_CODE_SKIP_FOUNDRY_AUTH. */
  skipAuth: boolean;
}

export type ProviderConfig = AnthropicProvider | BedrockProvider | VertexProvider | FoundryProvider;

/** Where the provider choice came from, for the status line and for error messages. */
export type ProviderSource = 'flag' | 'setting' | 'env' | 'default';

/**
 * The raw values a host hands over. `provider` is set only when the person chose one (a flag, or a setting
 * they changed): an unset choice lets Claude Code's CLAUDE_CODE_USE_BEDROCK / _VERTEX / _FOUNDRY decide.
 * Each other field, when set, beats its environment variable.
 */
export interface ProviderSettings {
  provider?: string;
  /** Whether `provider` came from a command-line flag rather than a setting (only changes `source`). */
  providerFromFlag?: boolean;
  bedrockRegion?: string;
  bedrockProfile?: string;
  bedrockBaseUrl?: string;
  vertexRegion?: string;
  vertexProjectId?: string;
  vertexBaseUrl?: string;
  foundryResource?: string;
  foundryBaseUrl?: string;
}

/** One model a provider offers, for the model picker. */
export interface ProviderModel {
  /** The id sent on the wire for this provider (e.g. `us.anthropic.claude-sonnet-4-6`, `claude-sonnet-4-6`). */
  id: string;
  /** The Anthropic API id of the same model, which the limits and price tables are keyed by. */
  canonical: string;
}
