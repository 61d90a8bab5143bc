// The test server's Amazon Bedrock routes driven by the official @anthropic-ai/bedrock-sdk over HTTP:
// SigV4 signing verified for real, AWS event-stream frames, and Bedrock's errors as the SDK surfaces them.

import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import {
  APIError,
  BadRequestError,
  InternalServerError,
  PermissionDeniedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { applyEnv, providerEnv } from '../support/providerEnv';
import { useTestServer } from '../support/testServerFixture';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const KEY = { accessKeyId: 'AKIAENGRAMTEST000001', secretAccessKey: 'engram-test-secret-key-0000000000000000001' };
const TEMP = {
  accessKeyId: 'ASIAENGRAMTEST000002',
  secretAccessKey: 'engram-test-secret-key-0000000000000000002',
  sessionToken: 'engram-session-token-2',
};
const OLD = { accessKeyId: 'AKIAENGRAMTEST000003', secretAccessKey: 'engram-test-secret-3', expired: true };
const API_KEY = 'ABSKZW5ncmFtLXRlc3Qta2V5';

const server = useTestServer({
  providers: { bedrock: { credentials: [KEY, TEMP, OLD], apiKeys: [API_KEY], acceptUnsigned: false } },
});

type BedrockOptions = NonNullable<ConstructorParameters<typeof AnthropicBedrock>[0]>;

/** A client signing with KEY unless `opts` says otherwise (the SDK's option types pair the keys). */
const client = (opts: Record<string, unknown> = {}) =>
  new AnthropicBedrock({
    baseURL: server.url,
    awsRegion: 'us-east-1',
    awsAccessKey: KEY.accessKeyId,
    awsSecretKey: KEY.secretAccessKey,
    maxRetries: 0,
    ...opts,
  } as unknown as BedrockOptions);

const ask = (text: string) => ({
  model: MODEL,
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: text }],
});

before(() => server.ready());

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
    assert.equal((err.error as { message?: string }).message, message);
    return err;
  }
  throw new Error('expected the request to fail');
}

describe('Bedrock: a tool turn over event-stream frames', () => {
  it('streams a tool_use signed with SigV4, then takes its tool_result in a second turn', async () => {
    server.enqueue(
      { content: [{ type: 'tool_use', id: 'toolu_01A', name: 'Read', input: { path: 'README.md' } }] },
      { content: [{ type: 'text', text: 'The readme says hello to everyone.' }] },
    );
    const tools = [
      { name: 'Read', description: 'read a file', input_schema: { type: 'object' as const, properties: {} } },
    ];
    const first = await client()
      .messages.stream({ ...ask('read it'), tools })
      .finalMessage();
    assert.equal(first.stop_reason, 'tool_use');
    assert.deepEqual(first.content, [
      { type: 'tool_use', id: 'toolu_01A', name: 'Read', input: { path: 'README.md' } },
    ]);
    assert.match(first.id, /^msg_bdrk_01/);

    const texts: string[] = [];
    const stream = client().messages.stream({
      ...ask('read it'),
      tools,
      messages: [
        { role: 'user', content: 'read it' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: 'hello everyone' }] },
      ],
    });
    stream.on('text', (t) => texts.push(t));
    const second = await stream.finalMessage();
    assert.equal(texts.join(''), 'The readme says hello to everyone.');
    assert.equal(second.stop_reason, 'end_turn');

    const [a, b] = server.requests.slice(-2);
    assert.equal(a.provider, 'bedrock');
    assert.equal(a.model, MODEL);
    assert.equal(a.path, `/model/${MODEL}/invoke-with-response-stream`);
    assert.equal(a.body.anthropic_version, '2026-10-21'); // the SDK copies its API version header into the body
    assert.equal('model' in a.body, false);
    assert.match(
      a.headers.authorization,
      /^AWS4-HMAC-SHA256 Credential=AKIAENGRAMTEST000001\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
    );
    assert.equal(b.status, 200);
  });

  it('answers a non-streamed invoke with the JSON message and Bedrock token-count headers', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'plain answer' }] });
    const { data, response } = await client().messages.create(ask('hi')).withResponse();
    assert.deepEqual(data.content, [{ type: 'text', text: 'plain answer' }]);
    assert.equal(response.headers.get('x-amzn-bedrock-input-token-count'), String(data.usage.input_tokens));
    assert.match(server.requests.at(-1)?.path ?? '', /\/invoke$/);
  });

  it('accepts temporary credentials with their session token, and a Bedrock API key as Bearer', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'one' }] }, { content: [{ type: 'text', text: 'two' }] });
    const temp = client({
      awsAccessKey: TEMP.accessKeyId,
      awsSecretKey: TEMP.secretAccessKey,
      awsSessionToken: TEMP.sessionToken,
    });
    await temp.messages.create(ask('hi'));
    assert.equal(server.requests.at(-1)?.headers['x-amz-security-token'], TEMP.sessionToken);
    await new AnthropicBedrock({
      baseURL: server.url,
      apiKey: API_KEY,
      awsRegion: 'us-east-1',
      maxRetries: 0,
    }).messages.create(ask('hi'));
    assert.equal(server.requests.at(-1)?.headers.authorization, `Bearer ${API_KEY}`);
  });

  it('takes an application inference profile ARN as the model, signed over its encoded path', async () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6';
    server.enqueue({ content: [{ type: 'text', text: 'via a profile ARN' }] });
    const message = await client().messages.create({ ...ask('hi'), model: arn });
    assert.deepEqual(message.content, [{ type: 'text', text: 'via a profile ARN' }]);
    const logged = server.requests.at(-1);
    assert.equal(logged?.model, arn);
    assert.match(logged?.path ?? '', /application-inference-profile%2Fa1b2c3d4e5f6\/invoke$/);
  });

  it('signs with the AWS environment credentials when no keys are passed', async () => {
    const restoreEnv = applyEnv(providerEnv('bedrock', server, { aws: KEY, region: 'eu-west-1' }));
    try {
      server.enqueue({ content: [{ type: 'text', text: 'from env' }] });
      const env = new AnthropicBedrock({ maxRetries: 0 }); // base URL and region from the environment too
      const msg = await env.messages.create(ask('hi'));
      assert.deepEqual(msg.content, [{ type: 'text', text: 'from env' }]);
      assert.match(server.requests.at(-1)?.headers.authorization ?? '', /\/eu-west-1\/bedrock\/aws4_request/);
    } finally {
      restoreEnv();
    }
  });
});

describe('Bedrock: what it rejects', () => {
  it('refuses a wrong signature, an unknown key, an expired key and a missing signature with 403', async () => {
    await expectError(
      client({ awsSecretKey: 'not-the-secret' }).messages.create(ask('hi')),
      PermissionDeniedError,
      403,
      'The request signature we calculated does not match the signature you provided. ' +
        'Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
    await expectError(
      client({ awsAccessKey: 'AKIAUNKNOWNKEY000009' }).messages.create(ask('hi')),
      PermissionDeniedError,
      403,
      'The security token included in the request is invalid.',
    );
    await expectError(
      client({ awsAccessKey: OLD.accessKeyId, awsSecretKey: OLD.secretAccessKey }).messages.create(ask('hi')),
      PermissionDeniedError,
      403,
      'The security token included in the request is expired',
    );
    const unsigned = await expectError(
      client({ skipAuth: true }).messages.create(ask('hi')),
      PermissionDeniedError,
      403,
      'Missing Authentication Token',
    );
    assert.match(unsigned.headers?.get('x-amzn-errortype') ?? '', /^MissingAuthenticationTokenException:/);
  });

  it('refuses an Authorization header that is not SigV4 or Bearer', async () => {
    const odd = client({ skipAuth: true, defaultHeaders: { authorization: 'Basic dXNlcjpwYXNz' } });
    await expectError(
      odd.messages.create(ask('hi')),
      PermissionDeniedError,
      403,
      "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters (AWS4-HMAC-SHA256). Authorization=Basic",
    );
  });

  it('refuses a model id that is not a Bedrock one, and a bare base id only inference profiles serve', async () => {
    await expectError(
      client().messages.create({ ...ask('hi'), model: 'claude-sonnet-4-5' }),
      BadRequestError,
      400,
      'The provided model identifier is invalid.',
    );
    await expectError(
      client().messages.create({ ...ask('hi'), model: 'anthropic.claude-sonnet-4-6' }),
      BadRequestError,
      400,
      'Invocation of model ID anthropic.claude-sonnet-4-6 with on-demand throughput isn\u2019t supported. ' +
        'Retry your request with the ID or ARN of an inference profile that contains this model.',
    );
  });

  it('refuses a body with model or stream, or without the Bedrock anthropic_version', async () => {
    const raw = client();
    // Middleware-free way to send Bedrock's wire body as is: post to the runtime path directly.
    const post = (body: Record<string, unknown>) =>
      raw.post(`/model/${encodeURIComponent(MODEL)}/invoke`, { body, __qualifiers: { bedrock: 'true' } } as never);
    await expectError(
      post({
        anthropic_version: 'bedrock-2023-05-31',
        model: MODEL,
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      }),
      BadRequestError,
      400,
      'Malformed input request: #: extraneous key [model] is not permitted, please reformat your input and try again.',
    );
    await expectError(
      post({ max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
      BadRequestError,
      400,
      'Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.',
    );
    await expectError(
      post({ anthropic_version: '2023-01-01', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
      BadRequestError,
      400,
      'Invalid API version: 2023-01-01',
    );
  });
});

describe('Bedrock: scripted errors in Bedrock shapes', () => {
  it('throttles with 429 ThrottlingException', async () => {
    server.enqueue({
      error: { status: 429, type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' },
    });
    const err = await expectError(
      client().messages.create(ask('hi')),
      RateLimitError,
      429,
      'Too many requests, please wait before trying again.',
    );
    assert.match(err.headers?.get('x-amzn-errortype') ?? '', /^ThrottlingException:/);
  });

  it('reports too long a prompt as ValidationException with the numbers (lenient server: any key, or none)', async () => {
    const tiny = await import('../../../src/testServer/anthropicTestServer').then((m) =>
      m.startTestServer({ contextWindow: 5 }),
    );
    try {
      // With no keys configured the server checks the signature's shape only, and takes unsigned requests.
      for (const c of [
        client({ baseURL: tiny.url, awsAccessKey: 'AKIAANYKEY0000000042' }),
        client({ baseURL: tiny.url, skipAuth: true }),
      ]) {
        await expectError(
          c.messages.create(ask('this prompt is surely longer than five tokens')),
          BadRequestError,
          400,
          'The model returned the following errors: prompt is too long: 12 tokens > 5 maximum',
        );
      }
    } finally {
      await tiny.close();
    }
  });

  it('answers 500 as InternalServerException and overload as 503 ServiceUnavailableException', async () => {
    server.enqueue({ error: { status: 500, type: 'api_error', message: 'Internal server error' } });
    await expectError(
      client().messages.create(ask('hi')),
      InternalServerError,
      500,
      'The system encountered an unexpected error during processing. Try your request again.',
    );
    server.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    await expectError(
      client().messages.create(ask('hi')),
      InternalServerError,
      503,
      'Bedrock is unable to process your request.',
    );
  });

  it('ends a stream that fails after its 200 with an exception frame the SDK raises', async () => {
    server.enqueue({ error: { status: 429, type: 'rate_limit_error', message: 'slow down', inStream: true } });
    try {
      await client().messages.stream(ask('hi')).finalMessage();
      assert.fail('expected the stream to fail');
    } catch (err) {
      assert.ok(err instanceof APIError, String(err));
      assert.deepEqual((err.error as { error?: unknown }).error, {
        type: 'throttlingException',
        message: 'Too many requests, please wait before trying again.',
      });
    }
  });
});

describe('Bedrock: the frames on the wire', () => {
  it('sends chunk frames whose prelude and CRCs the AWS decoder accepts, carrying base64 events', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'frame me' }] });
    const res = await fetch(`${server.url}/model/${encodeURIComponent(MODEL)}/invoke-with-response-stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        anthropic_version: 'bedrock-2023-05-31',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      }),
    });
    assert.equal(res.headers.get('content-type'), 'application/vnd.amazon.eventstream');
    const bytes = new Uint8Array(await res.arrayBuffer());
    const view = new DataView(bytes.buffer);
    const total = view.getUint32(0);
    const headersLength = view.getUint32(4);
    assert.ok(total > 16 && total <= bytes.length);
    assert.ok(headersLength > 0 && headersLength < total);
    const codec = new EventStreamCodec(
      (b) => new TextDecoder().decode(b),
      (s) => new TextEncoder().encode(s),
    );
    const first = codec.decode(bytes.subarray(0, total)); // throws on a bad prelude or message CRC
    assert.equal(first.headers[':message-type'].value, 'event');
    assert.equal(first.headers[':event-type'].value, 'chunk');
    assert.equal(first.headers[':content-type'].value, 'application/json');
    const payload = JSON.parse(new TextDecoder().decode(first.body)) as { bytes: string };
    const event = JSON.parse(Buffer.from(payload.bytes, 'base64').toString('utf8'));
    assert.equal(event.type, 'message_start');
    assert.match(event.message.id, /^msg_bdrk_01/);
    const corrupt = bytes.slice(0, total);
    corrupt[total - 5] ^= 0xff;
    assert.throws(() => codec.decode(corrupt), /checksum/i);
  });
});
