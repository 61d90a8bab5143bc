// The engine's port to a language model. Core types only: the Anthropic SDK stays in anthropicClient.ts,
// tests and the offline demo can supply any other implementation.
import type { ApiMessage, AssistantBlock, StopReason, SystemBlock, ToolSchema, Usage } from '../conversation/types';
import type { BreakpointOptions } from './cacheBreakpoints';
import type { ProviderConfig } from './providerTypes';

/** Extended thinking. `enabled` needs a budget below maxTokens; `adaptive` lets the model decide. */
export type ThinkingConfig = { type: 'enabled'; budgetTokens: number } | { type: 'adaptive' };

export interface ModelRequest {
  model: string;
  maxTokens: number;
  /** Sent as given; cache breakpoints are added on a copy at request time, never stored. */
  system: SystemBlock[];
  tools: ToolSchema[];
  messages: ApiMessage[];
  thinking?: ThinkingConfig;
  /** Where the prompt-cache breakpoints go beyond the defaults (cacheBreakpoints.ts). */
  cache?: BreakpointOptions;
}

/**
 * Streaming callbacks. `index` is the block's position in the response. A block is announced by
 * onBlockStart, grows by deltas, and is final only at onBlockComplete (a tool_use input is parsed then).
 */
export interface StreamHandlers {
  onMessageStart?(id: string, usage: Usage): void;
  onBlockStart?(block: AssistantBlock, index: number): void;
  onTextDelta?(text: string, index: number): void;
  onThinkingDelta?(thinking: string, index: number): void;
  onToolInputDelta?(partialJson: string, index: number): void;
  onBlockComplete?(block: AssistantBlock, index: number): void;
  /** Cumulative usage, after message_start and after each message_delta. */
  onUsage?(usage: Usage): void;
}

export interface ModelResponse {
  id: string;
  model: string;
  /** Complete blocks in order; for a partial response also the text of an unfinished text block. */
  content: AssistantBlock[];
  stopReason: StopReason;
  usage: Usage;
  /**
   * True when the stream ended early: cancelled by the caller (`cancelled` is then true and the
   * promise resolves), or dropped (then a ConnectionDroppedError carrying this response is thrown).
   */
  partial?: boolean;
  cancelled?: boolean;
  requestId?: string;
}

export interface ModelClient {
  /**
   * Streams one response. Resolves with the (possibly partial) response, also when `signal` aborts;
   * rejects with a ModelError (errors.ts) otherwise, which carries the partial response when the
   * failure came after the stream had started.
   */
  stream(req: ModelRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ModelResponse>;
  /**
   * The input tokens the API counts for a prompt, without sending it to the model (free on the API).
   * Optional: a client without it (the offline demo, a proxy that lacks the endpoint) leaves estimates
   * as they are. Rejects on any failure; callers treat that as "no count".
   */
  countTokens?(req: TokenCountRequest, signal?: AbortSignal): Promise<number>;
  /**
   * The cloud the model is reached through, for what differs by provider (prices, the 1-hour cache);
   * absent: the Anthropic API (or a test double of it).
   */
  readonly provider?: ProviderConfig;
}

/** What a token count is asked for: a request's prompt, without the answer's settings. */
export type TokenCountRequest = Pick<ModelRequest, 'model' | 'system' | 'tools' | 'messages'>;

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

/** Sums usage over several calls (for a turn, a fork, or a CLI run). */
export function addUsage(total: Usage, add: Usage): Usage {
  return {
    input_tokens: total.input_tokens + add.input_tokens,
    output_tokens: total.output_tokens + add.output_tokens,
    cache_creation_input_tokens: (total.cache_creation_input_tokens ?? 0) + (add.cache_creation_input_tokens ?? 0),
    cache_read_input_tokens: (total.cache_read_input_tokens ?? 0) + (add.cache_read_input_tokens ?? 0),
  };
}
