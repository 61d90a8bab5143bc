// Core model errors. The adapter maps SDK and HTTP failures onto these, so the agent loop, the UI and
// the CLI decide on kinds (retry? compact? tell the user?) without knowing the SDK.
import type { ModelResponse } from './modelClient';

export type ModelErrorKind =
  | 'auth'
  | 'rateLimit'
  | 'overloaded'
  | 'server'
  | 'promptTooLong'
  | 'connection'
  | 'connectionDropped'
  | 'invalidRequest'
  | 'local';

export interface ModelErrorDetails {
  status?: number;
  /** The API's own text, kept for logs and for matching (e.g. the prompt-too-long numbers). */
  apiMessage?: string;
  requestId?: string;
  /** What the server asked us to wait before retrying (retry-after header), in ms. */
  retryAfterMs?: number;
  /** The response streamed before the failure; set when the stream had started. */
  partial?: ModelResponse;
  cause?: unknown;
}

export abstract class ModelError extends Error {
  abstract readonly kind: ModelErrorKind;
  /** Whether our retry loop may try the same request again. */
  abstract readonly retryable: boolean;
  readonly status?: number;
  readonly apiMessage?: string;
  readonly requestId?: string;
  readonly retryAfterMs?: number;
  partial?: ModelResponse;

  /** `message` is for people: what happened and what to do about it. */
  constructor(message: string, details: ModelErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.apiMessage = details.apiMessage;
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
    this.partial = details.partial;
  }
}

export class AuthError extends ModelError {
  readonly kind = 'auth';
  readonly retryable = false;
}

export class RateLimitError extends ModelError {
  readonly kind = 'rateLimit';
  readonly retryable = true;
}

export class OverloadedError extends ModelError {
  readonly kind = 'overloaded';
  readonly retryable = true;
}

/** 5xx other than 529: usually transient. */
export class ServerError extends ModelError {
  readonly kind = 'server';
  readonly retryable = true;
}

/** Not retried: the same request would fail again. Compaction handles it (reactive stage). */
export class PromptTooLongError extends ModelError {
  readonly kind = 'promptTooLong';
  readonly retryable = false;
  constructor(
    message: string,
    readonly promptTokens: number | undefined,
    readonly maxTokens: number | undefined,
    details: ModelErrorDetails = {},
  ) {
    super(message, details);
  }
}

/** No response at all (refused, reset, DNS): nothing was streamed, so retrying loses nothing. */
export class ConnectionError extends ModelError {
  readonly kind = 'connection';
  readonly retryable = true;
}

/**
 * The stream broke after it had started. `partial` holds what arrived; it is retried only when
 * nothing of it was shown yet (the retry loop checks), otherwise the partial turn is kept.
 */
export class ConnectionDroppedError extends ModelError {
  readonly kind = 'connectionDropped';
  readonly retryable = true;
}

export class InvalidRequestError extends ModelError {
  readonly kind = 'invalidRequest';
  readonly retryable = false;
}

/**
 * Failed on this machine, with no network involved: a request that cannot be built (a value nested too
 * deep for JSON.stringify), a transcript that cannot be written. Never retried: a retry fails the same
 * way, and calling it a network problem sends people looking in the wrong place.
 */
export class LocalError extends ModelError {
  readonly kind = 'local';
  readonly retryable = false;
}

/** A request the SDK could not even build (it threw before anything was sent). */
export function requestNotBuilt(cause: unknown): LocalError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new LocalError(
    `The request could not be built on this machine (${reason}); it was not sent, ` +
      'and this is not a network problem, so it is not retried. ' +
      'Something in the conversation cannot be sent (e.g. a value nested too deep): ' +
      'compact the conversation or start a new chat.',
    { cause },
  );
}

/** The transcript refused a line (a full disk, a folder that cannot be made): the turn stops there. */
export function transcriptNotWritten(file: string, cause: Error): LocalError {
  return new LocalError(
    `Could not write the transcript ${file} (${cause.message}). ` +
      'The turn stopped so that nothing more goes unrecorded; ' +
      'make room on the disk (or fix the folder) and try again.',
    { cause },
  );
}

const PROMPT_TOO_LONG = /prompt is too long:\s*(\d+)\s*tokens?\s*>\s*(\d+)\s*maximum/i;

/** Reads the numbers out of the API's `prompt is too long: N tokens > M maximum`. */
export function parsePromptTooLong(message: string): { promptTokens: number; maxTokens: number } | undefined {
  const m = PROMPT_TOO_LONG.exec(message);
  return m ? { promptTokens: Number(m[1]), maxTokens: Number(m[2]) } : undefined;
}

/**
 * `retry-after` is seconds (possibly fractional) or an HTTP date; `retry-after-ms` is milliseconds
 * and more precise when both are present.
 */
export function parseRetryAfter(
  retryAfter: string | null | undefined,
  retryAfterMs?: string | null,
  now = Date.now(),
): number | undefined {
  if (retryAfterMs) {
    const ms = Number(retryAfterMs);
    if (Number.isFinite(ms) && ms >= 0) return ms;
  }
  if (!retryAfter) return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface ApiFailure {
  /** undefined for an error event inside a 200 stream. */
  status?: number;
  /** The API's `error.type`, e.g. `overloaded_error`. */
  type?: string | null;
  message?: string | null;
  requestId?: string;
  retryAfterMs?: number;
  partial?: ModelResponse;
  cause?: unknown;
}

/** Maps an HTTP status / API error type to a core error with a message that says what to do. */
export function classifyApiFailure(f: ApiFailure): ModelError {
  const apiMessage = f.message ?? undefined;
  const details: ModelErrorDetails = {
    status: f.status,
    apiMessage,
    requestId: f.requestId,
    retryAfterMs: f.retryAfterMs,
    partial: f.partial,
    cause: f.cause,
  };
  const said = apiMessage ? ` (the API said: ${apiMessage})` : '';
  const type = f.type ?? '';
  const status = f.status;

  const tooLong = apiMessage ? parsePromptTooLong(apiMessage) : undefined;
  if (tooLong) {
    return new PromptTooLongError(
      `The conversation is too long for the model (${tooLong.promptTokens} tokens, ` +
        `the limit is ${tooLong.maxTokens}). Compact it (/compact) or start a new chat.`,
      tooLong.promptTokens,
      tooLong.maxTokens,
      details,
    );
  }
  if (status === 401 || type === 'authentication_error') {
    return new AuthError(
      `The API key was rejected${said}. Set a valid key with "Engram: Set API Key" or ANTHROPIC_API_KEY.`,
      details,
    );
  }
  if (status === 403 || type === 'permission_error') {
    return new AuthError(
      `The API key is not allowed to do this${said}. Check the key's workspace and model access.`,
      details,
    );
  }
  if (status === 429 || type === 'rate_limit_error') {
    return new RateLimitError(
      `Rate limited by the API${said}. Wait a moment and try again, or lower your usage.`,
      details,
    );
  }
  if (status === 529 || type === 'overloaded_error') {
    return new OverloadedError(`The API is overloaded${said}. Try again in a little while.`, details);
  }
  if (status === 413 || type === 'request_too_large') {
    return new InvalidRequestError(
      `The request is too large for the API${said}. Compact the conversation (/compact) or start a new chat.`,
      details,
    );
  }
  if (status === 404 || type === 'not_found_error') {
    return new InvalidRequestError(
      `The API did not find what was asked for${said}. Check the model name (engram.model) and the base URL.`,
      details,
    );
  }
  if (status === 402 || type === 'billing_error') {
    return new InvalidRequestError(`The API refused for billing reasons${said}. Check your account's credit.`, details);
  }
  if ((status !== undefined && status >= 500) || type === 'api_error' || type === 'timeout_error') {
    return new ServerError(`The API had an internal error${said}. Try again.`, details);
  }
  if (status === 400 || type === 'invalid_request_error' || (status !== undefined && status >= 400)) {
    return new InvalidRequestError(
      `The API rejected the request${said}. This is likely a bug in Engram; the log has details.`,
      details,
    );
  }
  return new ServerError(`The API failed${said}. Try again.`, details);
}

export function isModelError(e: unknown): e is ModelError {
  return e instanceof ModelError;
}
