// What each cloud's failures become: credentials the real chains cannot find (AWS, Google, Azure, run for
// real against empty configuration), and error answers over real HTTP from a plain server speaking each
// cloud's error shape, read by the official clients. Each message names the provider and the fix.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import {
  AuthError,
  ConnectionError,
  InvalidRequestError,
  type ModelError,
  OverloadedError,
  PromptTooLongError,
  RateLimitError,
} from '../../../src/core/llm/errors';
import type { ModelRequest } from '../../../src/core/llm/modelClient';
import type { ProviderConfig } from '../../../src/core/llm/providerTypes';

const request: ModelRequest = {
  model: 'claude-sonnet-4-6',
  maxTokens: 100,
  system: [],
  tools: [],
  messages: [{ role: 'user', content: 'hi' }],
};

async function failure(provider: ProviderConfig, req: ModelRequest = request): Promise<ModelError> {
  const client = new AnthropicModelClient({ apiKey: undefined, baseUrl: '', provider });
  try {
    await client.stream(req, {}, new AbortController().signal);
  } catch (e) {
    return e as ModelError;
  }
  throw new Error('the request did not fail');
}

describe('credentials the cloud chains cannot find', () => {
  const saved = { ...process.env };
  let home: string;
  before(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-creds-'));
    for (const k of Object.keys(process.env))
      if (/^(AWS_|GOOGLE_|GCLOUD_|CLOUDSDK_|AZURE_|IDENTITY_|MSI_)/.test(k)) delete process.env[k];
    Object.assign(process.env, {
      HOME: home,
      AWS_CONFIG_FILE: path.join(home, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: path.join(home, 'aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
      METADATA_SERVER_DETECTION: 'none',
      AZURE_TOKEN_CREDENTIALS: 'EnvironmentCredential',
    });
    // An SSO profile whose cached token expired a while ago, as `aws sso login` leaves it.
    fs.writeFileSync(
      path.join(home, 'aws-config'),
      '[profile work]\nsso_session = corp\nsso_account_id = 111122223333\nsso_role_name = dev\nregion = us-east-1\n' +
        '[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\n',
    );
    const cache = path.join(home, '.aws', 'sso', 'cache');
    fs.mkdirSync(cache, { recursive: true });
    fs.writeFileSync(
      path.join(cache, `${crypto.createHash('sha1').update('corp').digest('hex')}.json`),
      JSON.stringify({ accessToken: 'old', expiresAt: '2020-01-01T00:00:00Z', region: 'us-east-1' }),
    );
  });
  after(() => {
    process.env = saved;
    fs.rmSync(home, { recursive: true, force: true });
  });
  const nowhere = 'http://127.0.0.1:9';

  it('Amazon Bedrock: no credentials anywhere says to log in or configure', async () => {
    const e = await failure({ id: 'bedrock', region: 'us-east-1', profile: 'dev', baseUrl: nowhere, skipAuth: false });
    assert.ok(e instanceof AuthError, e.message);
    assert.match(
      e.message,
      /^Amazon Bedrock: no AWS credentials were found .*`aws sso login --profile dev`.*aws configure/,
    );
  });

  it('Amazon Bedrock: an expired SSO session says to log in again', async () => {
    const e = await failure({ id: 'bedrock', region: 'us-east-1', profile: 'work', baseUrl: nowhere, skipAuth: false });
    assert.ok(e instanceof AuthError, e.message);
    assert.match(e.message, /^Amazon Bedrock: the AWS credentials have expired .*`aws sso login --profile work`/);
  });

  it('Google Vertex AI: no Application Default Credentials says to run gcloud', async () => {
    const e = await failure({
      id: 'vertex',
      region: 'global',
      projectId: 'p',
      baseUrl: `${nowhere}/v1`,
      skipAuth: false,
    });
    assert.ok(e instanceof AuthError, e.message);
    assert.match(e.message, /^Google Vertex AI: no Google credentials .*`gcloud auth application-default login`/);
  });

  it('Microsoft Foundry: no Azure credential says to set the key or run az login', async () => {
    const e = await failure({ id: 'foundry', baseUrl: `${nowhere}/anthropic`, skipAuth: false });
    assert.ok(e instanceof AuthError, e.message);
    assert.match(e.message, /^Microsoft Foundry: no Azure credentials .*ANTHROPIC_FOUNDRY_API_KEY.*`az login`/);
  });
});

/** A plain HTTP server answering every request with the next canned error. */
interface Canned {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

describe("each cloud's error answers", () => {
  let server: http.Server;
  let base: string;
  const queue: Canned[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const next = queue.shift() ?? { status: 500, body: { message: 'no canned answer' } };
        res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
        res.end(JSON.stringify(next.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const bedrock = (): ProviderConfig => ({ id: 'bedrock', region: 'us-west-2', baseUrl: base, skipAuth: true });
  const vertex = (): ProviderConfig => ({
    id: 'vertex',
    region: 'us-east5',
    projectId: 'proj',
    baseUrl: `${base}/v1`,
    skipAuth: true,
  });
  const foundry = (): ProviderConfig => ({
    id: 'foundry',
    baseUrl: `${base}/anthropic`,
    apiKey: 'foundry-key-0123456789abcdef',
    skipAuth: false,
  });
  const aws = (type: string, status: number, message: string): Canned => ({
    status,
    body: { message },
    headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
  });
  const google = (code: number, status: string, message: string): Canned => ({
    status: code,
    body: { error: { code, message, status } },
  });

  it('Bedrock throttling is a rate limit, retried; a busy service is overloaded', async () => {
    queue.push(aws('ThrottlingException', 429, 'Too many requests, please wait before trying again.'));
    const e = await failure(bedrock());
    assert.ok(e instanceof RateLimitError && e.retryable, e.message);
    assert.match(e.message, /^Amazon Bedrock is limiting requests/);
    queue.push(aws('ServiceUnavailableException', 503, 'Service unavailable.'));
    const busy = await failure(bedrock());
    assert.ok(busy instanceof OverloadedError && busy.retryable, busy.message);
  });

  it('a too long prompt on Bedrock starts reactive compaction', async () => {
    queue.push(aws('ValidationException', 400, 'prompt is too long: 250000 tokens > 200000 maximum'));
    const e = await failure(bedrock());
    assert.ok(e instanceof PromptTooLongError, e.message);
    assert.equal(e.promptTokens, 250_000);
    queue.push(aws('ValidationException', 400, 'Input is too long for requested model.'));
    assert.ok((await failure(bedrock())) instanceof PromptTooLongError);
  });

  it('a model id Bedrock does not take is named, with how to choose another', async () => {
    queue.push(aws('ValidationException', 400, 'The provided model identifier is invalid.'));
    const e = await failure(bedrock());
    assert.ok(e instanceof InvalidRequestError, e.message);
    assert.match(e.message, /"us\.anthropic\.claude-sonnet-4-6" in us-west-2/);
    assert.match(e.message, /Engram: Choose Model/);
  });

  it('rejected or expired AWS credentials say what to run, never a bare 403, and no signature', async () => {
    queue.push(aws('UnrecognizedClientException', 403, 'The security token included in the request is invalid.'));
    const rejected = await failure(bedrock());
    assert.ok(rejected instanceof AuthError, rejected.message);
    assert.match(rejected.message, /^Amazon Bedrock: AWS did not accept the credentials .*aws sso login/);
    queue.push(aws('ExpiredTokenException', 403, 'The security token included in the request is expired'));
    assert.match((await failure(bedrock())).message, /^Amazon Bedrock: the AWS credentials have expired/);
    queue.push(
      aws(
        'InvalidSignatureException',
        403,
        'The request signature we calculated does not match. Authorization: AWS4-HMAC-SHA256 ' +
          'Credential=AKIAIOSFODNN7EXAMPLE/20261205/us-west-2/bedrock/aws4_request, Signature=0123abcd4567ef',
      ),
    );
    const signed = await failure(bedrock());
    assert.ok(signed instanceof AuthError);
    assert.doesNotMatch(signed.message, /AKIAIOSFODNN7EXAMPLE|0123abcd4567ef/);
    queue.push(aws('AccessDeniedException', 403, "You don't have access to the model with the specified model ID."));
    assert.match(
      (await failure(bedrock())).message,
      /^Amazon Bedrock: the account may not use this model.*Model access/,
    );
  });

  it('Vertex quota errors are rate limits; bad credentials and unknown models say what to do', async () => {
    queue.push(google(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for aiplatform.googleapis.com/online_prediction'));
    const quota = await failure(vertex());
    assert.ok(quota instanceof RateLimitError, quota.message);
    assert.match(quota.message, /Google Vertex AI is limiting requests.*project proj/);
    queue.push(google(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'));
    const auth = await failure(vertex());
    assert.ok(auth instanceof AuthError, auth.message);
    assert.match(auth.message, /gcloud auth application-default login/);
    queue.push(google(404, 'NOT_FOUND', 'Publisher Model `claude-opus-4-1@20250805` was not found.'));
    const model = await failure(vertex(), { ...request, model: 'claude-opus-4-1' });
    assert.ok(model instanceof InvalidRequestError, model.message);
    assert.match(model.message, /Google Vertex AI did not accept the model id "claude-opus-4-1@20250805" in us-east5/);
  });

  it('Foundry: a refused key says how to fix it and never shows the key', async () => {
    queue.push({
      status: 401,
      body: { error: { code: '401', message: 'Access denied due to invalid subscription key.' } },
    });
    const e = await failure(foundry());
    assert.ok(e instanceof AuthError, e.message);
    assert.match(e.message, /^Microsoft Foundry: .*ANTHROPIC_FOUNDRY_API_KEY.*az login/);
    assert.doesNotMatch(e.message, /foundry-key-0123456789abcdef/);
  });

  it('a server that cannot be reached names the provider variable to check', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = http.createServer().listen(0, '127.0.0.1', () => {
        const port = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(port));
      });
    });
    const e = await failure({
      id: 'bedrock',
      region: 'eu-west-1',
      baseUrl: `http://127.0.0.1:${closed}`,
      skipAuth: true,
    });
    assert.ok(e instanceof ConnectionError, e.message);
    assert.match(e.message, /ANTHROPIC_BEDROCK_BASE_URL/);
    const v = await failure({ ...(vertex() as object), baseUrl: `http://127.0.0.1:${closed}/v1` } as ProviderConfig);
    assert.match(v.message, /ANTHROPIC_VERTEX_BASE_URL/);
  });
});
