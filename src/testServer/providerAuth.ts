// How the test server checks each cloud's credentials, and the options that configure it.
// - Bedrock: an AWS SigV4 `Authorization` header (`AWS4-HMAC-SHA256 Credential=<AKID>/<yyyymmdd>/<region>/
//   bedrock/aws4_request, SignedHeaders=..., Signature=<64 hex>` with `x-amz-date`), or `Bearer <Bedrock API
//   key>`. When the server knows the secret of the access key id, the signature is recomputed with
//   @smithy/signature-v4 (the signer @anthropic-ai/bedrock-sdk uses) and must match.
// - Vertex: `Authorization: Bearer <token>`, where the token is one the server issued through its GCE
//   metadata emulation (gceMetadata.ts) or one it was configured with.
// - Foundry: `x-api-key: <key>` or `Authorization: Bearer <Entra ID token>` (@anthropic-ai/foundry-sdk), the
//   token one the server's Azure managed identity emulation issued (azureIdentity.ts) or a configured one.
// A request with no credential at all passes when the provider accepts unsigned requests (the default, as a
// gateway that adds credentials itself does: CLAUDE_CODE_SKIP_BEDROCK_AUTH and friends); a malformed one never.
// Error texts are AWS's and Google's own (public issues quote them: BerriAI/litellm#14763 for the signature
// text, aws/aws-sdk-js-v3#5811 for a signature made more than 15 minutes off the server's clock,
// anthropics/anthropic-sdk-typescript#537 for the invalid token; Google's 401 in vertexWire.ts).

import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { bedrockError } from './bedrockWire';
import { vertexAuthErrors } from './vertexWire';
import { jsonReply, type WireReply } from './wire';

/** An AWS access key the server knows: requests signed with it are verified for real. */
export interface AwsTestCredential {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials: requests must carry this as `x-amz-security-token`. */
  sessionToken?: string;
  /** Answer 403 ExpiredTokenException for this key. */
  expired?: boolean;
}

export interface ProviderAuthOptions {
  bedrock?: {
    /** Known keys. When given, an unknown access key id gets 403 UnrecognizedClientException. */
    credentials?: AwsTestCredential[];
    /** Bedrock API keys accepted as `Bearer`. When not given, any key with a Bedrock key's prefix passes. */
    apiKeys?: string[];
    /** Accept requests without `Authorization` (gateway mode); default true. */
    acceptUnsigned?: boolean;
  };
  vertex?: {
    /** Access tokens accepted besides those the metadata emulation issues. */
    tokens?: string[];
    /** Tokens answered as expired (401). */
    expiredTokens?: string[];
    /** Accept any Bearer token not known to be expired (a stand-in for Google's front end that checks nothing). */
    acceptAnyToken?: boolean;
    /** What the GCE metadata emulation does: issue good tokens (default), have none, or issue expired ones. */
    metadata?: 'ok' | 'missing' | 'expired';
    /** The project the metadata emulation reports; when set, other projects in the path get 403. */
    projectId?: string;
    /** Accept requests without `Authorization` (gateway mode); default true. */
    acceptUnsigned?: boolean;
  };
  foundry?: {
    /** Keys accepted in `x-api-key` (and Entra tokens accepted as `Bearer`); when not given, any non-empty one. */
    apiKeys?: string[];
    /** What the Azure managed identity emulation (azureIdentity.ts) does: issue good tokens (default), none, or expired. */
    identity?: 'ok' | 'missing' | 'expired';
    /** Accept requests without credentials (gateway mode); default true. */
    acceptUnsigned?: boolean;
  };
}

const SIGV4 =
  /^AWS4-HMAC-SHA256 Credential=([A-Z0-9]{16,128})\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{8})T\d{6}Z$/;
/** Bedrock API keys: long-term ones start with `ABSK`, short-term ones with `bedrock-api-key-`. */
const BEDROCK_API_KEY = /^(?:ABSK|bedrock-api-key-)[A-Za-z0-9+/=_.%-]+$/;

export interface RawRequest {
  method: string;
  rawPath: string;
  rawQuery: string;
  headers: Record<string, string>;
  body: string;
}

/** Checks a Bedrock request's credentials; null when they pass. */
export async function checkBedrockAuth(
  req: RawRequest,
  opts: ProviderAuthOptions['bedrock'] = {},
  requestId: string,
): Promise<WireReply | null> {
  const auth = req.headers.authorization;
  const deny = (exception: string, message: string): WireReply => bedrockError(403, exception, message, requestId);
  if (!auth) {
    if (opts.acceptUnsigned !== false) return null;
    return deny('MissingAuthenticationTokenException', 'Missing Authentication Token');
  }
  if (auth.startsWith('Bearer ')) {
    const key = auth.slice('Bearer '.length).trim();
    const known = opts.apiKeys ? opts.apiKeys.includes(key) : BEDROCK_API_KEY.test(key);
    if (!BEDROCK_API_KEY.test(key)) {
      return deny('AccessDeniedException', 'Invalid API Key format: Must start with pre-defined prefix');
    }
    return known
      ? null
      : deny('AccessDeniedException', 'Authentication failed: Please make sure your API Key is valid.');
  }
  const m = SIGV4.exec(auth);
  if (!m) {
    return deny(
      'IncompleteSignatureException',
      "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters (AWS4-HMAC-SHA256). " +
        `Authorization=${auth.split(' ')[0]}`,
    );
  }
  const [, accessKeyId, day, region, service, signedHeaders, signature] = m;
  const amzDate = req.headers['x-amz-date'] ?? '';
  const date = AMZ_DATE.exec(amzDate);
  if (!date)
    return deny(
      'IncompleteSignatureException',
      "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.",
    );
  if (date[1] !== day || service !== 'bedrock') {
    return deny(
      'InvalidSignatureException',
      "Credential should be scoped to a valid region and to the correct service 'bedrock'; " +
        `got ${day}/${region}/${service}.`,
    );
  }
  const skew = clockSkew(amzDate);
  if (skew) return deny('InvalidSignatureException', skew);
  if (!opts.credentials) return null; // shape checked; no secret to verify against
  const cred = opts.credentials.find((c) => c.accessKeyId === accessKeyId);
  if (!cred) return deny('UnrecognizedClientException', 'The security token included in the request is invalid.');
  if (cred.expired) return deny('ExpiredTokenException', 'The security token included in the request is expired');
  if ((cred.sessionToken ?? undefined) !== (req.headers['x-amz-security-token'] ?? undefined)) {
    return deny('UnrecognizedClientException', 'The security token included in the request is invalid.');
  }
  const expected = await recomputeSignature(req, cred, region, signedHeaders.split(';'), amzDate);
  if (expected !== signature) {
    return deny(
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided. ' +
        'Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
  }
  return null;
}

const SKEW_MS = 15 * 60 * 1000;
const amzTime = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
const parseAmzDate = (amzDate: string): Date =>
  new Date(amzDate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z')); // 20261205T091500Z

/** AWS's refusal of a signature made more than 15 minutes from the server's clock; null when within. */
function clockSkew(amzDate: string): string | null {
  const now = Date.now();
  const signed = parseAmzDate(amzDate).getTime();
  if (signed < now - SKEW_MS) {
    return `Signature expired: ${amzDate} is now earlier than ${amzTime(now - SKEW_MS)} (${amzTime(now)} - 15 min.)`;
  }
  if (signed > now + SKEW_MS) {
    return `Signature not yet current: ${amzDate} is still later than ${amzTime(now + SKEW_MS)} (${amzTime(now)} + 15 min.)`;
  }
  return null;
}

async function recomputeSignature(
  req: RawRequest,
  cred: AwsTestCredential,
  region: string,
  signedHeaders: string[],
  amzDate: string,
): Promise<string> {
  const signer = new SignatureV4({
    service: 'bedrock',
    region,
    credentials: {
      accessKeyId: cred.accessKeyId,
      secretAccessKey: cred.secretAccessKey,
      sessionToken: cred.sessionToken,
    },
    sha256: Sha256,
  });
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = req.headers[name] ?? '';
  const query: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(req.rawQuery)) (query[k] ??= []).push(v);
  const signingDate = parseAmzDate(amzDate);
  const signed = await signer.sign(
    {
      method: req.method,
      protocol: 'http:',
      hostname: (req.headers.host ?? '').split(':')[0],
      path: req.rawPath,
      query,
      headers,
      body: req.body,
    },
    { signingDate },
  );
  const out = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization ?? ''));
  return out ? out[1] : '';
}

/** Access tokens a credential emulation issued or a test configured, and which of them are expired. */
export class IssuedTokens {
  private readonly valid = new Set<string>();
  private readonly expired = new Set<string>();

  constructor(
    private readonly configured: readonly string[] = [],
    expired: readonly string[] = [],
  ) {
    for (const t of configured) this.valid.add(t);
    for (const t of expired) this.expired.add(t);
  }

  issue(token: string, expired: boolean): void {
    (expired ? this.expired : this.valid).add(token);
  }

  /** Every token issued so far answers as expired from now on (it ran out, or was revoked); configured ones stay. */
  expireIssued(): void {
    for (const t of this.valid) if (!this.configured.includes(t)) this.expired.add(t);
  }

  state(token: string): 'valid' | 'expired' | 'unknown' {
    if (this.expired.has(token)) return 'expired';
    return this.valid.has(token) ? 'valid' : 'unknown';
  }
}

/** Checks a Vertex request's OAuth token; null when it passes. */
export function checkVertexAuth(
  headers: Record<string, string>,
  opts: ProviderAuthOptions['vertex'] = {},
  tokens: IssuedTokens,
): WireReply | null {
  const auth = headers.authorization;
  if (!auth) return opts.acceptUnsigned === false ? vertexAuthErrors.missing() : null;
  const m = /^Bearer (\S+)$/.exec(auth);
  const state = m ? tokens.state(m[1]) : 'expired';
  if (state === 'valid' || (state === 'unknown' && opts.acceptAnyToken)) return null;
  return vertexAuthErrors.invalid();
}

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const AZURE_KEY_DENIED =
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an ' +
  'active subscription and use a correct regional API endpoint for your resource.';
const AZURE_TOKEN_DENIED =
  'Unauthorized. Access token is missing, invalid, audience is incorrect (https://ai.azure.com), or have expired.';

/**
 * Checks a Foundry request's key, or its Entra ID token (one the managed identity emulation issued passes,
 * an expired one never); null when it passes.
 */
export function checkFoundryAuth(
  headers: Record<string, string>,
  opts: ProviderAuthOptions['foundry'] = {},
  tokens: IssuedTokens,
): WireReply | null {
  const denied = (message: string): WireReply => jsonReply(401, { error: { code: '401', message } }, message);
  const key = headers['x-api-key'] ?? headers['api-key'];
  const auth = headers.authorization;
  if (key === undefined && auth === undefined) return opts.acceptUnsigned === false ? denied(AZURE_KEY_DENIED) : null;
  if (key !== undefined) {
    if (key.trim() === '' || /\s/.test(key)) return denied(AZURE_KEY_DENIED);
    return !opts.apiKeys || opts.apiKeys.includes(key) ? null : denied(AZURE_KEY_DENIED);
  }
  const m = /^Bearer (\S+)$/.exec(auth ?? '');
  if (!m || !JWT.test(m[1])) return denied(AZURE_TOKEN_DENIED);
  const state = tokens.state(m[1]);
  if (state !== 'unknown') return state === 'valid' ? null : denied(AZURE_TOKEN_DENIED);
  return !opts.apiKeys || opts.apiKeys.includes(m[1]) ? null : denied(AZURE_TOKEN_DENIED);
}
