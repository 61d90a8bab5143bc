// What a test scripts the server to answer, and how a script becomes a full API message
// (ids, signatures, stop reason, usage). The offline demo model of `npm start` is in src/demoModel/.

import { randomBytes } from 'node:crypto';
import type { StopReason, Usage } from '../core/conversation/types';
import { blockTokens } from './promptSegments';

export type ScriptedBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id?: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature?: string };

export interface ScriptedMessage {
  content: ScriptedBlock[];
  /** Default: `tool_use` when a tool_use block is present, else `end_turn` (`max_tokens` when cut). */
  stopReason?: StopReason;
  /** Wait before answering (before the status line). */
  delayMs?: number;
  /** Wait between SSE events. */
  chunkDelayMs?: number;
  /** Destroy the socket after this many SSE events (non-streaming: before any response). */
  dropAfterEvents?: number;
  /**
   * Take the request and never answer (no status line): a server gone silent. The connection stays open
   * until the client gives up.
   */
  hang?: boolean;
  /** Send the status line and this many SSE events, then nothing more, with the connection left open. */
  stallAfterEvents?: number;
  /** Leave out the last content_block_stop, as a stream cut at max_tokens does. */
  omitFinalBlockStop?: boolean;
  /** Overrides of the computed usage (e.g. to simulate a big context). */
  usage?: Partial<Usage>;
}

export interface ScriptedError {
  error: {
    status: number;
    type: string;
    message: string;
    /** Sent as the `retry-after` header. */
    retryAfterSeconds?: number;
    /** For streaming requests: answer 200, send message_start, then this as an SSE `error` event. */
    inStream?: boolean;
  };
}

export type ScriptedReply = ScriptedMessage | ScriptedError;

export type OutputBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string };

/** A complete assistant message as the API returns it. */
export interface ApiResponseMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: OutputBlock[];
  stop_reason: StopReason;
  stop_sequence: null;
  usage: ResponseUsage;
}

export interface ResponseUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  service_tier: 'standard';
}

export function isScriptedError(r: ScriptedReply): r is ScriptedError {
  return 'error' in r;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text from crypto bytes (rejection sampling keeps the letters uniform). */
export function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

// Real ids look like `toolu_01` + 22 characters; the same shape keeps id-pattern checks honest.
export const newToolUseId = (): string => `toolu_01${base62(22)}`;
export const newMessageId = (): string => `msg_01${base62(22)}`;
export const newRequestId = (): string => `req_01${base62(22)}`;
const newSignature = (): string => randomBytes(48).toString('base64');

/** Fills in ids and signatures and computes output tokens and the stop reason. */
export function resolveMessage(
  script: ScriptedMessage,
  model: string,
  input: Omit<ResponseUsage, 'output_tokens' | 'service_tier'>,
): ApiResponseMessage {
  const content: OutputBlock[] = script.content.map((b) => {
    if (b.type === 'tool_use') return { type: 'tool_use', id: b.id ?? newToolUseId(), name: b.name, input: b.input };
    if (b.type === 'thinking')
      return { type: 'thinking', thinking: b.thinking, signature: b.signature ?? newSignature() };
    return { type: 'text', text: b.text };
  });
  const defaultStop: StopReason = script.omitFinalBlockStop
    ? 'max_tokens'
    : content.some((b) => b.type === 'tool_use')
      ? 'tool_use'
      : 'end_turn';
  const outputTokens = Math.max(
    1,
    content.reduce((sum, b) => sum + blockTokens(b), 0),
  );
  const o = script.usage ?? {};
  const usage: ResponseUsage = {
    input_tokens: o.input_tokens ?? input.input_tokens,
    cache_creation_input_tokens: o.cache_creation_input_tokens ?? input.cache_creation_input_tokens,
    cache_read_input_tokens: o.cache_read_input_tokens ?? input.cache_read_input_tokens,
    cache_creation: {
      ephemeral_5m_input_tokens:
        o.cache_creation?.ephemeral_5m_input_tokens ?? input.cache_creation.ephemeral_5m_input_tokens,
      ephemeral_1h_input_tokens:
        o.cache_creation?.ephemeral_1h_input_tokens ?? input.cache_creation.ephemeral_1h_input_tokens,
    },
    output_tokens: o.output_tokens ?? outputTokens,
    service_tier: 'standard',
  };
  return {
    id: newMessageId(),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: script.stopReason === undefined ? defaultStop : script.stopReason,
    stop_sequence: null,
    usage,
  };
}
