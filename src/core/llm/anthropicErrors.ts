// SDK failures as core ModelErrors, with messages that say what to check: a connection that could not
// be made (and the system's reason, in words), one that dropped or went silent mid-answer, and the API's
// own error answers, which errors.ts classifies. The SDK's error classes are known only here.
import {
  ConnectionDroppedError,
  ConnectionError,
  classifyApiFailure,
  isModelError,
  parseRetryAfter,
  type ModelError,
} from './errors';
import type { ModelResponse } from './modelClient';
import { baseUrlHint, cloudApiFailure, credentialFailure } from './providerErrors';
import type { ProviderConfig } from './providerTypes';
import { isApiError, isConnectionError } from './sdkErrors';
import { stallIn, type StallError } from './stallGuard';

/** Where a failed request went: for messages that say what to check. */
export interface ErrorTarget {
  /** The URL requests go to ("Could not reach <this>"). */
  endpoint: string;
  provider: ProviderConfig;
  /** The model id sent, in the provider's form. */
  model?: string;
}

/** Any failure of a request or of its stream as a ModelError; `partial` is what arrived before it broke. */
export function mapError(e: unknown, partial: ModelResponse | undefined, target: ErrorTarget): ModelError {
  if (isModelError(e)) return e;
  const stall = stallIn(e);
  if (stall) return stalledError(stall, partial, target.provider);
  const credentials = credentialFailure(e, target.provider);
  if (credentials) return credentials;
  if (isConnectionError(e)) {
    if (partial) return droppedError(partial, e);
    return new ConnectionError(
      `Could not reach ${target.endpoint} (${connectionReason(e)}). ` +
        `Check your network and ${baseUrlHint(target.provider)}.`,
      { cause: e },
    );
  }
  if (isApiError(e)) {
    const headers = e.headers;
    const body = cloudBody(e.error);
    const requestId = e.requestID ?? headers?.get('x-amzn-requestid') ?? undefined;
    const retryAfterMs = headers
      ? parseRetryAfter(headers.get('retry-after'), headers.get('retry-after-ms'))
      : undefined;
    const message = e.apiMessage ?? body.message ?? e.message;
    const cloud = cloudApiFailure(target.provider, {
      status: e.status,
      type: e.type ?? headers?.get('x-amzn-errortype')?.split(':')[0] ?? undefined,
      googleStatus: body.googleStatus,
      message,
      model: target.model,
      details: { status: e.status, requestId, retryAfterMs, partial, cause: e },
    });
    if (cloud) return cloud;
    return classifyApiFailure({ status: e.status, type: e.type, message, requestId, retryAfterMs, partial, cause: e });
  }
  // Anything else thrown while reading the body (socket reset, "terminated") is a broken stream.
  if (partial) return droppedError(partial, e);
  const message = e instanceof Error ? e.message : String(e);
  return new ConnectionError(`The request to the API failed (${message}). Check your network and try again.`, {
    cause: e,
  });
}

/** The message and Google status of a cloud's own error body (`{message}`, `{error: {message, status}}`). */
function cloudBody(error: unknown): { message?: string; googleStatus?: string } {
  const body = (Array.isArray(error) ? error[0] : error) as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return {};
  const inner = body.error && typeof body.error === 'object' ? (body.error as Record<string, unknown>) : undefined;
  const message = inner?.message ?? body.message ?? body.Message;
  return {
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof inner?.status === 'string' ? { googleStatus: inner.status } : {}),
  };
}

/**
 * What the system said about a failed connection, in words, from the innermost cause
 * ("connection refused, ECONNREFUSED").
 */
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
function stalledError(stall: StallError, partial: ModelResponse | undefined, provider: ProviderConfig): ModelError {
  if (partial) {
    return new ConnectionDroppedError(
      `${stall.message} in the middle of an answer, so it was abandoned; what arrived so far is kept. ` +
        'Send a message to continue.',
      {
        partial,
        requestId: partial.requestId,
        cause: stall,
      },
    );
  }
  return new ConnectionError(
    `${stall.message}: the server took the request and then went silent, so the request was abandoned. ` +
      `Check your network and ${baseUrlHint(provider)}; ` +
      'engram.network.stallSeconds sets how long to wait.',
    { cause: stall },
  );
}

/** Said of a stream that broke after it started, whatever broke it. */
export const DROPPED_MID_ANSWER =
  'The connection to the API dropped mid-answer; what arrived so far is kept. Send a message to continue.';

function droppedError(partial: ModelResponse, cause: unknown): ConnectionDroppedError {
  return new ConnectionDroppedError(DROPPED_MID_ANSWER, {
    partial,
    requestId: partial.requestId,
    cause,
  });
}
