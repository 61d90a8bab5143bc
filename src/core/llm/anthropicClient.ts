// The ModelClient adapter on @anthropic-ai/sdk. SDK types never leave this file: requests go out from
// core types, events and errors come back as core types (STYLE habit 8).
import { Anthropic, APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type {
  MessageCreateParamsStreaming,
  MessageDeltaUsage,
  RawContentBlockDelta,
  RawContentBlockStartEvent,
  RawMessageStreamEvent,
  StopReason as SdkStopReason,
  Usage as SdkUsage,
} from '@anthropic-ai/sdk/resources/messages';
import type { AssistantBlock, StopReason, Usage } from '../conversation/types';
import { silentLogger, type Logger } from '../ports';
import { withCacheBreakpoints } from './cacheBreakpoints';
import {
  AuthError,
  ConnectionDroppedError,
  ConnectionError,
  classifyApiFailure,
  isModelError,
  parseRetryAfter,
  requestNotBuilt,
  type ModelError,
} from './errors';
import type { ModelConfig } from './modelConfig';
import {
  emptyUsage,
  type ModelClient,
  type ModelRequest,
  type ModelResponse,
  type StreamHandlers,
} from './modelClient';
import { stallGuardedFetch, stallIn, type StallError } from './stallGuard';

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

type Building =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; id: string; name: string; json: string; initial: Record<string, unknown> }
  | { kind: 'ignored' };

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
      const { data, request_id } = await this.sdk.messages.create(toParams(req), { signal }).withResponse();
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
      throw new ConnectionDroppedError(
        'The connection to the API dropped mid-answer; what arrived so far is kept. Send a message to continue.',
        { partial, requestId: state.requestId },
      );
    }
    return state.result({});
  }
}

function toParams(req: ModelRequest): MessageCreateParamsStreaming {
  const parts = withCacheBreakpoints(req.system, req.tools, req.messages, req.cache);
  // Core shapes mirror the API; the casts only bridge the SDK's narrower literal unions.
  const params: MessageCreateParamsStreaming = {
    model: req.model,
    max_tokens: req.maxTokens,
    messages: parts.messages as unknown as MessageCreateParamsStreaming['messages'],
    stream: true,
  };
  if (parts.system.length > 0) params.system = parts.system as unknown as MessageCreateParamsStreaming['system'];
  if (parts.tools.length > 0) params.tools = parts.tools as unknown as MessageCreateParamsStreaming['tools'];
  if (req.thinking?.type === 'enabled') params.thinking = { type: 'enabled', budget_tokens: req.thinking.budgetTokens };
  else if (req.thinking?.type === 'adaptive') params.thinking = { type: 'adaptive' };
  return params;
}

/** Accumulates one streamed response and forwards events to the handlers. */
class ResponseState {
  id = '';
  model: string;
  requestId: string | undefined;
  usage: Usage = emptyUsage();
  stopReason: StopReason = null;
  started = false;
  stopped = false;
  private readonly building: Array<Building | undefined> = [];
  private readonly done: Array<AssistantBlock | undefined> = [];

  constructor(
    model: string,
    private readonly handlers: StreamHandlers,
    private readonly logger: Logger,
  ) {
    this.model = model;
  }

  apply(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.started = true;
        this.id = event.message.id;
        this.model = event.message.model || this.model;
        this.usage = fromSdkUsage(event.message.usage);
        this.call(() => this.handlers.onMessageStart?.(this.id, this.usage));
        this.call(() => this.handlers.onUsage?.(this.usage));
        return;
      case 'content_block_start':
        this.startBlock(event.index, event.content_block);
        return;
      case 'content_block_delta':
        this.delta(event.index, event.delta);
        return;
      case 'content_block_stop':
        this.finish(event.index);
        return;
      case 'message_delta':
        this.stopReason = fromSdkStopReason(event.delta.stop_reason);
        this.usage = mergeDeltaUsage(this.usage, event.usage);
        this.call(() => this.handlers.onUsage?.(this.usage));
        return;
      case 'message_stop':
        // A stream cut at max_tokens may leave its last block open: keep it only if it is whole.
        for (let i = 0; i < this.building.length; i++) if (this.building[i]) this.finishOpen(i);
        this.stopped = true;
        return;
    }
  }

  private startBlock(index: number, block: RawContentBlockStartEvent['content_block']): void {
    let b: Building;
    let announced: AssistantBlock | undefined;
    switch (block.type) {
      case 'text':
        b = { kind: 'text', text: block.text ?? '' };
        announced = { type: 'text', text: b.text };
        break;
      case 'thinking':
        b = { kind: 'thinking', thinking: block.thinking ?? '', signature: block.signature ?? '' };
        announced = { type: 'thinking', thinking: b.thinking, signature: b.signature };
        break;
      case 'redacted_thinking':
        b = { kind: 'redacted', data: block.data ?? '' };
        announced = { type: 'redacted_thinking', data: b.data };
        break;
      case 'tool_use':
        // The API starts with `input: {}` and streams the JSON; keep a non-empty start in case it does not.
        b = { kind: 'tool', id: block.id, name: block.name, json: '', initial: asObject(block.input) };
        announced = { type: 'tool_use', id: b.id, name: b.name, input: {} };
        break;
      default:
        // Server tools and other block kinds are not requested by Engram; skip them.
        this.logger.warn(`Ignoring a streamed content block of type ${block.type}`);
        b = { kind: 'ignored' };
    }
    this.building[index] = b;
    if (announced) this.call(() => this.handlers.onBlockStart?.(announced, index));
  }

  private delta(index: number, d: RawContentBlockDelta): void {
    const b = this.building[index];
    if (!b) return;
    if (d.type === 'text_delta' && b.kind === 'text') {
      const text = d.text ?? '';
      b.text += text;
      this.call(() => this.handlers.onTextDelta?.(text, index));
    } else if (d.type === 'thinking_delta' && b.kind === 'thinking') {
      const thinking = d.thinking ?? '';
      b.thinking += thinking;
      this.call(() => this.handlers.onThinkingDelta?.(thinking, index));
    } else if (d.type === 'signature_delta' && b.kind === 'thinking') {
      b.signature += d.signature ?? '';
    } else if (d.type === 'input_json_delta' && b.kind === 'tool') {
      const part = d.partial_json ?? '';
      b.json += part;
      this.call(() => this.handlers.onToolInputDelta?.(part, index));
    }
  }

  private finish(index: number): void {
    const b = this.building[index];
    this.building[index] = undefined;
    if (!b) return;
    let block: AssistantBlock | undefined;
    switch (b.kind) {
      case 'text':
        block = { type: 'text', text: b.text };
        break;
      case 'thinking':
        block = { type: 'thinking', thinking: b.thinking, signature: b.signature };
        break;
      case 'redacted':
        block = { type: 'redacted_thinking', data: b.data };
        break;
      case 'tool':
        block = {
          type: 'tool_use',
          id: b.id,
          name: b.name,
          input: b.json.trim() === '' ? b.initial : parseToolInput(b.json, this.logger),
        };
        break;
      case 'ignored':
        return;
    }
    this.done[index] = block;
    this.call(() => this.handlers.onBlockComplete?.(block, index));
  }

  private finishOpen(index: number): void {
    const b = this.building[index];
    if (b?.kind === 'thinking' && b.signature === '') this.building[index] = undefined;
    else if (b?.kind === 'tool' && b.json.trim() !== '' && !isJsonObject(b.json)) this.building[index] = undefined;
    else this.finish(index);
  }

  /**
   * The response so far. An unfinished text block is kept (it was shown, and text is valid as is);
   * an unfinished tool_use (input cut off) or thinking block (no signature yet) is not.
   */
  result(flags: { cancelled?: boolean; dropped?: boolean }): ModelResponse {
    const content: AssistantBlock[] = [];
    const n = Math.max(this.done.length, this.building.length);
    for (let i = 0; i < n; i++) {
      const done = this.done[i];
      const open = this.building[i];
      if (done) content.push(done);
      else if (open?.kind === 'text' && open.text.trim() !== '') content.push({ type: 'text', text: open.text });
    }
    const partial = Boolean(flags.cancelled || flags.dropped);
    const response: ModelResponse = {
      id: this.id,
      model: this.model,
      content,
      stopReason: partial ? null : this.stopReason,
      usage: this.usage,
    };
    if (partial) response.partial = true;
    if (flags.cancelled) response.cancelled = true;
    if (this.requestId) response.requestId = this.requestId;
    return response;
  }

  /** A UI bug in a handler must not lose the turn. */
  private call(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.logger.error('A stream handler threw', e);
    }
  }
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function isJsonObject(json: string): boolean {
  try {
    const v: unknown = JSON.parse(json);
    return Boolean(v) && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

function parseToolInput(json: string, logger: Logger): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  // The tool's own validation will then say what is missing, which the model can act on.
  logger.warn(`A tool_use input was not a JSON object: ${json.slice(0, 200)}`);
  return {};
}

function fromSdkUsage(u: SdkUsage): Usage {
  const usage: Usage = {
    input_tokens: u.input_tokens ?? 0,
    output_tokens: u.output_tokens ?? 0,
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
  };
  if (u.cache_creation) {
    usage.cache_creation = {
      ephemeral_5m_input_tokens: u.cache_creation.ephemeral_5m_input_tokens ?? 0,
      ephemeral_1h_input_tokens: u.cache_creation.ephemeral_1h_input_tokens ?? 0,
    };
  }
  return usage;
}

/** message_delta usage is cumulative; a null field means "unchanged since message_start". */
function mergeDeltaUsage(prev: Usage, d: MessageDeltaUsage): Usage {
  return {
    ...prev,
    input_tokens: d.input_tokens ?? prev.input_tokens,
    output_tokens: d.output_tokens ?? prev.output_tokens,
    cache_creation_input_tokens: d.cache_creation_input_tokens ?? prev.cache_creation_input_tokens,
    cache_read_input_tokens: d.cache_read_input_tokens ?? prev.cache_read_input_tokens,
  };
}

function fromSdkStopReason(r: SdkStopReason | null): StopReason {
  // The window-exceeded stop behaves like max_tokens for the loop: the answer is cut short.
  if (r === 'model_context_window_exceeded') return 'max_tokens';
  return r;
}

function mapError(e: unknown, partial: ModelResponse | undefined, endpoint: string): ModelError {
  if (isModelError(e)) return e;
  const stall = stallIn(e);
  if (stall) return stalledError(stall, partial);
  if (e instanceof APIConnectionError) {
    if (partial) return droppedError(partial, e);
    return new ConnectionError(
      `Could not reach ${endpoint} (${connectionReason(e)}). Check your network and the base URL (engram.baseUrl, ANTHROPIC_BASE_URL).`,
      { cause: e },
    );
  }
  if (e instanceof APIError) {
    const headers = e.headers;
    return classifyApiFailure({
      status: e.status,
      type: e.type,
      message: e.apiMessage ?? e.message,
      requestId: e.requestID ?? undefined,
      retryAfterMs: headers ? parseRetryAfter(headers.get('retry-after'), headers.get('retry-after-ms')) : undefined,
      partial,
      cause: e,
    });
  }
  // Anything else thrown while reading the body (socket reset, "terminated") is a broken stream.
  if (partial) return droppedError(partial, e);
  const message = e instanceof Error ? e.message : String(e);
  return new ConnectionError(`The request to the API failed (${message}). Check your network and try again.`, {
    cause: e,
  });
}

/** What the system said about a failed connection, in words, from the innermost cause ("connection refused, ECONNREFUSED"). */
function connectionReason(e: Error): string {
  let code: string | undefined;
  let message = e.message;
  for (let cause: unknown = e; cause instanceof Error; cause = cause.cause) {
    const c = (cause as NodeJS.ErrnoException).code;
    if (typeof c === 'string') code = c;
    message = cause.message;
  }
  if (!code) return message;
  return CONNECTION_CODES[code] ? `${CONNECTION_CODES[code]}, ${code}` : `${message}, ${code}`;
}

const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens there',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
};

/** A server that went silent: retried like any lost connection, and the message names where it went. */
function stalledError(stall: StallError, partial: ModelResponse | undefined): ModelError {
  if (partial) {
    return new ConnectionDroppedError(
      `${stall.message} in the middle of an answer, so it was abandoned; what arrived so far is kept. Send a message to continue.`,
      {
        partial,
        requestId: partial.requestId,
        cause: stall,
      },
    );
  }
  return new ConnectionError(
    `${stall.message}: the server took the request and then went silent, so the request was abandoned. ` +
      'Check your network and the server (engram.baseUrl, ANTHROPIC_BASE_URL); engram.network.stallSeconds sets how long to wait.',
    { cause: stall },
  );
}

function droppedError(partial: ModelResponse, cause: unknown): ConnectionDroppedError {
  return new ConnectionDroppedError(
    'The connection to the API dropped mid-answer; what arrived so far is kept. Send a message to continue.',
    {
      partial,
      requestId: partial.requestId,
      cause,
    },
  );
}
