// `engram -p` on a cloud provider, at the edges: `--provider` beats Claude Code's environment, a name
// that is not a provider or a setup that cannot work stops the run (exit 2) with the fix, a throttled
// first request is retried and succeeds, an expired credential names the provider and the command that
// logs in again (exit 1), and a gateway run (CLAUDE_CODE_SKIP_*_AUTH) goes unsigned. Child processes
// against the test server, with a Claude Code user's environment; usage errors in this process.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runEngram, runEngramInProcess, type CliRun } from '../support/cliProcess';
import { cliProviderEnv, TEST_AWS, WIRE_PATH } from '../support/cliProviders';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const EXPIRED_KEY_ID = 'AKIDENGRAMEXPIRED001';
const server = useTestServer({
  providers: {
    bedrock: {
      credentials: [
        TEST_AWS,
        { accessKeyId: EXPIRED_KEY_ID, secretAccessKey: TEST_AWS.secretAccessKey, expired: true },
      ],
    },
  },
});
const tempDir = useTempDirs('all');
let root: string;
let cwd: string;

before(() => {
  root = tempDir('engram-provider-choice-');
  cwd = path.join(root, 'ws');
  fs.mkdirSync(cwd);
});

function engram(args: string[], env: Record<string, string>): Promise<CliRun> {
  return runEngram(['-p', 'hello', '--cwd', cwd, ...args], {
    home: root,
    env: { ENGRAM_DATA_DIR: path.join(root, 'data'), ...env },
  });
}

/** A Claude Code user's environment for `provider`, pointed at the test server. */
function cloud(provider: 'bedrock' | 'vertex' | 'foundry'): Record<string, string> {
  return cliProviderEnv(provider, server, { emptyDir: root });
}

const answer = { content: [{ type: 'text' as const, text: 'hi' }] };

describe('choosing the provider', () => {
  it('--provider bedrock beats CLAUDE_CODE_USE_VERTEX in the environment', async () => {
    server.enqueue(answer);
    const first = server.requests.length;
    const run = await engram(['--provider', 'bedrock', '--verbose'], {
      ...cloud('vertex'),
      ...cloud('bedrock'),
      CLAUDE_CODE_USE_BEDROCK: '',
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'hi\n');
    assert.match(run.stderr, /provider bedrock \(from --provider\): region us-west-2/);
    const sent = server.requests.slice(first);
    assert.equal(sent.length, 1);
    assert.match(sent[0].path, WIRE_PATH.bedrock);
    assert.doesNotMatch(run.stderr, new RegExp(TEST_AWS.secretAccessKey), 'no secret in the log line');
  });

  it('a name that is not a provider exits 2 naming the valid ones', async () => {
    const run = await runEngramInProcess(['-p', 'hello', '--provider', 'azure'], { cwd, env: {} });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /"azure".*anthropic, bedrock, vertex, foundry/);
    const empty = await runEngramInProcess(['-p', 'hello', '--provider', ' '], { cwd, env: {} });
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /--provider needs a name/);
  });

  it('Vertex AI without a project exits 2 with the variable that fixes it, before any request', async () => {
    const first = server.requests.length;
    const run = await runEngramInProcess(['-p', 'hello'], {
      cwd,
      env: { CLAUDE_CODE_USE_VERTEX: '1', CLOUD_ML_REGION: 'us-east5', ANTHROPIC_VERTEX_BASE_URL: `${server.url}/v1` },
    });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /ANTHROPIC_VERTEX_PROJECT_ID/);
    assert.equal(server.requests.length, first);
  });

  it('a cloud provider needs no ANTHROPIC_API_KEY; the settings file can choose it too', async () => {
    const settings = path.join(root, 'bedrock.json');
    fs.writeFileSync(settings, JSON.stringify({ 'engram.provider': 'bedrock', 'engram.bedrock.region': 'eu-west-1' }));
    server.enqueue(answer);
    const first = server.requests.length;
    const { CLAUDE_CODE_USE_BEDROCK: _, AWS_REGION: __, ...env } = cloud('bedrock');
    const run = await engram(['--settings', settings, '--verbose'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /provider bedrock \(from engram\.provider\): region eu-west-1/);
    assert.match(server.requests[first].headers.authorization ?? '', /\/eu-west-1\/bedrock\/aws4_request/);
  });
});

describe('the model on a cloud provider', () => {
  it("Claude Code's ANTHROPIC_MODEL is sent as it is (an inference profile id); --model beats it", async () => {
    const profile = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
    server.enqueue(answer, answer);
    const first = server.requests.length;
    const env = { ...cloud('bedrock'), ANTHROPIC_MODEL: profile };
    assert.equal((await engram([], env)).code, 0);
    assert.equal((await engram(['--model', 'claude-haiku-4-5'], env)).code, 0);
    const [fromEnv, fromFlag] = server.requests.slice(first);
    assert.match(fromEnv.path, WIRE_PATH.bedrock);
    assert.equal(fromEnv.model, profile);
    assert.equal(
      fromFlag.model,
      'us.anthropic.claude-haiku-4-5-20251001-v1:0',
      'the Anthropic name, as Bedrock names it',
    );
  });
});

describe("each cloud's own credential chain", () => {
  /** Bedrock credentials only from profile `dev` (~/.aws/config), whose credential_process prints `keys`. */
  const profileEnv = (keys: { accessKeyId: string; secretAccessKey: string }) =>
    cliProviderEnv('bedrock', server, { emptyDir: tempDir('engram-aws-'), awsProfile: { name: 'dev', process: keys } });

  it('Bedrock: AWS_PROFILE with a credential_process (as vault setups have) signs the requests', async () => {
    server.enqueue(answer);
    const first = server.requests.length;
    const run = await engram(['--verbose'], profileEnv(TEST_AWS));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /credentials: AWS profile dev/);
    const sent = server.requests[first];
    assert.equal(sent.status, 200, sent.error);
    assert.match(sent.headers.authorization ?? '', new RegExp(`Credential=${TEST_AWS.accessKeyId}/`));
  });

  it("Bedrock: the profile's expired keys name the command with the profile, aws sso login --profile dev", async () => {
    const run = await engram([], profileEnv({ ...TEST_AWS, accessKeyId: EXPIRED_KEY_ID }));
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /Amazon Bedrock: the AWS credentials have expired/);
    assert.match(run.stderr, /aws sso login --profile dev/);
  });

  it('Bedrock: an SSO profile whose login ran out says to run aws sso login, before any request', async () => {
    const first = server.requests.length;
    const env = cliProviderEnv('bedrock', server, {
      emptyDir: tempDir('engram-aws-sso-'),
      awsProfile: { name: 'work', ssoExpired: true },
    });
    const run = await engram([], env);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /Amazon Bedrock: .*aws sso login --profile work/);
    assert.equal(server.requests.length, first, 'nothing was sent unsigned');
  });

  it('Vertex AI: no Application Default Credentials says to run gcloud auth application-default login', async () => {
    const first = server.requests.length;
    const run = await engram(
      [],
      cliProviderEnv('vertex', server, { emptyDir: tempDir('engram-gcloud-'), noAdc: true }),
    );
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      /Google Vertex AI: no Google credentials were found.*gcloud auth application-default login/,
    );
    assert.equal(server.requests.length, first);
  });

  it("Foundry without an API key signs in with Azure's credential chain (a managed identity)", async () => {
    server.enqueue(answer);
    const first = server.requests.length;
    const env = cliProviderEnv('foundry', server, { emptyDir: tempDir('engram-azure-'), entra: true });
    const run = await engram(['--verbose'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /credentials: Azure's credential chain/);
    const sent = server.requests[first];
    assert.match(sent.path, WIRE_PATH.foundry);
    assert.match(sent.headers.authorization ?? '', /^Bearer eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal(sent.headers['x-api-key'], undefined);
  });
});

describe("the cloud's secrets", () => {
  it('a tool result that shows the AWS secret key or the Foundry key reaches the model redacted', async () => {
    const file = path.join(cwd, 'leak.txt');
    for (const provider of ['bedrock', 'foundry'] as const) {
      const env = cloud(provider);
      const secret = provider === 'bedrock' ? env.AWS_SECRET_ACCESS_KEY : env.ANTHROPIC_FOUNDRY_API_KEY;
      assert.ok(secret);
      fs.writeFileSync(file, `the words are ${secret} and more\n`);
      server.enqueue(
        { content: [{ type: 'tool_use', id: 'toolu_leak', name: 'Read', input: { file_path: file } }] },
        answer,
      );
      const first = server.requests.length;
      const run = await engram([], env);
      assert.equal(run.code, 0, run.stderr);
      const result = JSON.stringify(server.requests[first + 1].body.messages.at(-1));
      assert.ok(result.includes('the words are'), 'the file was read');
      assert.equal(result.includes(secret), false, `${provider}: the secret was redacted`);
    }
  });
});

describe('errors on a cloud provider', () => {
  for (const provider of ['bedrock', 'vertex'] as const) {
    it(`${provider}: a throttled first request is retried and the run succeeds`, async () => {
      server.enqueue(
        { error: { status: 429, type: 'rate_limit_error', message: 'Too many requests', retryAfterSeconds: 0 } },
        answer,
      );
      const first = server.requests.length;
      const run = await engram([], cloud(provider));
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'hi\n');
      assert.match(run.stderr, /Retrying in/);
      const sent = server.requests.slice(first);
      assert.deepEqual(
        sent.map((r) => r.status),
        [429, 200],
      );
      for (const r of sent) assert.match(r.path, WIRE_PATH[provider]);
    });
  }

  it('bedrock: an expired credential names the provider and the command that logs in, exit 1', async () => {
    const run = await engram([], { ...cloud('bedrock'), AWS_ACCESS_KEY_ID: EXPIRED_KEY_ID });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /Bedrock/);
    assert.match(run.stderr, /expired/i);
    assert.match(run.stderr, /aws sso login|aws configure/);
    assert.doesNotMatch(run.stderr, new RegExp(TEST_AWS.secretAccessKey));
  });

  it('vertex: an expired token names the provider and gcloud auth application-default login, exit 1', async () => {
    server.setVertexMetadata('expired');
    try {
      const run = await engram([], cloud('vertex'));
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /Vertex/);
      assert.match(run.stderr, /gcloud auth application-default login/);
    } finally {
      server.setVertexMetadata('ok');
    }
  });
});

describe('a gateway that adds the credentials itself', () => {
  for (const [provider, variable] of [
    ['bedrock', 'CLAUDE_CODE_SKIP_BEDROCK_AUTH'],
    ['vertex', 'CLAUDE_CODE_SKIP_VERTEX_AUTH'],
  ] as const) {
    it(`${provider} with ${variable}=1 sends no Authorization header and looks for no credentials`, async () => {
      server.enqueue(answer);
      const first = server.requests.length;
      const metadataBefore = server.metadataRequests.length;
      // No credentials at all: a gateway run must not need them.
      const env = cliProviderEnv(provider, server, { skipAuth: true, emptyDir: root });
      assert.equal(env[variable], '1');
      assert.equal(env.AWS_ACCESS_KEY_ID, undefined);
      const run = await engram([], env);
      assert.equal(run.code, 0, run.stderr);
      const sent = server.requests.slice(first);
      assert.equal(sent.length, 1);
      assert.match(sent[0].path, WIRE_PATH[provider]);
      assert.equal(sent[0].headers.authorization, undefined);
      assert.equal(server.metadataRequests.length, metadataBefore, 'no token was asked for');
    });
  }
});
