// The official client for a session's provider: Anthropic's own, or its Bedrock, Vertex or Foundry client,
// all on the same Messages API. Credentials are the cloud's own (AWS's default chain, Google's Application
// Default Credentials, Azure's credential chain or a Foundry key), found at request time; Engram stores
// none. SDK types stay in this file and the other anthropic*/provider* files (STYLE habit 8).
import { Anthropic } from '@anthropic-ai/sdk';
import type { CommonClientOptions, ProviderSdk, Shared } from './providerSdk';
import type { ProviderConfig } from './providerTypes';
import { addSdkErrorClasses } from './sdkErrors';

/**
 * Whether the provider answers count_tokens: the Anthropic API, Foundry (Anthropic's own infrastructure)
 * and Vertex (`count-tokens:rawPredict`, which the vertex SDK maps to) do; Bedrock's runtime API has none
 * (the bedrock SDK's types leave `countTokens` out; the method it inherits would only get an error).
 */
export function countsTokens(provider: ProviderConfig): boolean {
  return provider.id !== 'bedrock';
}

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
      return clouds().bedrockClient(p, shared);
    case 'vertex':
      return clouds().vertexClient(p, shared);
    case 'foundry':
      if (!p.baseUrl && !p.resource)
        return 'Microsoft Foundry needs its endpoint: set ANTHROPIC_FOUNDRY_RESOURCE or ANTHROPIC_FOUNDRY_BASE_URL.';
      return clouds().foundryClient(p, shared);
  }
}

type CloudChunk = typeof import('./cloudChunk');
let chunk: CloudChunk | undefined;

/**
 * The cloud clients, loaded on first use from their own bundle: `engram-lazy:clouds` is resolved by esbuild
 * to ./clouds.js beside the bundle (see esbuild.mjs); unbundled (tsx, unit tests) the source module is
 * required instead.
 */
function clouds(): CloudChunk {
  if (chunk) return chunk;
  try {
    chunk = require('engram-lazy:clouds') as CloudChunk;
  } catch (bundledError) {
    try {
      // A variable, so that esbuild leaves this require alone instead of bundling the clients in.
      const source = './cloudChunk';
      chunk = require(source) as CloudChunk;
    } catch {
      throw bundledError;
    }
  }
  addSdkErrorClasses(chunk.sdkErrors);
  return chunk;
}
