// An Anthropic-compatible Messages API on 127.0.0.1 for tests, benchmarks and the offline demo.
// It checks auth and validates every request like the API (requestValidator.ts), simulates the prompt
// cache (promptCache.ts), and answers from a script: queued replies first, then the responder, then the
// offline demo model (when enabled), else a 500 that says the script ran out. A script can also delay,
// drop the connection, or go silent with the connection open (`hang`, `stallAfterEvents`).
//   POST /v1/messages               JSON, or SSE with `stream: true`
//   POST /v1/messages/count_tokens  {input_tokens}
// The same server speaks the clouds' wire formats beside it (providerRoutes.ts): Amazon Bedrock
// (`/model/{id}/invoke[-with-response-stream]`, AWS event-stream frames), Google Vertex AI
// (`/v1/projects/.../models/{m}:streamRawPredict|:rawPredict`, `count-tokens:rawPredict`) with a GCE metadata
// server for Application Default Credentials (`/computeMetadata/v1/...`), and Microsoft Foundry
// (`/anthropic/v1/messages`) with an Azure managed identity endpoint for Entra ID (`/msi/token`). Each
// checks its provider's credentials and body rules (option `providers`, providerAuth.ts), then runs the same
// validation, cache and script as the API route. To point the official clients here (the environment a
// Claude Code user has for each: test/unit/support/providerEnv.ts):
//   AnthropicBedrock({ baseURL: url, awsRegion, awsAccessKey, awsSecretKey })  (or AWS_* env, or skipAuth: true)
//   AnthropicVertex({ baseURL: `${url}/v1`, region, projectId }) with GCE_METADATA_HOST=127.0.0.1:<port>,
//     CLOUDSDK_CONFIG=<empty dir>, GOOGLE_APPLICATION_CREDENTIALS unset (ADC then gets its token here)
//   AnthropicFoundry({ baseURL: `${url}/anthropic`, apiKey }), or Entra ID with IDENTITY_ENDPOINT=<url>/msi/token
// Every request is logged (`requests`, token counts apart in `counts`, and all in a JSON-lines file when
// `logFile` is given), with its provider and model.

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiMessage, SystemBlock, ToolSchema, Usage } from '../core/conversation/types';
import { demoReply } from '../demoModel/demoModel';
import { newBedrockRequestId } from './bedrockWire';
import { PromptCacheSimulator } from './promptCache';
import { approximateInputTokens, promptSegments } from './promptSegments';
import type { ProviderAuthOptions, RawRequest } from './providerAuth';
import {
  canonicalBody,
  checkProviderAccess,
  checkProviderBody,
  credentialEmulations,
  matchRoute,
  notFoundMessage,
} from './providerRoutes';
import { DEFAULT_CONTEXT_WINDOW, validateMessagesRequest } from './requestValidator';
import {
  isScriptedError,
  newRequestId,
  resolveMessage,
  type ScriptedError,
  type ScriptedMessage,
  type ScriptedReply,
} from './scriptedReply';
import { inStreamErrorEvents, messageEvents, type SseEvent } from './sse';
import {
  anthropicWire,
  flatHeaders,
  type ProviderId,
  readBody,
  sendJson,
  sendReply,
  type Wire,
  type WireError,
  type WireReply,
} from './wire';

export type { ScriptedBlock, ScriptedReply } from './scriptedReply';
export type { ProviderAuthOptions } from './providerAuth';
export type { ProviderId } from './wire';

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

/** Gets the canonical body: on Bedrock and Vertex the path's model and streaming are put back in. */
export type Responder = (body: MessagesRequestBody, index: number) => ScriptedReply | undefined;

export interface LoggedRequest {
  path: string;
  /** Which wire format the request came in (by its path). */
  provider: ProviderId;
  /** The model asked for: from the path on Bedrock and Vertex, else from the body. */
  model?: string;
  headers: Record<string, string>;
  /**
   * The parsed JSON as received (on Bedrock and Vertex without `model`, with `anthropic_version`). Requests
   * that failed validation may not match the type; a body that was not JSON is kept as its text.
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
  /** The Messages requests of every provider, in order. */
  requests: LoggedRequest[];
  /** The token counts asked for, apart: they are not turns of a conversation. */
  counts: LoggedRequest[];
  /** Paths the credential emulations were asked for (GCE metadata for Google ADC, Azure managed identity). */
  metadataRequests: string[];
  enqueue(...replies: ScriptedReply[]): void;
  /** Consulted when the queue is empty; `index` counts the requests that got this far, from 0. */
  setResponder(fn: Responder | undefined): void;
  /** Queued replies not yet used. */
  pending(): number;
  /** Forgets every cached prefix. */
  resetCache(): void;
  /** Every Vertex token the metadata emulation issued so far is answered 401 from now on (ran out, or revoked). */
  expireVertexTokens(): void;
  /** Changes what the GCE metadata emulation does from now on. */
  setVertexMetadata(mode: 'ok' | 'missing' | 'expired'): void;
  /** Every Entra token the managed identity emulation issued so far is answered 401 from now on. */
  expireFoundryTokens(): void;
  /** Changes what the Azure managed identity emulation does from now on. */
  setFoundryIdentity(mode: 'ok' | 'missing' | 'expired'): void;
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
  /** Credentials the Bedrock, Vertex and Foundry routes accept (providerAuth.ts); lenient by default. */
  providers?: ProviderAuthOptions;
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const queue: ScriptedReply[] = [];
  const requests: LoggedRequest[] = [];
  const counts: LoggedRequest[] = [];
  let responder = opts.responder;
  let replyIndex = 0;
  const contextWindow = opts.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  const cache = new PromptCacheSimulator({ now: opts.now, minCacheableTokens: opts.minCacheableTokens });
  const creds = credentialEmulations(opts.providers ?? {});

  const record = (entry: LoggedRequest, isCount: boolean): void => {
    (isCount ? counts : requests).push(entry);
    if (opts.logFile) fs.appendFileSync(opts.logFile, `${JSON.stringify(entry)}\n`);
  };

  const nextReply = (body: MessagesRequestBody): ScriptedReply => {
    const index = replyIndex++;
    const reply = queue.shift() ?? responder?.(body, index) ?? (opts.demo ? demoReply(body) : undefined);
    return reply ?? { error: { status: 500, type: 'api_error', message: 'test server: no scripted reply left' } };
  };

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        const e = { status: 500, type: 'api_error', message: `test server: ${String(err)}` };
        sendReply(res, anthropicWire('anthropic').error(e, newRequestId()));
      } else res.destroy();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const [path, rawQuery = ''] = (req.url ?? '/').split('?', 2);
    if (req.method === 'GET' && path === '/') {
      sendReply(res, {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"ok":true,"server":"engram anthropic test server"}',
        message: '',
      });
      return;
    }
    if (creds.serve(req, res, path)) return;
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
    const route = matchRoute(req.method ?? 'GET', path);
    const wire: Wire = route?.wire ?? anthropicWire('anthropic');
    const requestId =
      route?.provider === 'bedrock'
        ? newBedrockRequestId()
        : newRequestId().replace(/^req_01/, route?.provider === 'vertex' ? 'req_vrtx_01' : 'req_01');
    const headers = flatHeaders(req.headers);
    const entry: LoggedRequest = {
      path,
      provider: route?.provider ?? 'anthropic',
      ...modelOf(route?.model, parsed),
      headers,
      body: parsed as MessagesRequestBody,
      receivedAt: Date.now(),
      status: 0,
    };
    const isCount = route?.kind === 'count';
    const failWith = (reply: WireReply): void => {
      entry.status = reply.status;
      entry.error = reply.message;
      record(entry, isCount);
      sendReply(res, reply);
    };
    const fail = (e: WireError): void => failWith(wire.error(e, requestId));
    if (!route) return fail({ status: 404, type: 'not_found_error', message: notFoundMessage(path) });
    const rawRequest: RawRequest = { method: req.method ?? 'POST', rawPath: path, rawQuery, headers, body: raw ?? '' };
    const denied = await checkProviderAccess(route, rawRequest, creds.context, requestId);
    if (denied) return failWith(denied);
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
    const refused = checkProviderBody(route, parsed, requestId);
    if (refused) return failWith(refused);
    const canonical = canonicalBody(route, parsed);
    const invalid = validateMessagesRequest(canonical, {
      contextWindow,
      endpoint: isCount ? 'count_tokens' : 'messages',
    });
    if (invalid) return fail(invalid);
    const body = canonical as MessagesRequestBody;

    if (isCount) {
      const inputTokens = approximateInputTokens(body);
      entry.status = 200;
      entry.usage = { input_tokens: inputTokens, output_tokens: 0 };
      record(entry, true);
      sendJson(res, 200, { input_tokens: inputTokens }, wire.provider === 'bedrock' ? {} : { 'request-id': requestId });
      return;
    }

    const reply = nextReply(body);
    if (isScriptedError(reply)) return sendScriptedError(reply, body, entry, res, wire, requestId);
    const usage = cache.process(body.model, promptSegments(body));
    const message = resolveMessage(reply, body.model, usage);
    message.id = message.id.replace(/^msg_01/, wire.messageIdPrefix);
    entry.usage = message.usage;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.hang) {
      entry.error = 'never answered (scripted hang)';
      record(entry, false);
      return;
    }

    if (body.stream !== true) {
      if (reply.dropAfterEvents !== undefined) {
        entry.error = 'connection dropped before the response';
        record(entry, false);
        req.socket.destroy();
        return;
      }
      entry.status = 200;
      record(entry, false);
      sendJson(res, 200, message, wire.messageHeaders(message, requestId));
      return;
    }
    if (reply.dropAfterEvents !== undefined) entry.error = `connection dropped after ${reply.dropAfterEvents} events`;
    if (reply.stallAfterEvents !== undefined) entry.error = `went silent after ${reply.stallAfterEvents} events`;
    entry.status = 200;
    record(entry, false);
    const events = messageEvents(message, { omitFinalBlockStop: reply.omitFinalBlockStop });
    await streamEvents(res, wire, requestId, events, reply);
  }

  async function sendScriptedError(
    reply: ScriptedError,
    body: MessagesRequestBody,
    entry: LoggedRequest,
    res: http.ServerResponse,
    wire: Wire,
    requestId: string,
  ): Promise<void> {
    const { status, type, message, retryAfterSeconds, inStream } = reply.error;
    entry.error = message;
    if (inStream && body.stream === true) {
      // The API has already said 200 when it runs out of capacity mid-stream.
      entry.status = 200;
      record(entry, false);
      const total = approximateInputTokens(body);
      const start = resolveMessage({ content: [] }, body.model, {
        input_tokens: total,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      });
      start.id = start.id.replace(/^msg_01/, wire.messageIdPrefix);
      await streamEvents(res, wire, requestId, inStreamErrorEvents(start, { type, message }), {});
      return;
    }
    const sent = wire.error({ status, type, message, retryAfterSeconds }, requestId);
    entry.status = sent.status;
    record(entry, false);
    sendReply(res, sent);
  }

  async function streamEvents(
    res: http.ServerResponse,
    wire: Wire,
    requestId: string,
    events: SseEvent[],
    pacing: Pick<ScriptedMessage, 'chunkDelayMs' | 'dropAfterEvents' | 'stallAfterEvents'>,
  ): Promise<void> {
    res.writeHead(200, wire.streamHeaders(requestId));
    res.flushHeaders();
    for (let i = 0; i < events.length; i++) {
      if (res.destroyed) return; // the client went away
      if (pacing.stallAfterEvents !== undefined && i >= pacing.stallAfterEvents) return; // silent, connection open
      if (pacing.dropAfterEvents !== undefined && i >= pacing.dropAfterEvents) {
        res.socket?.destroy();
        return;
      }
      await new Promise<void>((resolve) => res.write(wire.encodeEvent(events[i]), () => resolve()));
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
    metadataRequests: creds.log,
    enqueue: (...replies) => void queue.push(...replies),
    setResponder: (fn) => void (responder = fn),
    pending: () => queue.length,
    resetCache: () => cache.clear(),
    expireVertexTokens: () => creds.context.vertexTokens.expireIssued(),
    setVertexMetadata: (mode) => void (creds.metadata.mode = mode),
    expireFoundryTokens: () => creds.context.foundryTokens.expireIssued(),
    setFoundryIdentity: (mode) => void (creds.identity.mode = mode),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The model a request names: the path's (Bedrock, Vertex), else the body's when it has one. */
function modelOf(pathModel: string | undefined, body: unknown): { model?: string } {
  const fromBody = (body as { model?: unknown } | null)?.model;
  const model = pathModel ?? (typeof fromBody === 'string' ? fromBody : undefined);
  return model === undefined ? {} : { model };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
