// An Azure App Service managed identity endpoint on the test server, so that Azure's credential chain
// (@azure/identity's DefaultAzureCredential, which Foundry's Entra ID sign-in uses) runs for real in tests:
// with `IDENTITY_ENDPOINT=<server>/msi/token` and `IDENTITY_HEADER=<any secret>` its managed identity source
// asks `GET /msi/token?api-version=2019-08-01&resource=<audience>` with the secret in `x-identity-header`
// (Microsoft's App Service managed identity protocol; @azure/msal-node's AppService source sends exactly
// that) and takes `{access_token, expires_on, resource, token_type}`. The token is JWT-shaped; the Foundry
// routes accept it until it is expired. A test that points the chain here must keep the chain from finding
// real credentials first: unset AZURE_CLIENT_ID / AZURE_TENANT_ID / AZURE_CLIENT_SECRET /
// AZURE_FEDERATED_TOKEN_FILE (the environment and workload identity sources come before managed identity).
// MSAL keeps managed identity tokens for the whole process, across credential objects: a test of a missing
// identity must run before any sign-in succeeds in that process.
// Modes: 'ok' issues tokens the Foundry routes accept; 'missing' answers 400 as an App Service without an
// identity does; 'expired' issues tokens the Foundry routes answer 401 to.

import type http from 'node:http';
import type { IssuedTokens } from './providerAuth';
import { base62 } from './scriptedReply';

export const IDENTITY_PATH = '/msi/token';

const TOKEN_LIFETIME_SECONDS = 3600;

export interface IdentityState {
  mode: 'ok' | 'missing' | 'expired';
  tokens: IssuedTokens;
  /** Paths asked for, shared with the GCE metadata log. */
  log: string[];
}

const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Answers one managed identity token request. */
export function handleIdentity(req: http.IncomingMessage, res: http.ServerResponse, state: IdentityState): void {
  const url = new URL(req.url ?? '/', 'http://identity');
  state.log.push(url.pathname);
  const [status, body] = identityAnswer(req, url, state);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function identityAnswer(req: http.IncomingMessage, url: URL, state: IdentityState): [number, string] {
  const fail = (status: number, message: string): [number, string] => [
    status,
    JSON.stringify({ statusCode: status, message }),
  ];
  if (req.method !== 'GET') return fail(405, 'The requested resource does not support this method.');
  if (!req.headers['x-identity-header']) return fail(401, 'The X-IDENTITY-HEADER header is required.');
  const resource = url.searchParams.get('resource');
  if (!resource) return fail(400, 'The resource query parameter is required.');
  if (state.mode === 'missing') return fail(400, 'No managed identity is assigned to this resource.');
  const expiresOn = Math.floor(Date.now() / 1000) + TOKEN_LIFETIME_SECONDS;
  const token = [
    b64url({ typ: 'JWT', alg: 'RS256' }),
    b64url({ aud: resource, iss: 'https://sts.windows.net/engram-test-tenant/', exp: expiresOn, oid: base62(12) }),
    Buffer.from(base62(64)).toString('base64url'),
  ].join('.');
  state.tokens.issue(token, state.mode === 'expired');
  return [200, JSON.stringify({ access_token: token, expires_on: String(expiresOn), resource, token_type: 'Bearer' })];
}
