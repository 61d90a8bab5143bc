// The test server's Microsoft Foundry routes driven by the official @anthropic-ai/foundry-sdk over HTTP:
// the Anthropic API's body and shapes under `/anthropic`, with an API key or an Entra ID token.

import { AnthropicError, APIError, AuthenticationError, RateLimitError } from '@anthropic-ai/sdk';
import { DefaultAzureCredential, getBearerTokenProvider } from '@azure/identity';
import { AnthropicFoundry } from '@anthropic-ai/foundry-sdk';
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { applyEnv, providerEnv } from '../support/providerEnv';
import { useTestServer } from '../support/testServerFixture';

const MODEL = 'claude-sonnet-4-5';
const KEY = '0123456789abcdef0123456789abcdef';
const ENTRA_TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJodHRwczovL2NvZ25pdGl2ZXNlcnZpY2VzLmF6dXJlLmNvbSJ9.c2lnbmF0dXJl';
const server = useTestServer({ providers: { foundry: { apiKeys: [KEY, ENTRA_TOKEN], acceptUnsigned: false } } });

before(() => server.ready());

const client = (opts: Record<string, unknown> = {}) =>
  new AnthropicFoundry({ baseURL: `${server.url}/anthropic`, apiKey: KEY, maxRetries: 0, ...opts });
const ask = (text: string) => ({
  model: MODEL,
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: text }],
});
const TOKEN_DENIED =
  'Unauthorized. Access token is missing, invalid, audience is incorrect (https://ai.azure.com), or have expired.';
const AZURE_DENIED =
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';

async function expectAuthError(p: Promise<unknown>, message: string): Promise<void> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof AuthenticationError, String(err));
    assert.equal(err.status, 401);
    assert.equal(err.apiMessage, message);
    return;
  }
  throw new Error('expected the request to fail');
}

describe('Foundry', () => {
  it('streams a tool_use with an API key, then takes its tool_result; counts tokens', async () => {
    server.enqueue(
      { content: [{ type: 'tool_use', id: 'toolu_01F', name: 'Read', input: { path: 'f' } }] },
      { content: [{ type: 'text', text: 'done reading' }] },
    );
    const tools = [{ name: 'Read', description: 'read', input_schema: { type: 'object' as const, properties: {} } }];
    const first = await client()
      .messages.stream({ ...ask('read f'), tools })
      .finalMessage();
    assert.equal(first.stop_reason, 'tool_use');
    const second = await client()
      .messages.stream({
        ...ask('read f'),
        tools,
        messages: [
          { role: 'user', content: 'read f' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01F', content: 'x' }] },
        ],
      })
      .finalMessage();
    assert.deepEqual(second.content, [{ type: 'text', text: 'done reading' }]);
    const last = server.requests.at(-1);
    assert.equal(last?.provider, 'foundry');
    assert.equal(last?.path, '/anthropic/v1/messages');
    assert.equal(last?.model, MODEL);
    assert.equal(last?.headers['x-api-key'], KEY);
    const count = await client().messages.countTokens({
      model: MODEL,
      messages: [{ role: 'user', content: 'count me' }],
    });
    assert.equal(count.input_tokens, 2);
    assert.equal(server.counts.at(-1)?.provider, 'foundry');
  });

  it('accepts an Entra ID token as Bearer, non-streamed', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'entra ok' }] });
    const entra = new AnthropicFoundry({
      baseURL: `${server.url}/anthropic`,
      azureADTokenProvider: async () => ENTRA_TOKEN,
      maxRetries: 0,
    });
    const message = await entra.messages.create(ask('hi'));
    assert.deepEqual(message.content, [{ type: 'text', text: 'entra ok' }]);
    assert.equal(server.requests.at(-1)?.headers.authorization, `Bearer ${ENTRA_TOKEN}`);
  });

  it("signs in with Entra ID through Azure's credential chain and the managed identity emulation", async () => {
    const restoreEnv = applyEnv(providerEnv('foundry', server, { entra: true }));
    const signedIn = () =>
      new AnthropicFoundry({
        baseURL: `${server.url}/anthropic`,
        azureADTokenProvider: getBearerTokenProvider(new DefaultAzureCredential(), 'https://ai.azure.com/.default'),
        maxRetries: 0,
      });
    try {
      // First, while no token is cached: MSAL keeps managed identity tokens for the whole process.
      server.setFoundryIdentity('missing');
      try {
        await signedIn().messages.create(ask('hi'));
        assert.fail('expected the sign-in to fail');
      } catch (err) {
        assert.ok(err instanceof AnthropicError && !(err instanceof APIError), String(err));
        assert.match(err.message, /^Failed to get token from azureADTokenProvider: /);
      }
      server.setFoundryIdentity('ok');
      server.enqueue({ content: [{ type: 'text', text: 'managed identity ok' }] });
      const c = signedIn();
      const message = await c.messages.create(ask('hi'));
      assert.deepEqual(message.content, [{ type: 'text', text: 'managed identity ok' }]);
      assert.ok(server.metadataRequests.includes('/msi/token'));
      assert.match(server.requests.at(-1)?.headers.authorization ?? '', /^Bearer eyJ[\w-]+\.[\w-]+\.[\w-]+$/);

      server.expireFoundryTokens();
      await expectAuthError(c.messages.create(ask('hi')), TOKEN_DENIED);
    } finally {
      server.setFoundryIdentity('ok');
      restoreEnv();
    }
  });

  it('refuses a wrong key and a Bearer that is not a token with Azure 401', async () => {
    for (const c of [
      client({ apiKey: 'wrong-key' }),
      new AnthropicFoundry({
        baseURL: `${server.url}/anthropic`,
        azureADTokenProvider: async () => 'not-a-jwt',
        maxRetries: 0,
      }),
    ]) {
      try {
        await c.messages.create(ask('hi'));
        assert.fail('expected the request to fail');
      } catch (err) {
        assert.ok(err instanceof AuthenticationError, String(err));
        assert.equal(err.status, 401);
        assert.ok(err.apiMessage === AZURE_DENIED || err.apiMessage === TOKEN_DENIED, String(err.apiMessage));
      }
    }
  });

  it('passes the API errors through in the API shape', async () => {
    server.enqueue({
      error: {
        status: 429,
        type: 'rate_limit_error',
        message: 'Number of request tokens has exceeded your per-minute rate limit',
      },
    });
    try {
      await client().messages.create(ask('hi'));
      assert.fail('expected the request to fail');
    } catch (err) {
      assert.ok(err instanceof RateLimitError, String(err));
      assert.equal(err.apiMessage, 'Number of request tokens has exceeded your per-minute rate limit');
    }
  });
});
