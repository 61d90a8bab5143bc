// A Google Compute Engine metadata server on the test server, so that Google's Application Default
// Credentials (google-auth-library, which @anthropic-ai/vertex-sdk uses) run for real in tests: with
// `GCE_METADATA_HOST=127.0.0.1:<port>` gcp-metadata pings `GET /computeMetadata/v1/instance` (its GCE
// detection; the answer must carry `Metadata-Flavor: Google`), then reads
// `instance/service-accounts/default/token` (`{access_token, expires_in, token_type}`) and
// `project/project-id`. Requests must send `Metadata-Flavor: Google`, as on GCE (403 otherwise).
// A test that points ADC here must also keep ADC from finding real credentials first: unset
// GOOGLE_APPLICATION_CREDENTIALS and point CLOUDSDK_CONFIG at an empty directory (test/unit/support/
// providerEnv.ts does all this). gcp-metadata remembers its detection for the whole process, and each
// GoogleAuth keeps its token until it nears expiry: set GCE_METADATA_HOST before the first ADC use.
// Modes: 'ok' issues tokens the Vertex routes accept; 'missing' has no service account (the token path
// answers 404, as on a VM without one); 'expired' issues tokens the Vertex routes answer 401 to.

import type http from 'node:http';
import { base62 } from './scriptedReply';
import type { IssuedTokens } from './providerAuth';

export const METADATA_PREFIX = '/computeMetadata/v1';

/** The project the emulation reports when the options name none. */
export const DEFAULT_VERTEX_PROJECT = 'engram-test-project';

const TOKEN_LIFETIME_SECONDS = 3599;

export interface MetadataState {
  mode: 'ok' | 'missing' | 'expired';
  projectId: string;
  tokens: IssuedTokens;
  /** Paths asked for, in order (tests check ADC really came here). */
  log: string[];
}

/** Answers one metadata request. */
export function handleMetadata(req: http.IncomingMessage, res: http.ServerResponse, state: MetadataState): void {
  const url = new URL(req.url ?? '/', 'http://metadata');
  state.log.push(url.pathname);
  const [status, body, type] = metadataAnswer(req, url, state);
  res.writeHead(status, {
    'metadata-flavor': 'Google',
    'content-type': type,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

type Answer = [status: number, body: string, contentType: string];

function metadataAnswer(req: http.IncomingMessage, url: URL, state: MetadataState): Answer {
  const key = url.pathname.slice(METADATA_PREFIX.length).replace(/^\/+/, '').replace(/\/+$/, '');
  const text = (body: string): Answer => [200, body, 'application/text'];
  const notFound: Answer = [404, 'Not Found', 'text/html'];
  if (req.method !== 'GET') return [405, 'Method Not Allowed', 'text/html'];
  if (req.headers['metadata-flavor'] !== 'Google') {
    return [403, 'Missing required header: "Metadata-Flavor": "Google"', 'text/html'];
  }
  switch (key) {
    case '':
    case 'instance':
      return text('attributes/\nhostname\nid\nservice-accounts/\nzone\n');
    case 'project/project-id':
      return text(state.projectId);
    case 'project/numeric-project-id':
      return text('123456789012');
    case 'universe/universe-domain':
      return text('googleapis.com');
    case 'instance/service-accounts/default/email':
      return state.mode === 'missing' ? notFound : text(`engram-test@${state.projectId}.iam.gserviceaccount.com`);
    case 'instance/service-accounts/default/token': {
      if (state.mode === 'missing') return notFound;
      const token = `ya29.${base62(120)}`;
      state.tokens.issue(token, state.mode === 'expired');
      const body = JSON.stringify({ access_token: token, expires_in: TOKEN_LIFETIME_SECONDS, token_type: 'Bearer' });
      return [200, body, 'application/json'];
    }
    default:
      return notFound;
  }
}
