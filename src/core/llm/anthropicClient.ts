// The ModelClient adapter on @anthropic-ai/sdk: it sends one request and reads its stream. SDK types never
// leave the anthropic* files: the request is built from core types (anthropicRequest.ts), the stream comes
// back as a core ModelResponse (anthropicResponse.ts) and failures as core ModelErrors (anthropicErrors.ts),
// STYLE habit 8.
import { Anthropic, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { silentLogger, type Logger } from '../ports';
import { DROPPED_MID_ANSWER, mapError } from './anthropicErrors';
import { toCountParams, toRequestParams } from './anthropicRequest';
import { ResponseState } from './anthropicResponse';
import { AuthError, ConnectionDroppedError, ConnectionError, isModelError, requestNotBuilt } from './errors';
import type { ModelConfig } from './modelConfig';
import type { ModelClient, ModelRequest, ModelResponse, StreamHandlers, TokenCountRequest } from './modelClient';
import { stallGuardedFetch } from './stallGuard';

export interface AnthropicClientOptions {
  apiKey: string | undefined;
  baseUrl: string;
  /** Per request; a stream that stalls longer than this fails as a connection error. */
  timeoutMs?: number;
  /**
   * A request that receives no byte for this long is abandoned (stallGuard.ts); read at each request,
   * so a settings change applies to the next one. Default engram.network.stallSeconds' default; 0 = off.
   */
  stallMs?: () => number;
  logger?: Logger;
}

/** Ten minutes, the SDK's own default: long generations are normal. */
const DEFAULT_TIMEOUT_MS = 600_000;

export function createAnthropicClient(
  config: ModelConfig,
  logger?: Logger,
  stallMs?: () => number,
): AnthropicModelClient {
  return new AnthropicModelClient({
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    logger,
    ...(stallMs ? { stallMs } : {}),
  });
}

export class AnthropicModelClient implements ModelClient {
  private readonly sdk: Anthropic | undefined;
  private readonly logger: Logger;
  /** Where requests go, for error messages: "Could not reach <this>" says what to check. */
  private readonly endpoint: string;

  constructor(opts: AnthropicClientOptions) {
    this.logger = opts.logger ?? silentLogger;
    // No key: fail on use with a message that says what to do, and never let the SDK go looking for
    // credential profiles on disk.
    this.sdk = opts.apiKey
      ? new Anthropic({
          apiKey: opts.apiKey,
          baseURL: opts.baseUrl,
          maxRetries: 0, // our own loop retries, so the UI can say when and why
          timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          fetch: stallGuardedFetch(opts.stallMs),
          logLevel: 'off',
          openTelemetry: false,
        })
      : undefined;
    this.endpoint = `${(this.sdk?.baseURL ?? opts.baseUrl).replace(/\/+$/, '')}/v1/messages`;
  }

  async stream(req: ModelRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ModelResponse> {
    if (!this.sdk)
      throw new AuthError('No Anthropic API key is set. Run "Engram: Set API Key" or set ANTHROPIC_API_KEY.');
    const state = new ResponseState(req.model, handlers, this.logger);
    if (signal.aborted) return state.result({ cancelled: true });

    let events: AsyncIterable<RawMessageStreamEvent>;
    try {
      const { data, request_id } = await this.sdk.messages.create(toRequestParams(req), { signal }).withResponse();
      events = data;
      state.requestId = request_id ?? undefined;
    } catch (e) {
      if (signal.aborted || e instanceof APIUserAbortError) return state.result({ cancelled: true });
      // The SDK wraps whatever fails on the wire (APIError, APIConnectionError); anything else was thrown
      // while building the request here, e.g. JSON.stringify's RangeError on very deep input.
      if (!(e instanceof APIError) && !isModelError(e)) throw requestNotBuilt(e);
      throw mapError(e, undefined, this.endpoint);
    }

    try {
      for await (const event of events) state.apply(event);
    } catch (e) {
      if (signal.aborted || e instanceof APIUserAbortError) return state.result({ cancelled: true });
      throw mapError(e, state.started ? state.result({ dropped: true }) : undefined, this.endpoint);
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

  /** POST /v1/messages/count_tokens: the API's own count of a prompt (it is not sent to the model). */
  async countTokens(req: TokenCountRequest, signal?: AbortSignal): Promise<number> {
    if (!this.sdk) throw new AuthError('No Anthropic API key is set.');
    try {
      const counted = await this.sdk.messages.countTokens(toCountParams(req), { ...(signal ? { signal } : {}) });
      return counted.input_tokens;
    } catch (e) {
      if (!(e instanceof APIError) && !isModelError(e)) throw requestNotBuilt(e);
      throw mapError(e, undefined, this.endpoint);
    }
  }
}
