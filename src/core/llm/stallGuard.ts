// A fetch that gives up on a server gone silent. The SDK's own timeout covers a whole request (ten
// minutes, since long answers are normal), so a server that takes the request and never answers, or
// stops in the middle of a stream, held a run for that long on each of its retries. Here every wait for
// bytes (the status line, then each chunk of the body; SSE pings count) has its own limit: past it the
// request is aborted with a StallError, which the client reports as a retryable connection failure.
import { STALL_SECONDS } from '../thresholds';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** The server sent nothing for `stallMs` while a byte was awaited. */
export class StallError extends Error {
  constructor(
    readonly url: string,
    readonly stallMs: number,
  ) {
    // No "time out" in the words: the SDK reads those as its own timeout and drops this error.
    super(`No data from ${url} for ${formatSeconds(stallMs)}`);
    this.name = 'StallError';
  }
}

/** `30 s`, `1.5 s`. */
function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The StallError in `e` or its causes, if there is one. */
export function stallIn(e: unknown): StallError | undefined {
  for (let cur = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (cur instanceof StallError) return cur;
  }
  return undefined;
}

/**
 * `base` with a stall limit, read at each request (a settings change applies to the next one); a
 * limit of 0 or less turns the guard off. The caller's abort still works as before.
 */
export function stallGuardedFetch(stallMs: () => number = () => STALL_SECONDS * 1000, base: Fetch = fetch): Fetch {
  return async (input, init) => {
    const limit = stallMs();
    if (!(limit > 0)) return base(input, init);
    const guard = new Guard(urlOf(input), limit, init?.signal ?? undefined);
    try {
      const response = await guard.waitFor(() => base(input, { ...init, signal: guard.signal }));
      return guard.watchBody(response);
    } catch (e) {
      guard.dispose();
      throw guard.stalled ?? e;
    }
  };
}

/** One request's stall timer and the abort it fires. */
class Guard {
  stalled: StallError | undefined;
  private readonly controller = new AbortController();
  private readonly unlink: () => void;

  constructor(
    private readonly url: string,
    private readonly limit: number,
    outer: AbortSignal | undefined,
  ) {
    const onAbort = (): void => this.controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    outer?.addEventListener('abort', onAbort, { once: true });
    this.unlink = () => outer?.removeEventListener('abort', onAbort);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Runs `wait` with the timer armed; the timer only runs while bytes are awaited, so a reader that is
   * slow to ask for the next chunk is never taken for a silent server.
   */
  async waitFor<T>(wait: () => Promise<T>): Promise<T> {
    const timer = setTimeout(() => this.fire(), this.limit);
    try {
      return await wait();
    } finally {
      clearTimeout(timer);
    }
  }

  /** The response with its body read through the timer. */
  watchBody(response: Response): Response {
    const body = response.body;
    if (!body) {
      this.dispose();
      return response;
    }
    const reader = body.getReader();
    const watched = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { done, value } = await this.waitFor(() => reader.read());
          if (done) {
            this.dispose();
            controller.close();
          } else {
            controller.enqueue(value);
          }
        } catch (e) {
          this.dispose();
          controller.error(this.stalled ?? e);
        }
      },
      cancel: (reason) => {
        this.dispose();
        return reader.cancel(reason);
      },
    });
    return new Response(watched, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  dispose(): void {
    this.unlink();
  }

  private fire(): void {
    this.stalled = new StallError(this.url, this.limit);
    this.controller.abort(this.stalled);
  }
}

function urlOf(input: string | URL | Request): string {
  const raw = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  // The query string may carry a key on some gateways; the place is what a person needs.
  return raw.split('?')[0];
}
