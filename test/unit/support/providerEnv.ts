// The environment a Claude Code user has for each cloud, pointed at the test server, so that tests run the
// official clients and the clouds' credential chains for real against it (in this process, or in a spawned
// `engram -p`). Each value set to undefined means "unset": the chains must not find the machine's real
// credentials first (AWS profiles and files, a gcloud login, a key file).
//   bedrock  AWS keys in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; the AWS config files point nowhere
//   vertex   Application Default Credentials through the server's GCE metadata emulation (GCE_METADATA_HOST),
//            an empty gcloud configuration (CLOUDSDK_CONFIG), no GOOGLE_APPLICATION_CREDENTIALS
//   foundry  ANTHROPIC_FOUNDRY_API_KEY

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Env = Record<string, string | undefined>;

export interface ProviderEnvOptions {
  /** Bedrock: the keys to sign with (give the server the same in `providers.bedrock.credentials`). */
  aws?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Bedrock and Vertex: CLAUDE_CODE_SKIP_*_AUTH=1 (a gateway adds credentials). */
  skipAuth?: boolean;
  /** Vertex: the project (default the server's metadata default, engram-test-project). */
  projectId?: string;
  /** Bedrock region (default us-east-1); Vertex region (default us-east5). */
  region?: string;
  /** Foundry: the key (default a test key the server accepts unless `providers.foundry.apiKeys` says else). */
  foundryKey?: string;
  /** An empty directory for the gcloud configuration and AWS files (default: a new temp directory). */
  emptyDir?: string;
}

const CLEARED_AWS = ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK', 'AWS_DEFAULT_REGION'];
const CLEARED_GOOGLE = [
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GCLOUD_PROJECT',
  'GCE_METADATA_IP',
  'METADATA_SERVER_DETECTION',
];
const CLEARED_USE = ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY'];

/** The environment variables for `provider` against the test server at `server` (url and port). */
export function providerEnv(
  provider: 'bedrock' | 'vertex' | 'foundry',
  server: { url: string; port: number },
  opts: ProviderEnvOptions = {},
): Env {
  const env: Env = {};
  for (const k of CLEARED_USE) env[k] = undefined;
  const empty = opts.emptyDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'engram-cloud-env-'));
  if (provider === 'bedrock') {
    for (const k of CLEARED_AWS) env[k] = undefined;
    Object.assign(env, {
      CLAUDE_CODE_USE_BEDROCK: '1',
      ANTHROPIC_BEDROCK_BASE_URL: server.url,
      AWS_REGION: opts.region ?? 'us-east-1',
      AWS_ACCESS_KEY_ID: opts.aws?.accessKeyId,
      AWS_SECRET_ACCESS_KEY: opts.aws?.secretAccessKey,
      AWS_SESSION_TOKEN: opts.aws?.sessionToken,
      AWS_CONFIG_FILE: path.join(empty, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(empty, 'aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    if (opts.skipAuth) env.CLAUDE_CODE_SKIP_BEDROCK_AUTH = '1';
  } else if (provider === 'vertex') {
    for (const k of CLEARED_GOOGLE) env[k] = undefined;
    const project = opts.projectId ?? 'engram-test-project';
    Object.assign(env, {
      CLAUDE_CODE_USE_VERTEX: '1',
      ANTHROPIC_VERTEX_BASE_URL: `${server.url}/v1`,
      CLOUD_ML_REGION: opts.region ?? 'us-east5',
      ANTHROPIC_VERTEX_PROJECT_ID: project,
      // google-auth-library looks for a project too; naming it spares a `gcloud` lookup per client.
      GOOGLE_CLOUD_PROJECT: project,
      GCE_METADATA_HOST: `127.0.0.1:${server.port}`,
      CLOUDSDK_CONFIG: empty,
    });
    if (opts.skipAuth) env.CLAUDE_CODE_SKIP_VERTEX_AUTH = '1';
  } else {
    Object.assign(env, {
      CLAUDE_CODE_USE_FOUNDRY: '1',
      ANTHROPIC_FOUNDRY_BASE_URL: `${server.url}/anthropic`,
      ANTHROPIC_FOUNDRY_API_KEY: opts.foundryKey ?? 'engram-foundry-test-key',
      ANTHROPIC_FOUNDRY_RESOURCE: undefined,
    });
  }
  return env;
}

/** Sets `env` on process.env (undefined unsets); returns a function that puts every value back. */
export function applyEnv(env: Env): () => void {
  const saved = new Map(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  return () => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}
