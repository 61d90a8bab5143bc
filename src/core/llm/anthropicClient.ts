// The ModelClient adapter on @anthropic-ai/sdk: it sends one request and reads its stream, through the
// Anthropic API's client or Bedrock's, Vertex's or Foundry's (providerClient.ts), with the provider's id of
// the model (providerModels.ts). SDK types never leave the anthropic* and provider* files: the request is
// built from core types (anthropicRequest.ts), the stream comes back as a core ModelResponse
// (anthropicResponse.ts) and failures as core ModelErrors (anthropicErrors.ts, providerErrors.ts), STYLE
// habit 8.
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { silentLogger, type Logger } from '../ports';
import { DROPPED_MID_ANSWER, mapError, type ErrorTarget } from './anthropicErrors';
import { toCountParams, toRequestParams } from './anthropicRequest';
import { ResponseState } from './anthropicResponse';
import { AuthError, ConnectionDroppedError, ConnectionError, isModelError, requestNotBuilt } from './errors';
import type { ModelConfig } from './modelConfig';
import type { ModelClient, ModelRequest, ModelResponse, StreamHandlers, TokenCountRequest } from './modelClient';
import { countsTokens, createProviderSdk } from './providerClient';
import type { ProviderSdk } from './providerSdk';
import { credentialFailure } from './providerErrors';
import { hourCacheOn, providerForModel, providerModelId } from './providerModels';
import type { ProviderConfig } from './providerTypes';
import { isApiError, isUserAbort } from './sdkErrors';
import { stallGuardedFetch } from './stallGuard';

export interface AnthropicClientOptions {
  apiKey: string | undefined;
  baseUrl: string;
  /** Which cloud the model is reached through; the Anthropic API when not given. */
  provider?: ProviderConfig;
  /** Per request; a stream that stalls longer than this fails as a connection error. */
  timeoutMs?: number;
  /**
   * A request that receives no byte for this long is abandoned (stallGuard.ts); read at each request,
   * so a settings change applies to the next one. Default engram.network.stallSeconds' default; 0 = off.
   */
  stallMs?: () => number;
  logger?: Logger;
}

const NO_VERTEX_PROJECT =
  'Google Vertex AI needs a project: set ANTHROPIC_VERTEX_PROJECT_ID or engram.vertex.projectId ' +
  '(the credentials did not name one).';

/** Ten minutes, the SDK's own default: long generations are normal. */
const DEFAULT_TIMEOUT_MS = 600_000;

/** The model client for `config`'s provider (the Anthropic API, Bedrock, Vertex or Foundry). */
export function createAnthropicClient(
  config: ModelConfig,
  logger?: Logger,
  stallMs?: () => number,
): AnthropicModelClient {
  return new AnthropicModelClient({
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    provider: config.provider,
    logger,
    ...(stallMs ? { stallMs } : {}),
  });
}

export class AnthropicModelClient implements ModelClient {
  private readonly sdk: ProviderSdk | undefined;
  /** Why there is no SDK client (a missing key), said on use. */
  private readonly missing: string | undefined;
  readonly provider: ProviderConfig;
  private readonly logger: Logger;
  /** Where requests go, for error messages: "Could not reach <this>" says what to check. */
  private readonly endpoint: string;
  /**
   * The provider's own count of a prompt; undefined where the provider has none (Bedrock), and callers
   * keep the local estimate.
   */
  readonly countTokens?: (req: TokenCountRequest, signal?: AbortSignal) => Promise<number>;
  /** Builds a client for the provider as one model sees it (a Vertex model with a region of its own). */
  private readonly build: (provider: ProviderConfig) => ProviderSdk | string;
  /** Those clients, by region, built on first use. */
  private readonly byRegion = new Map<string, ProviderSdk | string>();

  constructor(opts: AnthropicClientOptions) {
    this.logger = opts.logger ?? silentLogger;
    this.provider = opts.provider ?? { id: 'anthropic' };
    const common = { timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, fetch: stallGuardedFetch(opts.stallMs) };
    this.build = (provider) => createProviderSdk({ provider, apiKey: opts.apiKey, baseUrl: opts.baseUrl }, common);
    const built = this.build(this.provider);
    this.sdk = typeof built === 'string' ? undefined : built;
    this.missing = typeof built === 'string' ? built : undefined;
    const base = (this.sdk?.baseURL ?? opts.baseUrl).replace(/\/+$/, '');
    this.endpoint = this.provider.id === 'anthropic' ? `${base}/v1/messages` : base;
    if (this.sdk?.messages.countTokens && countsTokens(this.provider))
      this.countTokens = (req, signal) => this.count(req, signal);
  }

  async stream(req: ModelRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ModelResponse> {
    const sdk = this.client(req.model);
    const state = new ResponseState(req.model, handlers, this.logger);
    if (signal.aborted) return state.result({ cancelled: true });

    let events: AsyncIterable<RawMessageStreamEvent>;
    try {
      const { data, request_id } = await sdk.messages
        .create(toRequestParams(this.onProvider(this.cacheOffered(req))), { signal })
        .withResponse();
      events = data;
      state.requestId = request_id ?? undefined;
    } catch (e) {
      if (signal.aborted || isUserAbort(e)) return state.result({ cancelled: true });
      throw this.failure(e, req.model);
    }

    try {
      for await (const event of events) state.apply(event);
    } catch (e) {
      if (signal.aborted || isUserAbort(e)) return state.result({ cancelled: true });
      throw mapError(e, state.started ? state.result({ dropped: true }) : undefined, this.target(req.model));
    }
    // The SDK ends the iteration quietly when aborted, so check before calling it complete.
    if (signal.aborted && !state.stopped) return state.result({ cancelled: true });
    if (!state.stopped) {
      if (!state.started)
        throw new ConnectionError(
          'The connection to the API closed before any answer. Check your network and try again.',
        );
      const partial = state.result({ dropped: true });
      throw new ConnectionDroppedError(DROPPED_MID_ANSWER, { partial, requestId: state.requestId });
    }
    return state.result({});
  }

  /** The request with a 5-minute cache where the provider keeps no 1-hour one for its model (Bedrock's older models). */
  private cacheOffered(req: ModelRequest): ModelRequest {
    if (req.cache?.ttl !== '1h' || hourCacheOn(req.model, this.provider)) return req;
    return { ...req, cache: { ...req.cache, ttl: '5m' } };
  }

  /** The request with the provider's id of its model (a canonical id becomes e.g. a Bedrock profile). */
  private onProvider<R extends { model: string }>(req: R): R {
    return { ...req, model: providerModelId(req.model, this.provider) };
  }

  /** POST /v1/messages/count_tokens: the API's own count of a prompt (it is not sent to the model). */
  private async count(req: TokenCountRequest, signal?: AbortSignal): Promise<number> {
    const sdk = this.client(req.model);
    const countTokens = sdk.messages.countTokens;
    if (!countTokens) throw new AuthError('This provider has no token count.');
    try {
      const counted = await countTokens.call(sdk.messages, toCountParams(this.onProvider(req)), {
        ...(signal ? { signal } : {}),
      });
      return counted.input_tokens;
    } catch (e) {
      throw this.failure(e, req.model);
    }
  }

  /**
   * A failure before any answer: a credential the cloud's chain could not find, what the SDK wraps from
   * the wire (APIError, APIConnectionError), or else something thrown while building the request here,
   * e.g. JSON.stringify's RangeError on very deep input.
   */
  private failure(e: unknown, model: string): Error {
    const credentials = credentialFailure(e, providerForModel(this.provider, model));
    if (credentials) return credentials;
    if (this.provider.id === 'vertex' && e instanceof Error && /No projectId was given/.test(e.message))
      return new AuthError(NO_VERTEX_PROJECT, { cause: e });
    if (!isApiError(e) && !isModelError(e)) return requestNotBuilt(e);
    return mapError(e, undefined, this.target(model));
  }

  private target(model: string): ErrorTarget {
    const provider = providerForModel(this.provider, model);
    const regional = provider === this.provider ? undefined : this.byRegion.get(regionOf(provider));
    const endpoint = regional && typeof regional !== 'string' ? regional.baseURL.replace(/\/+$/, '') : this.endpoint;
    return { endpoint, provider, model: providerModelId(model, this.provider) };
  }

  /**
   * The SDK client for requests about `model`: the session's own, or on Vertex the one for the region a
   * VERTEX_REGION_CLAUDE_* variable gives the model (the SDK puts its region in each URL).
   */
  private client(model: string): ProviderSdk {
    const provider = providerForModel(this.provider, model);
    let built: ProviderSdk | string | undefined = this.sdk ?? this.missing;
    if (provider !== this.provider) {
      const region = regionOf(provider);
      built = this.byRegion.get(region);
      if (built === undefined) {
        built = this.build(provider);
        this.byRegion.set(region, built);
      }
    }
    if (built === undefined || typeof built === 'string') throw new AuthError(built ?? 'No client.');
    return built;
  }
}

function regionOf(provider: ProviderConfig): string {
  return 'region' in provider ? provider.region : '';
}
