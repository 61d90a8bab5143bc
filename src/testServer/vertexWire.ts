// Google Vertex AI's wire format for Claude, as the test server speaks it:
//   POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:streamRawPredict   SSE, as the API
//   POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:rawPredict         JSON message
//   POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/count-tokens:rawPredict {input_tokens}
// The messages body has no `model` (it is in the path) and carries `anthropic_version` ("vertex-2023-10-16", or
// the API's dated version that the 1.x SDK sends);
// the count-tokens body keeps `model` (@anthropic-ai/vertex-sdk client.js rewrites only the path there).
// Google's front end answers auth and quota in Google's JSON error shape (`{"error": {code, message,
// status}}`); what the model itself refuses (prompt too long, bad tool pairs, overloaded) passes through in
// the Anthropic API's shape with a `req_vrtx_` request id (anthropics/claude-code#12429 quotes one).
// The quota text is the one Vertex users report (cline/cline#651, anthropics/claude-code#1440).

import type { Wire, WireError, WireReply } from './wire';
import { anthropicError, jsonReply, sseHeaders } from './wire';
import { formatSse } from './sse';

/**
 * The versions Vertex takes in the body: its own documented one, and the API's dated version, which
 * @anthropic-ai/vertex-sdk 1.x copies from its `anthropic-version` header (client.js, adaptRequest).
 */
export const VERTEX_ANTHROPIC_VERSIONS: readonly string[] = ['vertex-2023-10-16', '2026-10-21'];

export interface VertexRoute {
  project: string;
  region: string;
  model: string;
  kind: 'messages' | 'count';
  stream: boolean;
}

const PATH =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(streamRawPredict|rawPredict)$/;

/** The parts of a Vertex path, or undefined when the path is not one. */
export function matchVertexPath(rawPath: string): VertexRoute | undefined {
  const m = PATH.exec(rawPath.replace(/%3A/gi, ':'));
  if (!m) return undefined;
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const model = decode(m[3]);
  const count = model === 'count-tokens';
  if (count && m[4] !== 'rawPredict') return undefined;
  return {
    project: decode(m[1]),
    region: decode(m[2]),
    model,
    kind: count ? 'count' : 'messages',
    stream: m[4] === 'streamRawPredict',
  };
}

/** A path that is almost a Vertex path (e.g. the base URL missed its `/v1`), for a 404 that says so. */
export function looksLikeVertexPath(rawPath: string): boolean {
  return rawPath.includes('/publishers/anthropic/models/');
}

const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** An error in Google's JSON shape. */
export function googleError(code: number, message: string, extra: Record<string, string> = {}): WireReply {
  return jsonReply(code, { error: { code, message, status: GOOGLE_STATUS[code] ?? 'UNKNOWN' } }, message, extra);
}

const AUTH_HELP =
  'Expected OAuth 2 access token, login cookie or other valid authentication credential. ' +
  'See https://developers.google.com/identity/sign-in/web/devconsole-project.';

export const vertexAuthErrors = {
  missing: (): WireReply => googleError(401, `Request is missing required authentication credential. ${AUTH_HELP}`),
  invalid: (): WireReply => googleError(401, `Request had invalid authentication credentials. ${AUTH_HELP}`),
};

/** Vertex's 429: the per-model quota of the project, in Google's shape. */
export function vertexQuotaError(model: string): WireReply {
  const base = `anthropic-${model.split('@')[0]}`;
  return googleError(
    429,
    `Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: ${base}. ` +
      'Please submit a quota increase request. https://cloud.google.com/vertex-ai/docs/generative-ai/quotas-genai.',
  );
}

/** A publisher model that does not exist (Vertex's own 404, Google's shape). */
export function vertexModelNotFound(r: VertexRoute): WireReply {
  return googleError(
    404,
    `Publisher Model \`projects/${r.project}/locations/${r.region}/publishers/anthropic/models/${r.model}\` not found.`,
  );
}

/** A project the caller may not use (Google's 403). */
export function vertexPermissionDenied(r: VertexRoute): WireReply {
  return googleError(
    403,
    `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${r.project}` +
      `/locations/${r.region}/publishers/anthropic/models/${r.model}' (or it may not exist).`,
  );
}

const bad = (message: string): WireError => ({ status: 400, type: 'invalid_request_error', message });

/**
 * What Vertex refuses in the body, as an API error (it passes through in Anthropic's shape); null when fine.
 * The texts follow the API's validation style; Vertex's exact wording for these was not found in public reports.
 */
export function checkVertexBody(body: unknown, kind: 'messages' | 'count'): WireError | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return bad('Input should be a valid dictionary');
  const b = body as Record<string, unknown>;
  if (b.anthropic_version === undefined) return bad('anthropic_version: Field required');
  if (!VERTEX_ANTHROPIC_VERSIONS.includes(String(b.anthropic_version))) {
    return bad(`anthropic_version: Input should be ${VERTEX_ANTHROPIC_VERSIONS.map((v) => `'${v}'`).join(' or ')}`);
  }
  if (kind === 'messages' && 'model' in b) return bad('model: Extra inputs are not permitted');
  return null;
}

/** Vertex's wire: SSE as the API, the API's errors passed through, quota errors in Google's shape. */
export function vertexWire(model: string): Wire {
  return {
    provider: 'vertex',
    error(e: WireError, requestId: string): WireReply {
      if (e.type === 'rate_limit_error') {
        const reply = vertexQuotaError(model);
        if (e.retryAfterSeconds !== undefined) reply.headers['retry-after'] = String(e.retryAfterSeconds);
        return reply;
      }
      return anthropicError(e, requestId);
    },
    streamHeaders: sseHeaders,
    encodeEvent: formatSse,
    messageHeaders: (_m, requestId) => ({ 'request-id': requestId }),
    messageIdPrefix: 'msg_vrtx_01',
  };
}
