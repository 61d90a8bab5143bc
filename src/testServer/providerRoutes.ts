// Which provider a request is for (by its path), whether its credentials and provider-specific body pass,
// and the Messages body the shared pipeline (validation, prompt cache, script) sees: for Bedrock and Vertex
// the path's model and the route's streaming put back into it.
//   anthropic  POST /v1/messages, /v1/messages/count_tokens
//   foundry    POST /anthropic/v1/messages, /anthropic/v1/messages/count_tokens (Anthropic's body and shapes)
//   bedrock    POST /model/{id}/invoke, /model/{id}/invoke-with-response-stream (bedrockWire.ts)
//   vertex     POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:streamRawPredict|:rawPredict,
//              .../models/count-tokens:rawPredict (vertexWire.ts)
// Beside them, the credential emulations the clouds' chains are pointed at: GET /computeMetadata/v1/...
// (gceMetadata.ts) and GET /msi/token (azureIdentity.ts).

import type http from 'node:http';
import { handleIdentity, IDENTITY_PATH, type IdentityState } from './azureIdentity';
import {
  bedrockError,
  bedrockWire,
  checkBedrockBody,
  isBedrockModelId,
  matchBedrockPath,
  onDemandRefusal,
} from './bedrockWire';
import { DEFAULT_VERTEX_PROJECT, handleMetadata, METADATA_PREFIX, type MetadataState } from './gceMetadata';
import {
  checkBedrockAuth,
  checkFoundryAuth,
  checkVertexAuth,
  IssuedTokens,
  type ProviderAuthOptions,
  type RawRequest,
} from './providerAuth';
import {
  checkVertexBody,
  looksLikeVertexPath,
  matchVertexPath,
  vertexModelNotFound,
  vertexPermissionDenied,
  vertexWire,
} from './vertexWire';
import { anthropicWire, type ProviderId, type Wire, type WireReply } from './wire';

export interface RoutedRequest {
  provider: ProviderId;
  kind: 'messages' | 'count';
  wire: Wire;
  /** The model from the path (Bedrock, Vertex messages), else from the body. */
  model?: string;
  /** Set when the path fixes streaming (Bedrock, Vertex); the body's `stream` otherwise. */
  stream?: boolean;
}

export interface RouteContext {
  auth: ProviderAuthOptions;
  vertexTokens: IssuedTokens;
  foundryTokens: IssuedTokens;
  /** The Vertex project the server stands for, when the options named one. */
  vertexProject?: string;
}

/** The clouds' credential emulations (GCE metadata for Google ADC, App Service managed identity for Azure). */
export interface CredentialEmulations {
  context: RouteContext;
  metadata: MetadataState;
  identity: IdentityState;
  /** Paths the emulations were asked for, in order. */
  log: string[];
  /** Answers the request when it is for an emulation; false when it is not. */
  serve(req: http.IncomingMessage, res: http.ServerResponse, path: string): boolean;
}

export function credentialEmulations(auth: ProviderAuthOptions): CredentialEmulations {
  const log: string[] = [];
  const vertexTokens = new IssuedTokens(auth.vertex?.tokens, auth.vertex?.expiredTokens);
  const foundryTokens = new IssuedTokens();
  const metadata: MetadataState = {
    mode: auth.vertex?.metadata ?? 'ok',
    projectId: auth.vertex?.projectId ?? DEFAULT_VERTEX_PROJECT,
    tokens: vertexTokens,
    log,
  };
  const identity: IdentityState = { mode: auth.foundry?.identity ?? 'ok', tokens: foundryTokens, log };
  return {
    context: { auth, vertexTokens, foundryTokens, vertexProject: auth.vertex?.projectId },
    metadata,
    identity,
    log,
    serve(req, res, path) {
      if (path === METADATA_PREFIX || path.startsWith(`${METADATA_PREFIX}/`)) handleMetadata(req, res, metadata);
      else if (path === IDENTITY_PATH) handleIdentity(req, res, identity);
      else return false;
      return true;
    },
  };
}

/** The route of a path, or undefined when no provider serves it (404). */
export function matchRoute(method: string, rawPath: string): RoutedRequest | undefined {
  if (method !== 'POST') return undefined;
  if (rawPath === '/v1/messages') return { provider: 'anthropic', kind: 'messages', wire: anthropicWire('anthropic') };
  if (rawPath === '/v1/messages/count_tokens')
    return { provider: 'anthropic', kind: 'count', wire: anthropicWire('anthropic') };
  if (rawPath === '/anthropic/v1/messages')
    return { provider: 'foundry', kind: 'messages', wire: anthropicWire('foundry') };
  if (rawPath === '/anthropic/v1/messages/count_tokens') {
    return { provider: 'foundry', kind: 'count', wire: anthropicWire('foundry') };
  }
  const bedrock = matchBedrockPath(rawPath);
  if (bedrock)
    return { provider: 'bedrock', kind: 'messages', wire: bedrockWire(), model: bedrock.model, stream: bedrock.stream };
  const vertex = matchVertexPath(rawPath);
  if (vertex) {
    const model = vertex.kind === 'messages' ? vertex.model : undefined;
    return {
      provider: 'vertex',
      kind: vertex.kind,
      wire: vertexWire(vertex.model),
      model,
      stream: vertex.kind === 'messages' ? vertex.stream : undefined,
    };
  }
  return undefined;
}

/** The 404 text for a path no provider serves (with a hint when it is a Vertex path without its `/v1`). */
export function notFoundMessage(rawPath: string): string {
  if (looksLikeVertexPath(rawPath) && !rawPath.startsWith('/v1/')) {
    return 'Not Found: Vertex paths start with /v1/projects/ (give the Vertex client the base URL <server>/v1)';
  }
  return 'Not Found';
}

/** Credentials and what the path names (model id, project); a reply to send when they fail, else null. */
export async function checkProviderAccess(
  route: RoutedRequest,
  req: RawRequest,
  ctx: RouteContext,
  requestId: string,
): Promise<WireReply | null> {
  switch (route.provider) {
    case 'anthropic':
      if (!req.headers['x-api-key'] && !req.headers.authorization) {
        return route.wire.error({ status: 401, type: 'authentication_error', message: 'invalid x-api-key' }, requestId);
      }
      return null;
    case 'foundry':
      return checkFoundryAuth(req.headers, ctx.auth.foundry, ctx.foundryTokens);
    case 'bedrock': {
      const denied = await checkBedrockAuth(req, ctx.auth.bedrock, requestId);
      if (denied) return denied;
      const model = route.model ?? '';
      if (!isBedrockModelId(model)) {
        return bedrockError(400, 'ValidationException', 'The provided model identifier is invalid.', requestId);
      }
      const onDemand = onDemandRefusal(model);
      return onDemand ? bedrockError(400, 'ValidationException', onDemand, requestId) : null;
    }
    case 'vertex': {
      const denied = checkVertexAuth(req.headers, ctx.auth.vertex, ctx.vertexTokens);
      if (denied) return denied;
      const parts = matchVertexPath(req.rawPath);
      if (parts && ctx.vertexProject && parts.project !== ctx.vertexProject) return vertexPermissionDenied(parts);
      if (parts && parts.kind === 'messages' && !parts.model.startsWith('claude-')) return vertexModelNotFound(parts);
      return null;
    }
  }
}

/** What the provider refuses in the (parsed) body before the API's own validation; null when fine. */
export function checkProviderBody(route: RoutedRequest, body: unknown, requestId: string): WireReply | null {
  if (route.provider === 'bedrock') return checkBedrockBody(body, requestId);
  if (route.provider === 'vertex') {
    const bad = checkVertexBody(body, route.kind);
    return bad ? route.wire.error(bad, requestId) : null;
  }
  return null;
}

/**
 * The Messages body the shared pipeline validates and answers: on Bedrock and Vertex a copy with the path's
 * model and streaming put back; elsewhere the body itself, so a test finds the logged request by its body.
 */
export function canonicalBody(route: RoutedRequest, body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  if (route.provider !== 'bedrock' && route.provider !== 'vertex') return body;
  const b = { ...(body as Record<string, unknown>) };
  delete b.anthropic_version;
  delete b.anthropic_beta;
  if (route.model !== undefined) b.model = route.model;
  if (route.stream !== undefined) b.stream = route.stream;
  return b;
}
