// The official client for a session's provider: Anthropic's own, or its Bedrock, Vertex or Foundry client,
// all on the same Messages API. Credentials are the cloud's own (AWS's default chain, Google's Application
// Default Credentials, Azure's credential chain or a Foundry key), found at request time; Engram stores
// none. SDK types stay in this file and the other anthropic*/provider* files (STYLE habit 8).
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicFoundry } from '@anthropic-ai/foundry-sdk';
import { Anthropic } from '@anthropic-ai/sdk';
import type { Messages } from '@anthropic-ai/sdk/resources/messages';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import type { BedrockProvider, FoundryProvider, ProviderConfig, VertexProvider } from './providerTypes';

/** What every client shares: our own retry loop, the stall-guarded fetch, no SDK logging. */
export interface CommonClientOptions {
  timeout: number;
  fetch: typeof fetch;
}

/** What the model client needs of any provider's SDK client. */
export interface ProviderSdk {
  messages: Pick<Messages, 'create'> & Partial<Pick<Messages, 'countTokens'>>;
  /** Where requests go, for "Could not reach …" messages. */
  baseURL: string;
}

/**
 * Whether the provider answers count_tokens: the Anthropic API, Foundry (Anthropic's own infrastructure)
 * and Vertex (`count-tokens:rawPredict`, which the vertex SDK maps to) do; Bedrock's runtime API has none
 * (the bedrock SDK's types leave `countTokens` out; the method it inherits would only get an error).
 */
export function countsTokens(provider: ProviderConfig): boolean {
  return provider.id !== 'bedrock';
}

/** Microsoft Entra ID's scope for Foundry, per the foundry SDK's README. */
const FOUNDRY_SCOPE = 'https://ai.azure.com/.default';

/** Where a client goes: the provider, and for the Anthropic API its key and base URL (a ModelConfig fits). */
export interface ClientTarget {
  provider: ProviderConfig;
  apiKey: string | undefined;
  baseUrl: string;
}

/**
 * The SDK client for `target`'s provider, or a message saying what is missing when it cannot be built (no
 * Anthropic API key, no Foundry endpoint). Nothing is fetched here: credentials are resolved on the first
 * request.
 */
export function createProviderSdk(target: ClientTarget, common: CommonClientOptions): ProviderSdk | string {
  const shared: Shared = { ...common, maxRetries: 0, logLevel: 'off' };
  const p = target.provider;
  switch (p.id) {
    case 'anthropic':
      // No key: fail on use, and never let the SDK go looking for credential profiles on disk.
      if (!target.apiKey) return 'No Anthropic API key is set. Run "Engram: Set API Key" or set ANTHROPIC_API_KEY.';
      return new Anthropic({ ...shared, apiKey: target.apiKey, baseURL: target.baseUrl, openTelemetry: false });
    case 'bedrock':
      return bedrockClient(p, shared);
    case 'vertex':
      return vertexClient(p, shared);
    case 'foundry':
      if (!p.baseUrl && !p.resource)
        return 'Microsoft Foundry needs its endpoint: set ANTHROPIC_FOUNDRY_RESOURCE or ANTHROPIC_FOUNDRY_BASE_URL.';
      return foundryClient(p, shared);
  }
}

type Shared = CommonClientOptions & { maxRetries: 0; logLevel: 'off' };

function bedrockClient(p: BedrockProvider, shared: Shared): ProviderSdk {
  return new AnthropicBedrock({
    ...shared,
    awsRegion: p.region,
    // Always given: without one the SDK reads ANTHROPIC_BEDROCK_BASE_URL itself (resolveProvider did), and a
    // null one would fall back to the Anthropic API's URL. The default is the SDK's own, for the region.
    baseURL: p.baseUrl ?? `https://bedrock-runtime.${p.region}.amazonaws.com`,
    skipAuth: p.skipAuth,
    // AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key) is read by the SDK itself when set; otherwise SigV4 with
    // the default chain, started from the named profile when there is one.
    ...(p.profile ? { providerChainResolver: () => profileChain(p.profile as string) } : {}),
  }) as unknown as ProviderSdk;
}

async function profileChain(profile: string) {
  const { fromNodeProviderChain } = await import('@aws-sdk/credential-providers');
  return fromNodeProviderChain({ profile });
}

type VertexOptions = NonNullable<ConstructorParameters<typeof AnthropicVertex>[0]>;

function vertexClient(p: VertexProvider, shared: Shared): ProviderSdk {
  const client = new AnthropicVertex({
    ...shared,
    region: p.region,
    projectId: p.projectId ?? null,
    // null: the SDK derives the endpoint from the region instead of reading ANTHROPIC_VERTEX_BASE_URL again.
    baseURL: p.baseUrl ?? null,
    // Without an auth client the SDK uses Application Default Credentials with the cloud-platform scope.
    ...(p.skipAuth ? { authClient: unsignedGoogleAuth(p.projectId) } : {}),
  });
  // The SDK starts looking for credentials as it is built and awaits the result only at the first request;
  // without credentials that promise would reject unhandled (a crash in the CLI) when no request follows
  // soon. A handler here marks it handled; the request still sees the failure and says what to run.
  const pending = (client as unknown as { _authClientPromise?: Promise<unknown> })._authClientPromise;
  void pending?.catch(() => undefined);
  return client as unknown as ProviderSdk;
}

/** An auth client that adds no header: a gateway in front of Vertex adds the credentials itself. */
function unsignedGoogleAuth(projectId: string | undefined): VertexOptions['authClient'] {
  const client = { projectId: projectId ?? null, getRequestHeaders: async () => new Headers() };
  return client as unknown as VertexOptions['authClient'];
}

function foundryClient(p: FoundryProvider, shared: Shared): ProviderSdk {
  const where = p.baseUrl ? { baseURL: p.baseUrl, resource: null } : { resource: p.resource ?? null };
  if (p.skipAuth) return new UnsignedFoundry({ ...shared, ...where, apiKey: 'none' }) as unknown as ProviderSdk;
  if (p.apiKey) return new AnthropicFoundry({ ...shared, ...where, apiKey: p.apiKey }) as unknown as ProviderSdk;
  return new AnthropicFoundry({
    ...shared,
    ...where,
    azureADTokenProvider: azureToken(),
  }) as unknown as ProviderSdk;
}

/** Azure's default credential chain (environment, workload identity, managed identity, `az login`, ...). */
function azureToken(): () => Promise<string> {
  let provider: Promise<() => Promise<string>> | undefined;
  return async () => {
    provider ??= import('@azure/identity').then(({ DefaultAzureCredential, getBearerTokenProvider }) =>
      getBearerTokenProvider(new DefaultAzureCredential(), FOUNDRY_SCOPE),
    );
    return (await provider)();
  };
}

/** Foundry behind a gateway that adds the credentials: no auth header at all. */
class UnsignedFoundry extends AnthropicFoundry {
  protected override async authHeaders(): Promise<undefined> {
    return undefined;
  }
}
