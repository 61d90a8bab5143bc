// The test server's Google Vertex AI routes driven by the official @anthropic-ai/vertex-sdk over HTTP, with
// Google's Application Default Credentials running for real against the server's GCE metadata emulation.

import {
  APIConnectionError,
  APIError,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer } from '../../../src/testServer/anthropicTestServer';
import { applyEnv, providerEnv } from '../support/providerEnv';
import { useTestServer } from '../support/testServerFixture';

const MODEL = 'claude-sonnet-4-5@20250929';
const REGION = 'us-east5';
const PROJECT = 'engram-vertex-test';
const STATIC_TOKEN = 'ya29.engram-static-test-token';

const server = useTestServer({ providers: { vertex: { projectId: PROJECT, tokens: [STATIC_TOKEN] } } });

let restoreEnv: () => void;

before(async () => {
  await server.ready();
  // ADC finds nothing before the metadata emulation: no key file, an empty gcloud configuration.
  restoreEnv = applyEnv(providerEnv('vertex', server, { projectId: PROJECT, region: REGION }));
});

after(() => restoreEnv());

/** A client on Application Default Credentials (the metadata emulation), or with the given auth client. */
const adcClient = (opts: Record<string, unknown> = {}) =>
  new AnthropicVertex({ baseURL: `${server.url}/v1`, region: REGION, projectId: PROJECT, maxRetries: 0, ...opts });

/** An auth client that hands out a fixed header set, as a gateway setup (CLAUDE_CODE_SKIP_VERTEX_AUTH) does. */
const fixedAuth = (headers: Record<string, string>) => ({
  authClient: { getRequestHeaders: async () => new Headers(headers), projectId: PROJECT } as never,
});

const ask = (text: string) => ({
  model: MODEL,
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: text }],
});

async function expectError<T extends APIError>(
  p: Promise<unknown>,
  cls: new (...args: never[]) => T,
  status: number,
  message: string,
): Promise<T> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${String(err)}`);
    assert.equal(err.status, status);
    assert.equal(err.apiMessage ?? (err.error as { message?: string }).message, message);
    return err;
  }
  throw new Error('expected the request to fail');
}

describe('Vertex: a tool turn with Application Default Credentials', () => {
  it('gets a token from the metadata server, streams a tool_use, then takes its tool_result', async () => {
    server.enqueue(
      { content: [{ type: 'tool_use', id: 'toolu_01V', name: 'Read', input: { path: 'a.txt' } }] },
      { content: [{ type: 'text', text: 'It says alpha.' }] },
    );
    const client = adcClient();
    const tools = [
      { name: 'Read', description: 'read a file', input_schema: { type: 'object' as const, properties: {} } },
    ];
    const first = await client.messages.stream({ ...ask('read a.txt'), tools }).finalMessage();
    assert.equal(first.stop_reason, 'tool_use');
    assert.match(first.id, /^msg_vrtx_01/);
    const second = await client.messages
      .stream({
        ...ask('read a.txt'),
        tools,
        messages: [
          { role: 'user', content: 'read a.txt' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01V', content: 'alpha' }] },
        ],
      })
      .finalMessage();
    assert.deepEqual(second.content, [{ type: 'text', text: 'It says alpha.' }]);

    assert.ok(server.metadataRequests.includes('/computeMetadata/v1/instance/service-accounts/default/token'));
    const [a] = server.requests.slice(-2);
    assert.equal(a.provider, 'vertex');
    assert.equal(a.model, MODEL);
    assert.equal(
      a.path,
      `/v1/projects/${PROJECT}/locations/${REGION}/publishers/anthropic/models/${MODEL}:streamRawPredict`,
    );
    assert.equal('model' in a.body, false);
    assert.match(a.headers.authorization, /^Bearer ya29\./);
  });

  it('answers rawPredict with the JSON message and count-tokens with input_tokens', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'not streamed' }] });
    const client = adcClient();
    const message = await client.messages.create(ask('hi'));
    assert.deepEqual(message.content, [{ type: 'text', text: 'not streamed' }]);
    assert.match(server.requests.at(-1)?.path ?? '', /:rawPredict$/);
    const count = await client.messages.countTokens({
      model: MODEL,
      messages: [{ role: 'user', content: 'count me' }],
    });
    assert.equal(count.input_tokens, 2);
    const logged = server.counts.at(-1);
    assert.equal(
      logged?.path,
      `/v1/projects/${PROJECT}/locations/${REGION}/publishers/anthropic/models/count-tokens:rawPredict`,
    );
    assert.equal(logged?.body.model, MODEL);
    assert.equal(logged?.provider, 'vertex');
  });

  it('accepts requests without credentials in gateway mode (the default)', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'via gateway' }] });
    const message = await adcClient(fixedAuth({})).messages.create(ask('hi'));
    assert.deepEqual(message.content, [{ type: 'text', text: 'via gateway' }]);
    assert.equal(server.requests.at(-1)?.headers.authorization, undefined);
  });
});

describe('Vertex: what it rejects', () => {
  const invalidCredentials =
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

  it('refuses a token it did not issue with Google 401 UNAUTHENTICATED', async () => {
    const err = await expectError(
      adcClient(fixedAuth({ authorization: 'Bearer ya29.not-issued' })).messages.create(ask('hi')),
      AuthenticationError,
      401,
      invalidCredentials,
    );
    assert.equal((err.error as { error: { status: string } }).error.status, 'UNAUTHENTICATED');
  });

  it('refuses a token after it expired, and metadata tokens issued expired', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'fine' }] });
    const client = adcClient();
    await client.messages.create(ask('hi'));
    server.expireVertexTokens();
    await expectError(client.messages.create(ask('hi')), AuthenticationError, 401, invalidCredentials);
    server.setVertexMetadata('expired');
    try {
      await expectError(adcClient().messages.create(ask('hi')), AuthenticationError, 401, invalidCredentials);
    } finally {
      server.setVertexMetadata('ok');
    }
  });

  it('fails to get credentials when the metadata server has no service account', async () => {
    server.setVertexMetadata('missing');
    try {
      await adcClient().messages.create(ask('hi'));
      assert.fail('expected the request to fail');
    } catch (err) {
      assert.ok(err instanceof APIConnectionError, String(err));
      assert.equal(err.message, 'Failed to acquire Google OAuth credentials.');
      assert.match(
        String((err.cause as Error).message),
        /A Not Found error was returned while attempting to retrieve an access/,
      );
    } finally {
      server.setVertexMetadata('ok');
    }
  });

  it('says there are no default credentials when ADC finds none', async () => {
    const restoreNone = applyEnv(providerEnv('vertex', server, { projectId: PROJECT, region: REGION, noAdc: true }));
    try {
      await adcClient().messages.create(ask('hi'));
      assert.fail('expected the request to fail');
    } catch (err) {
      assert.ok(err instanceof APIConnectionError, String(err));
      assert.match(String((err.cause as Error).message), /^Could not load the default credentials/);
    } finally {
      restoreNone();
    }
  });

  it('refuses a request without credentials when gateway mode is off', async () => {
    const strict = await startTestServer({ providers: { vertex: { acceptUnsigned: false } } });
    try {
      const client = new AnthropicVertex({
        baseURL: `${strict.url}/v1`,
        region: REGION,
        maxRetries: 0,
        ...fixedAuth({}),
      });
      await expectError(
        client.messages.create(ask('hi')),
        AuthenticationError,
        401,
        'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      );
    } finally {
      await strict.close();
    }
  });

  it('takes any token but a known expired one when told to accept any (the standalone server does)', async () => {
    const lenient = await startTestServer({
      providers: { vertex: { acceptAnyToken: true, expiredTokens: ['ya29.old'] } },
    });
    try {
      lenient.enqueue({ content: [{ type: 'text', text: 'any token' }] });
      const at = (token: string) =>
        new AnthropicVertex({
          baseURL: `${lenient.url}/v1`,
          region: REGION,
          maxRetries: 0,
          ...fixedAuth({ authorization: `Bearer ${token}` }),
        });
      const message = await at('ya29.from-a-real-gcloud-login').messages.create(ask('hi'));
      assert.deepEqual(message.content, [{ type: 'text', text: 'any token' }]);
      await expectError(at('ya29.old').messages.create(ask('hi')), AuthenticationError, 401, invalidCredentials);
    } finally {
      await lenient.close();
    }
  });

  it('refuses another project with 403 and an unknown model with 404, in Google shapes', async () => {
    await expectError(
      adcClient({ projectId: 'someone-else' }).messages.create(ask('hi')),
      PermissionDeniedError,
      403,
      `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/someone-else/locations/${REGION}/publishers/anthropic/models/${MODEL}' (or it may not exist).`,
    );
    await expectError(
      adcClient().messages.create({ ...ask('hi'), model: 'gemini-2.5-pro' }),
      NotFoundError,
      404,
      `Publisher Model \`projects/${PROJECT}/locations/${REGION}/publishers/anthropic/models/gemini-2.5-pro\` not found.`,
    );
  });

  it('refuses a body with model, or with a missing or wrong anthropic_version', async () => {
    const post = async (body: Record<string, unknown>) => {
      const res = await fetch(
        `${server.url}/v1/projects/${PROJECT}/locations/${REGION}/publishers/anthropic/models/${MODEL}:rawPredict`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${STATIC_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ max_tokens: 10, messages: [{ role: 'user', content: 'x' }], ...body }),
        },
      );
      return { status: res.status, body: (await res.json()) as { error: { type: string; message: string } } };
    };
    const withModel = await post({ anthropic_version: 'vertex-2023-10-16', model: MODEL });
    assert.equal(withModel.status, 400);
    assert.deepEqual(withModel.body.error, {
      type: 'invalid_request_error',
      message: 'model: Extra inputs are not permitted',
    });
    const missing = await post({});
    assert.equal(missing.body.error.message, 'anthropic_version: Field required');
    const wrong = await post({ anthropic_version: 'bedrock-2023-05-31' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.error.message, /^anthropic_version: Input should be 'vertex-2023-10-16'/);
  });

  it('answers 429 as Google RESOURCE_EXHAUSTED and too long a prompt in the API shape', async () => {
    server.enqueue({ error: { status: 429, type: 'rate_limit_error', message: 'rate limited' } });
    const quota = await expectError(
      adcClient().messages.create(ask('hi')),
      RateLimitError,
      429,
      'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: anthropic-claude-sonnet-4-5. Please submit a quota increase request. https://cloud.google.com/vertex-ai/docs/generative-ai/quotas-genai.',
    );
    assert.equal((quota.error as { error: { status: string } }).error.status, 'RESOURCE_EXHAUSTED');
    server.enqueue({
      error: {
        status: 400,
        type: 'invalid_request_error',
        message: 'prompt is too long: 210000 tokens > 200000 maximum',
      },
    });
    const long = await expectError(
      adcClient().messages.create(ask('hi')),
      BadRequestError,
      400,
      'prompt is too long: 210000 tokens > 200000 maximum',
    );
    assert.match(long.requestID ?? '', /^req_vrtx_01/);
  });
});
