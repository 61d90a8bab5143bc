// The environment a Claude Code user has for each cloud, pointed at the test server, so that tests run the
// official clients and the clouds' credential chains for real against it (in this process, or in a spawned
// `engram -p`). Each value set to undefined means "unset": the chains must not find the machine's real
// credentials first (AWS profiles and files, a gcloud login, a key file).
//   bedrock  AWS keys in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; the AWS config files point nowhere
//   vertex   Application Default Credentials through the server's GCE metadata emulation (GCE_METADATA_HOST),
//            an empty gcloud configuration (CLOUDSDK_CONFIG), no GOOGLE_APPLICATION_CREDENTIALS
//   foundry  ANTHROPIC_FOUNDRY_API_KEY, or (entra) Azure's chain through the server's managed identity emulation

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Env = Record<string, string | undefined>;

export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface ProviderEnvOptions {
  /** Bedrock: the keys to sign with (give the server the same in `providers.bedrock.credentials`). */
  aws?: AwsKeys;
  /**
   * Bedrock: a named profile (AWS_PROFILE) in a config file written to the empty directory, instead of keys
   * in the environment: `process` gives its keys through `credential_process` (expired when `expiration` is
   * in the past); `ssoExpired` makes it an IAM Identity Center profile whose cached login has run out, so the
   * chain says to run `aws sso login` (HOME moves to the empty directory, where the SSO cache is looked for).
   */
  awsProfile?: { name?: string; process?: AwsKeys & { expiration?: Date }; ssoExpired?: boolean };
  /** Vertex: no Application Default Credentials at all (no metadata server either), as on a laptop never logged in. */
  noAdc?: boolean;
  /** Bedrock and Vertex: CLAUDE_CODE_SKIP_*_AUTH=1 (a gateway adds credentials). */
  skipAuth?: boolean;
  /** Vertex: the project (default the server's metadata default, engram-test-project). */
  projectId?: string;
  /** Bedrock region (default us-east-1); Vertex region (default us-east5). */
  region?: string;
  /** Foundry: the key (default a test key the server accepts unless `providers.foundry.apiKeys` says else). */
  foundryKey?: string;
  /**
   * Foundry: sign in with Entra ID through Azure's credential chain instead of a key; its managed identity
   * source gets tokens from the server's App Service identity emulation (IDENTITY_ENDPOINT, IDENTITY_HEADER).
   */
  entra?: boolean;
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
const CLEARED_AZURE = [
  'AZURE_CLIENT_ID',
  'AZURE_TENANT_ID',
  'AZURE_CLIENT_SECRET',
  'AZURE_CLIENT_CERTIFICATE_PATH',
  'AZURE_USERNAME',
  'AZURE_FEDERATED_TOKEN_FILE',
  'MSI_ENDPOINT',
  'MSI_SECRET',
  'IDENTITY_SERVER_THUMBPRINT',
  'IMDS_ENDPOINT',
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
    if (opts.awsProfile) Object.assign(env, awsProfileEnv(opts.awsProfile, empty));
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
    if (opts.noAdc) {
      env.GCE_METADATA_HOST = undefined;
      env.METADATA_SERVER_DETECTION = 'none';
    }
    if (opts.skipAuth) env.CLAUDE_CODE_SKIP_VERTEX_AUTH = '1';
  } else {
    Object.assign(env, {
      CLAUDE_CODE_USE_FOUNDRY: '1',
      ANTHROPIC_FOUNDRY_BASE_URL: `${server.url}/anthropic`,
      ANTHROPIC_FOUNDRY_API_KEY: opts.entra ? undefined : (opts.foundryKey ?? 'engram-foundry-test-key'),
      ANTHROPIC_FOUNDRY_RESOURCE: undefined,
    });
    if (opts.entra) {
      // The chain's environment and workload identity sources come first: they must find nothing.
      for (const k of CLEARED_AZURE) env[k] = undefined;
      env.IDENTITY_ENDPOINT = `${server.url}/msi/token`;
      env.IDENTITY_HEADER = 'engram-test-identity-header';
      env.AZURE_CONFIG_DIR = empty; // an Azure CLI, if installed, finds no login
    }
  }
  return env;
}

const SSO_SESSION = 'engram-test';

/** Writes the AWS config file for `profile` into `dir`; the environment that selects it. */
function awsProfileEnv(profile: NonNullable<ProviderEnvOptions['awsProfile']>, dir: string): Env {
  const name = profile.name ?? 'engram-test';
  const lines = [`[profile ${name}]`, 'region = us-east-1'];
  const env: Env = { AWS_PROFILE: name, AWS_ACCESS_KEY_ID: undefined, AWS_SECRET_ACCESS_KEY: undefined };
  if (profile.process) {
    const { accessKeyId, secretAccessKey, sessionToken, expiration } = profile.process;
    const output = path.join(dir, 'aws-process-output.json');
    const body = { Version: 1, AccessKeyId: accessKeyId, SecretAccessKey: secretAccessKey, SessionToken: sessionToken };
    fs.writeFileSync(output, JSON.stringify({ ...body, Expiration: expiration?.toISOString() }));
    const script = "process.stdout.write(require('fs').readFileSync(process.argv[1], 'utf8'))";
    lines.push(`credential_process = "${process.execPath}" -e "${script}" "${output}"`);
  }
  if (profile.ssoExpired) {
    const startUrl = 'https://engram-test.awsapps.com/start';
    lines.push(`sso_session = ${SSO_SESSION}`, 'sso_account_id = 123456789012', 'sso_role_name = EngramTest', '');
    lines.push(`[sso-session ${SSO_SESSION}]`, `sso_start_url = ${startUrl}`, 'sso_region = us-east-1');
    // The SDK finds the login at ~/.aws/sso/cache/<sha1 of the session name>.json.
    const cache = path.join(dir, '.aws', 'sso', 'cache');
    fs.mkdirSync(cache, { recursive: true });
    const file = `${createHash('sha1').update(SSO_SESSION).digest('hex')}.json`;
    const token = { accessToken: 'expired', expiresAt: '2020-01-01T00:00:00Z', region: 'us-east-1', startUrl };
    fs.writeFileSync(path.join(cache, file), JSON.stringify(token));
    env.HOME = dir;
    env.USERPROFILE = dir;
  }
  fs.writeFileSync(path.join(dir, 'aws-config'), `${lines.join('\n')}\n`);
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
