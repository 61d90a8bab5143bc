// The HTTP side of the team-memory sync: one GET and one PUT of the wire format (teamProtocol.ts), each
// reply checked with zod, and every outcome a value rather than an exception so the sync can decide
// (412 pull again, 413 learn the cap, 401 tell the user about the token). A dropped connection or a 5xx
// is retried here with a short backoff: a server restarting behind a load balancer is back in seconds.
import { etagOf, TEAM_MEMORY_ROUTE, TeamErrorBody, TeamMemoryBody, TeamPutReply, versionOfEtag } from './teamProtocol';

/** Backoff before each retry of a request that met a network error or a 5xx. */
export const TEAM_RETRY_DELAYS_MS: readonly number[] = [500, 1500, 4000];
/** One request may take this long (a stuck server must not hang the session's sync forever). */
const REQUEST_TIMEOUT_MS = 30_000;

export type TeamReply<T> =
  /** 2xx with a valid body; `version` from the ETag (or the body when the ETag is missing). */
  | { kind: 'ok'; body: T; version: number }
  /** The server answered with an error status; `body` when it was a TeamErrorBody. */
  | { kind: 'status'; status: number; body: TeamErrorBody | null; message: string }
  /** No usable answer: connection refused or dropped, timeout, or a reply that is not the protocol. */
  | { kind: 'failed'; message: string };

export interface TeamClientOptions {
  serverUrl: string;
  repo: string;
  token: string;
  signal?: AbortSignal;
  retryDelaysMs?: readonly number[];
}

export class TeamServerClient {
  private readonly url: string;

  constructor(private readonly opts: TeamClientOptions) {
    // Appended, not resolved: a server mounted under a path prefix keeps it.
    this.url = `${opts.serverUrl.replace(/\/+$/, '')}${TEAM_MEMORY_ROUTE}?repo=${encodeURIComponent(opts.repo)}`;
  }

  pull(): Promise<TeamReply<TeamMemoryBody>> {
    return this.send(
      'GET',
      undefined,
      undefined,
      (raw) => TeamMemoryBody.parse(raw),
      (b) => b.version,
    );
  }

  /** Upserts `entries`, only if the server is still at `ifMatch` (an ETag; null: version 0). */
  put(entries: Record<string, string>, ifMatch: string | null): Promise<TeamReply<TeamPutReply>> {
    return this.send(
      'PUT',
      JSON.stringify({ entries }),
      ifMatch ?? etagOf(0),
      (raw) => TeamPutReply.parse(raw),
      (b) => b.version,
    );
  }

  private async send<T>(
    method: 'GET' | 'PUT',
    body: string | undefined,
    ifMatch: string | undefined,
    parse: (raw: unknown) => T,
    versionOf: (body: T) => number,
  ): Promise<TeamReply<T>> {
    const delays = this.opts.retryDelaysMs ?? TEAM_RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      const reply = await this.once(method, body, ifMatch, parse, versionOf);
      const transient = reply.kind === 'failed' || (reply.kind === 'status' && reply.status >= 500);
      if (!transient || attempt >= delays.length || this.opts.signal?.aborted) return reply;
      await sleep(delays[attempt], this.opts.signal);
    }
  }

  private async once<T>(
    method: 'GET' | 'PUT',
    body: string | undefined,
    ifMatch: string | undefined,
    parse: (raw: unknown) => T,
    versionOf: (body: T) => number,
  ): Promise<TeamReply<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.opts.token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (ifMatch !== undefined) headers['if-match'] = ifMatch;
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    const signal = this.opts.signal ? AbortSignal.any([this.opts.signal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url, { method, headers, body, signal });
      text = await res.text();
    } catch (err) {
      if (this.opts.signal?.aborted) return { kind: 'failed', message: 'the sync was cancelled' };
      if (timeout.aborted)
        return { kind: 'failed', message: `${this.where()} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s` };
      return { kind: 'failed', message: `could not reach ${this.where()}: ${networkCause(err)}` };
    }
    const json = parseJson(text);
    if (!res.ok) {
      const parsed = TeamErrorBody.safeParse(json);
      const errBody = parsed.success ? parsed.data : null;
      return {
        kind: 'status',
        status: res.status,
        body: errBody,
        message: errBody?.message ?? (text.trim().slice(0, 200) || res.statusText),
      };
    }
    try {
      const parsed = parse(json);
      return { kind: 'ok', body: parsed, version: versionOfEtag(res.headers.get('etag')) ?? versionOf(parsed) };
    } catch {
      return {
        kind: 'failed',
        message:
          `${this.where()} answered ${method} with something that is not a team-memory reply ` + '(is the URL right?)',
      };
    }
  }

  private where(): string {
    return `the team server at ${this.opts.serverUrl}`;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** fetch() says only "fetch failed"; the cause (ECONNREFUSED, "other side closed") is what helps. */
function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
