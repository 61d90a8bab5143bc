// What differs between the providers' wire formats, as one small interface the test server writes through:
// the error body and headers, the stream's content type and framing, and the ids. The Anthropic API's own
// format (and Microsoft Foundry's, which is the same) lives here; Bedrock's and Vertex's in their files.

import type http from 'node:http';
import type { ApiResponseMessage } from './scriptedReply';
import { formatSse, type SseEvent } from './sse';

export type ProviderId = 'anthropic' | 'bedrock' | 'vertex' | 'foundry';

/** An error as the Anthropic API states it; each wire translates it to its provider's shape. */
export interface WireError {
  status: number;
  /** The API's error type (`rate_limit_error`, `invalid_request_error`, ...). */
  type: string;
  message: string;
  retryAfterSeconds?: number;
}

/** A complete HTTP answer (used for errors, which are never streamed from the start). */
export interface WireReply {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** What the request log records as the error. */
  message: string;
}

export interface Wire {
  provider: ProviderId;
  /** The error translated to the provider's status, headers and body. */
  error(e: WireError, requestId: string): WireReply;
  /** Headers of a streamed answer. */
  streamHeaders(requestId: string): Record<string, string>;
  /** One event of the Anthropic stream as this provider frames it (an `error` event included). */
  encodeEvent(e: SseEvent): string | Uint8Array;
  /** Extra headers of a JSON message answer. */
  messageHeaders(message: ApiResponseMessage, requestId: string): Record<string, string>;
  /** The provider's message id prefix in place of the API's `msg_01` (Bedrock `msg_bdrk_01`, Vertex `msg_vrtx_01`). */
  messageIdPrefix: string;
}

/** The Anthropic API's error body. */
export function anthropicErrorBody(type: string, message: string): string {
  return JSON.stringify({ type: 'error', error: { type, message } });
}

export function jsonReply(status: number, payload: unknown, message: string, headers: Record<string, string> = {}) {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(payload),
    message,
  };
}

export function anthropicError(e: WireError, requestId: string): WireReply {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': requestId };
  if (e.retryAfterSeconds !== undefined) headers['retry-after'] = String(e.retryAfterSeconds);
  return { status: e.status, headers, body: anthropicErrorBody(e.type, e.message), message: e.message };
}

/** The Anthropic API's wire: SSE streams and `{type: "error", error}` bodies. */
export function anthropicWire(provider: 'anthropic' | 'foundry'): Wire {
  return {
    provider,
    error: anthropicError,
    streamHeaders: sseHeaders,
    encodeEvent: formatSse,
    messageHeaders: (_m, requestId) => ({ 'request-id': requestId }),
    messageIdPrefix: 'msg_01',
  };
}

export function sseHeaders(requestId: string): Record<string, string> {
  return { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': requestId };
}

/** Anthropic-shaped errors with the given request id prefix (Vertex passes the API's errors through). */

/** The API's documented request size limit for the Messages endpoint. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export function sendReply(res: http.ServerResponse, reply: WireReply): void {
  res.writeHead(reply.status, { ...reply.headers, 'content-length': Buffer.byteLength(reply.body) });
  res.end(reply.body);
}

export function sendJson(
  res: http.ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string>,
): void {
  sendReply(res, {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(payload),
    message: '',
  });
}

/** The body as text, or undefined when it is over the size limit (the rest is drained, not kept). */
export function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
