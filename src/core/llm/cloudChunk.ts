// The cloud clients (Bedrock, Vertex AI, Foundry) with their credential chains: the AWS SDK, Google's and
// Azure's auth libraries make this several megabytes, so esbuild makes it its own bundle (dist/clouds.js)
// that providerClient.ts requires the first time a session talks to a cloud. A session on the Anthropic
// API never loads it. SDK types stay here and in the other anthropic*/provider* files (STYLE habit 8).
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicFoundry } from '@anthropic-ai/foundry-sdk';
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import type { SdkErrorClasses } from './sdkErrors';
import type { ProviderSdk, Shared } from './providerSdk';
import type { BedrockProvider, FoundryProvider, VertexProvider } from './providerTypes';

/** This bundle's copy of the SDK's error classes: the clients below throw these (sdkErrors.ts). */
export const sdkErrors: SdkErrorClasses = { APIError, APIConnectionError, APIUserAbortError };

/** Microsoft Entra ID's scope for Foundry, per the foundry SDK's README. */
const FOUNDRY_SCOPE = 'https://ai.azure.com/.default';

export function bedrockClient(p: BedrockProvider, shared: Shared): ProviderSdk {
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

export function vertexClient(p: VertexProvider, shared: Shared): ProviderSdk {
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

export function foundryClient(p: FoundryProvider, shared: Shared): ProviderSdk {
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
