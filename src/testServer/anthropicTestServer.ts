// An Anthropic-compatible Messages API on 127.0.0.1 for tests, benchmarks and the offline demo.
// It checks auth and validates every request like the API (requestValidator.ts), simulates the prompt
// cache (promptCache.ts), and answers from a script: queued replies first, then the responder, then the
// offline demo model (when enabled), else a 500 that says the script ran out. A script can also delay,
// drop the connection, or go silent with the connection open (`hang`, `stallAfterEvents`).
//   POST /v1/messages               JSON, or SSE with `stream: true`
//   POST /v1/messages/count_tokens  {input_tokens}
// Every request is logged (`requests`, token counts apart in `counts`, and all in a JSON-lines file when
// `logFile` is given).

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiMessage, SystemBlock, ToolSchema, Usage } from '../core/conversation/types';
import { PromptCacheSimulator } from './promptCache';
import { approximateInputTokens, promptSegments } from './promptSegments';
import { DEFAULT_CONTEXT_WINDOW, validateMessagesRequest, type ApiErrorBody } from './requestValidator';
import { demoReply } from '../demoModel/demoModel';
import {
  isScriptedError,
  newRequestId,
  resolveMessage,
  type ScriptedError,
  type ScriptedMessage,
  type ScriptedReply,
} from './scriptedReply';
import { formatSse, inStreamErrorEvents, messageEvents, type SseEvent } from './sse';

export type { ScriptedBlock, ScriptedReply } from './scriptedReply';

/** A Messages request as received (only requests that passed validation are sure to match). */
export interface MessagesRequestBody {
  model: string;
  max_tokens: number;
  messages: ApiMessage[];
  system?: string | SystemBlock[];
  tools?: ToolSchema[];
  stream?: boolean;
  [extra: string]: unknown;
}

export type Responder = (body: MessagesRequestBody, index: number) => ScriptedReply | undefined;

export interface LoggedRequest {
  path: string;
  headers: Record<string, string>;
  /**
   * The parsed JSON as received. Requests that failed validation may not match the type; a body that
   * was not JSON is kept as its text.
   */
  body: MessagesRequestBody;
  receivedAt: number;
  /** HTTP status sent; 0 when the connection was dropped before a status line. */
  status: number;
  /** The error message sent, or why the connection was dropped. */
  error?: string;
  usage?: Usage;
}

export interface TestServer {
  url: string;
  port: number;
  /** The Messages requests (POST /v1/messages), in order. */
  requests: LoggedRequest[];
  /** The token counts asked for (POST /v1/messages/count_tokens), apart: they are not turns of a conversation. */
  counts: LoggedRequest[];
  enqueue(...replies: ScriptedReply[]): void;
  /** Consulted when the queue is empty; `index` counts the requests that got this far, from 0. */
  setResponder(fn: Responder | undefined): void;
  /** Queued replies not yet used. */
  pending(): number;
  /** Forgets every cached prefix. */
  resetCache(): void;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Input-token limit for `prompt is too long`; default 200,000. */
  contextWindow?: number;
  responder?: Responder;
  /** Answer as the offline demo model when nothing else is scripted. */
  demo?: boolean;
  /** Append each logged request as a JSON line. */
  logFile?: string;
  /** The cache's minimum prefix length (the API's is 1,024 tokens for most models). */
  minCacheableTokens?: number;
  /** Clock for cache TTLs. */
  now?: () => number;
}

const COUNT_PATH = '/v1/messages/count_tokens';

/** The API's documented request size limit for the Messages endpoint. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const queue: ScriptedReply[] = [];
  const requests: LoggedRequest[] = [];
  const counts: LoggedRequest[] = [];
  let responder = opts.responder;
  let replyIndex = 0;
  const contextWindow = opts.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const cache = new PromptCacheSimulator({ now: opts.now, minCacheableTokens: opts.minCacheableTokens });

  const record = (entry: LoggedRequest): void => {
    (entry.path === COUNT_PATH ? counts : requests).push(entry);
    if (opts.logFile) fs.appendFileSync(opts.logFile, `${JSON.stringify(entry)}\n`);
  };

  const nextReply = (body: MessagesRequestBody): ScriptedReply => {
    const index = replyIndex++;
    const reply = queue.shift() ?? responder?.(body, index) ?? (opts.demo ? demoReply(body) : undefined);
    return reply ?? { error: { status: 500, type: 'api_error', message: 'test server: no scripted reply left' } };
  };

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody('api_error', `test server: ${String(err)}`), newRequestId());
      else res.destroy();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const requestId = newRequestId();
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/') {
      sendJson(res, 200, { ok: true, server: 'engram anthropic test server' }, requestId);
      return;
    }
    const raw = await readBody(req);
    let parsed: unknown = raw;
    let parseFailed = false;
    if (raw !== undefined && raw !== '') {
      try {
        parsed = JSON.parse(raw);
      } catch {
        parseFailed = true;
      }
    }
    const entry: LoggedRequest = {
      path,
      headers: flatHeaders(req.headers),
      body: parsed as MessagesRequestBody,
      receivedAt: Date.now(),
      status: 0,
    };
    const fail = (e: ApiErrorBody, extra: Record<string, string> = {}): void => {
      entry.status = e.status;
      entry.error = e.message;
      record(entry);
      sendJson(res, e.status, errorBody(e.type, e.message), requestId, extra);
    };
    if (req.method !== 'POST' || (path !== '/v1/messages' && path !== COUNT_PATH)) {
      return fail({ status: 404, type: 'not_found_error', message: 'Not Found' });
    }
    if (!entry.headers['x-api-key'] && !entry.headers.authorization) {
      return fail({ status: 401, type: 'authentication_error', message: 'invalid x-api-key' });
    }
    if (raw === undefined) {
      return fail({
        status: 413,
        type: 'request_too_large',
        message: 'Request exceeds the maximum allowed number of bytes.',
      });
    }
    if (parseFailed) {
      return fail({
        status: 400,
        type: 'invalid_request_error',
        message: 'There was an error parsing the body: invalid JSON',
      });
    }
    const countOnly = path === COUNT_PATH;
    const invalid = validateMessagesRequest(parsed, {
      contextWindow,
      endpoint: countOnly ? 'count_tokens' : 'messages',
    });
    if (invalid) return fail(invalid);
    const body = parsed as MessagesRequestBody;

    if (countOnly) {
      const inputTokens = approximateInputTokens(body);
      entry.status = 200;
      entry.usage = { input_tokens: inputTokens, output_tokens: 0 };
      record(entry);
      sendJson(res, 200, { input_tokens: inputTokens }, requestId);
      return;
    }

    const reply = nextReply(body);
    if (isScriptedError(reply)) return sendScriptedError(reply, body, entry, res, requestId);
    const usage = cache.process(body.model, promptSegments(body));
    const message = resolveMessage(reply, body.model, usage);
    entry.usage = message.usage;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.hang) {
      entry.error = 'never answered (scripted hang)';
      record(entry);
      return;
    }

    if (body.stream !== true) {
      if (reply.dropAfterEvents !== undefined) {
        entry.error = 'connection dropped before the response';
        record(entry);
        req.socket.destroy();
        return;
      }
      entry.status = 200;
      record(entry);
      sendJson(res, 200, message, requestId);
      return;
    }
    if (reply.dropAfterEvents !== undefined) entry.error = `connection dropped after ${reply.dropAfterEvents} events`;
    if (reply.stallAfterEvents !== undefined) entry.error = `went silent after ${reply.stallAfterEvents} events`;
    entry.status = 200;
    record(entry);
    await streamEvents(res, requestId, messageEvents(message, { omitFinalBlockStop: reply.omitFinalBlockStop }), reply);
  }

  async function sendScriptedError(
    reply: ScriptedError,
    body: MessagesRequestBody,
    entry: LoggedRequest,
    res: http.ServerResponse,
    requestId: string,
  ): Promise<void> {
    const { status, type, message, retryAfterSeconds, inStream } = reply.error;
    entry.error = message;
    if (inStream && body.stream === true) {
      // The API has already said 200 when it runs out of capacity mid-stream.
      entry.status = 200;
      record(entry);
      const total = approximateInputTokens(body);
      const start = resolveMessage({ content: [] }, body.model, {
        input_tokens: total,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      });
      await streamEvents(res, requestId, inStreamErrorEvents(start, { type, message }), {});
      return;
    }
    entry.status = status;
    record(entry);
    const extra: Record<string, string> =
      retryAfterSeconds !== undefined ? { 'retry-after': String(retryAfterSeconds) } : {};
    sendJson(res, status, errorBody(type, message), requestId, extra);
  }

  async function streamEvents(
    res: http.ServerResponse,
    requestId: string,
    events: SseEvent[],
    pacing: Pick<ScriptedMessage, 'chunkDelayMs' | 'dropAfterEvents' | 'stallAfterEvents'>,
  ): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': requestId,
    });
    res.flushHeaders();
    for (let i = 0; i < events.length; i++) {
      if (res.destroyed) return; // the client went away
      if (pacing.stallAfterEvents !== undefined && i >= pacing.stallAfterEvents) return; // silent, connection open
      if (pacing.dropAfterEvents !== undefined && i >= pacing.dropAfterEvents) {
        res.socket?.destroy();
        return;
      }
      await new Promise<void>((resolve) => res.write(formatSse(events[i]), () => resolve()));
      if (pacing.chunkDelayMs && i < events.length - 1) await sleep(pacing.chunkDelayMs);
    }
    if (pacing.dropAfterEvents !== undefined && pacing.dropAfterEvents <= events.length) {
      res.socket?.destroy();
      return;
    }
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    counts,
    enqueue: (...replies) => void queue.push(...replies),
    setResponder: (fn) => void (responder = fn),
    pending: () => queue.length,
    resetCache: () => cache.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function errorBody(type: string, message: string): { type: 'error'; error: { type: string; message: string } } {
  return { type: 'error', error: { type, message } };
}

function sendJson(
  res: http.ServerResponse,
  status: number,
  payload: unknown,
  requestId: string,
  extra: Record<string, string> = {},
): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': requestId,
    ...extra,
  });
  res.end(text);
}

/** The body as text, or undefined when it is over the size limit (the rest is drained, not kept). */
function readBody(req: http.IncomingMessage): Promise<string | undefined> {
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

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
