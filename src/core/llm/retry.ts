// Our own retry loop around ModelClient.stream (the SDK's is off), so the UI can say
// "retrying in N s (attempt k/5)" and so a retry never duplicates text a person already saw.
import { MODEL_MAX_RETRIES } from '../thresholds';
import { isModelError, type ModelError } from './errors';
import {
  emptyUsage,
  type ModelClient,
  type ModelRequest,
  type ModelResponse,
  type StreamHandlers,
} from './modelClient';

export interface RetryPolicy {
  /** Retries after the first call; 5 gives "attempt k/5" in the UI. */
  maxRetries: number;
  /** First backoff; doubled each retry. */
  baseDelayMs: number;
  /** Backoff cap, so a long outage is polled at a steady pace. */
  maxDelayMs: number;
  /** Extra random share of the delay (0.25 = up to +25%), so many clients do not retry in step. */
  jitter: number;
  /** A retry-after longer than this is not waited for: the error is shown instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: MODEL_MAX_RETRIES,
  baseDelayMs: 1_000,
  maxDelayMs: 32_000,
  jitter: 0.25,
  maxRetryAfterMs: 5 * 60_000,
};

export interface RetryInfo {
  /** 1-based number of the retry about to happen. */
  attempt: number;
  maxRetries: number;
  delayMs: number;
  error: ModelError;
}

export interface RetryOptions {
  policy?: Partial<RetryPolicy>;
  onRetry?(info: RetryInfo): void;
  /** For tests: a deterministic random source in [0, 1). */
  random?(): number;
}

/** Backoff for retry `attempt` (1-based): the server's retry-after when given, else exponential + jitter. */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exp * (1 + policy.jitter * random()));
}

/**
 * Streams with retries on retryable errors. A failure after a content block was announced is not
 * retried (the handlers already showed it); it is thrown with the partial response attached.
 * Resolves with a cancelled empty response when `signal` aborts during a backoff wait.
 */
export async function streamWithRetry(
  client: ModelClient,
  req: ModelRequest,
  handlers: StreamHandlers,
  signal: AbortSignal,
  options: RetryOptions = {},
): Promise<ModelResponse> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  for (let attempt = 0; ; attempt++) {
    let shown = false;
    const tracked: StreamHandlers = {
      ...handlers,
      onBlockStart(block, index) {
        shown = true;
        handlers.onBlockStart?.(block, index);
      },
    };
    try {
      return await client.stream(req, tracked, signal);
    } catch (e) {
      if (!isModelError(e) || !e.retryable || shown || (e.partial?.content.length ?? 0) > 0) throw e;
      if (attempt >= policy.maxRetries) throw gaveUp(e, attempt + 1);
      if (e.retryAfterMs !== undefined && e.retryAfterMs > policy.maxRetryAfterMs) throw e;
      const delayMs = retryDelayMs(attempt + 1, e.retryAfterMs, policy, options.random);
      options.onRetry?.({ attempt: attempt + 1, maxRetries: policy.maxRetries, delayMs, error: e });
      if (!(await sleep(delayMs, signal))) return cancelledResponse(req.model);
    }
  }
}

/** The last error, saying how many tries it took, so a long wait before it makes sense. */
function gaveUp(e: ModelError, attempts: number): ModelError {
  if (attempts > 1) e.message = `${e.message} (Gave up after ${attempts} attempts.)`;
  return e;
}

function cancelledResponse(model: string): ModelResponse {
  return { id: '', model, content: [], stopReason: null, usage: emptyUsage(), partial: true, cancelled: true };
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
