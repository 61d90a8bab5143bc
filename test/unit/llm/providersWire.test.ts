// Engram's model client on each cloud, against the test server's Bedrock, Vertex and Foundry routes over real
// HTTP, with the official clients and the clouds' credential chains running for real (AWS keys in the
// environment, Google's ADC through the server's GCE metadata emulation, a Foundry key): a tool turn, a
// throttled request retried by Engram's own loop, an expired credential's message, the token count where
// the provider has one, and a full compaction's summary call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fullCompact } from '../../../src/core/compaction/fullCompact';
import { createAnthropicClient } from '../../../src/core/llm/anthropicClient';
import { AuthError, InvalidRequestError, RateLimitError } from '../../../src/core/llm/errors';
import type { ModelClient, ModelRequest } from '../../../src/core/llm/modelClient';
import { resolveModelConfig, type ModelConfig } from '../../../src/core/llm/modelConfig';
import { streamWithRetry, type RetryInfo } from '../../../src/core/llm/retry';
import { startTestServer, type TestServer } from '../../../src/testServer/anthropicTestServer';
import { build, charTokens, SUMMARY_ANSWER } from '../compaction/compactionSupport';
import { applyEnv, providerEnv, type ProviderEnvOptions } from '../support/providerEnv';

const KEY = { accessKeyId: 'AKIAENGRAMP2TEST0001', secretAccessKey: 'engram-p2-secret-key-000000000000000001' };
const OLD = { accessKeyId: 'AKIAENGRAMP2TEST0002', secretAccessKey: 'engram-p2-secret-key-2', expired: true };
const FOUNDRY_KEY = 'engram-p2-foundry-key-0001';
const never = new AbortController().signal;
const fast = { policy: { baseDelayMs: 5, maxDelayMs: 20 } };
const tools = [{ name: 'Read', description: 'read a file', input_schema: { type: 'object', properties: {} } }];

const request = (model: string, text: string): ModelRequest => ({
  model,
  maxTokens: 1_000,
  system: [{ type: 'text', text: 'You are a test.' }],
  tools,
  messages: [{ role: 'user', content: text }],
});

interface Case {
  provider: 'bedrock' | 'vertex' | 'foundry';
  env: ProviderEnvOptions;
  /** What makes the credential stale, and what the message must then say. */
  expire(server: TestServer): ProviderEnvOptions;
  expired: RegExp;
  /** The model path or field the server saw. */
  sentModel: RegExp;
  counts: boolean;
}

const CASES: Case[] = [
  {
    provider: 'bedrock',
    env: { aws: KEY },
    expire: () => ({ aws: OLD }),
    expired: /^Amazon Bedrock: the AWS credentials have expired .*`aws sso login`/,
    sentModel: /^us\.anthropic\.claude-sonnet-4-6$/,
    counts: false,
  },
  {
    provider: 'vertex',
    env: {},
    expire: (server) => {
      server.expireVertexTokens();
      server.setVertexMetadata('expired');
      return {};
    },
    expired: /^Google Vertex AI: .*`gcloud auth application-default login`/,
    sentModel: /^claude-sonnet-4-6$/,
    counts: true,
  },
  {
    provider: 'foundry',
    env: { foundryKey: FOUNDRY_KEY },
    expire: () => ({ foundryKey: 'engram-p2-foundry-key-revoked' }),
    expired: /^Microsoft Foundry: .*ANTHROPIC_FOUNDRY_API_KEY or run `az login`/,
    sentModel: /^claude-sonnet-4-6$/,
    counts: true,
  },
];

for (const c of CASES) {
  describe(`${c.provider} through Engram's client`, () => {
    let server: TestServer;
    let restore: (() => void) | undefined;
    let config: ModelConfig;
    let client: ModelClient;

    /** The environment of a Claude Code user of this cloud, applied to the process (the chains read it). */
    const useEnv = (opts: ProviderEnvOptions): void => {
      restore?.();
      const env = providerEnv(c.provider, server, opts);
      restore = applyEnv(env);
      config = resolveModelConfig({}, env, undefined);
      client = createAnthropicClient(config);
    };

    before(async () => {
      server = await startTestServer({
        providers: {
          bedrock: { credentials: [KEY, OLD], acceptUnsigned: false },
          vertex: { acceptUnsigned: false },
          foundry: { apiKeys: [FOUNDRY_KEY], acceptUnsigned: false },
        },
      });
      useEnv(c.env);
    });
    after(async () => {
      restore?.();
      await server.close();
    });

    it('is chosen by the Claude Code environment', () => {
      assert.equal(config.provider.id, c.provider);
      assert.equal(config.providerSource, 'env');
      assert.deepEqual(config.providerProblems, []);
    });

    it('runs a tool turn: the tool call streams, the tool result is answered', async () => {
      server.enqueue(
        { content: [{ type: 'tool_use', name: 'Read', input: { path: 'README.md' } }] },
        { content: [{ type: 'text', text: 'It says hello.' }] },
      );
      const first = await streamWithRetry(client, request(config.model, 'read it'), {}, never, fast);
      assert.equal(first.stopReason, 'tool_use');
      const call = first.content.find((b) => b.type === 'tool_use');
      assert.ok(call && call.type === 'tool_use');
      assert.deepEqual(call.input, { path: 'README.md' });
      const second = await streamWithRetry(
        client,
        {
          ...request(config.model, 'read it'),
          messages: [
            { role: 'user', content: 'read it' },
            { role: 'assistant', content: first.content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'hello' }] },
          ],
        },
        {},
        never,
        fast,
      );
      assert.deepEqual(second.content, [{ type: 'text', text: 'It says hello.' }]);
      const seen = server.requests.slice(-2);
      assert.ok(
        seen.every((r) => r.provider === c.provider && c.sentModel.test(r.model ?? '')),
        JSON.stringify(seen.map((r) => [r.provider, r.model])),
      );
    });

    it("retries a throttled request in Engram's own loop, then answers", async () => {
      server.enqueue(
        { error: { status: 429, type: 'rate_limit_error', message: 'slow down' } },
        { content: [{ type: 'text', text: 'after the wait' }] },
      );
      const retries: RetryInfo[] = [];
      const answer = await streamWithRetry(client, request(config.model, 'hi'), {}, never, {
        ...fast,
        onRetry: (r) => retries.push(r),
      });
      assert.deepEqual(answer.content, [{ type: 'text', text: 'after the wait' }]);
      assert.equal(retries.length, 1);
      assert.ok(retries[0]?.error instanceof RateLimitError, retries[0]?.error.message);
    });

    it('retries a throttle that arrives inside the stream, before any content', async () => {
      server.enqueue(
        { error: { status: 429, type: 'rate_limit_error', message: 'slow down', inStream: true } },
        { content: [{ type: 'text', text: 'second try' }] },
      );
      const retries: RetryInfo[] = [];
      const answer = await streamWithRetry(client, request(config.model, 'hi'), {}, never, {
        ...fast,
        onRetry: (r) => retries.push(r),
      });
      assert.deepEqual(answer.content, [{ type: 'text', text: 'second try' }]);
      assert.ok(retries[0]?.error instanceof RateLimitError, retries[0]?.error.message);
    });

    it(
      c.counts ? 'counts tokens with the provider' : 'has no token count: callers keep the local estimate',
      async () => {
        if (!c.counts) {
          assert.equal(client.countTokens, undefined);
          return;
        }
        assert.ok(client.countTokens);
        const before = server.counts.length;
        const n = await client.countTokens(request(config.model, 'how many tokens is this?'));
        assert.ok(n > 0);
        assert.equal(server.counts.length, before + 1);
      },
    );

    it("sends a full compaction's summary call and takes the summary", async () => {
      server.enqueue({ content: [{ type: 'text', text: SUMMARY_ANSWER }] });
      const conversation = build(
        Array.from({ length: 3 }, (_, i) => ({
          promptLength: 100 + i,
          promptAsBlocks: false,
          thinking: false,
          split: false,
          answer: true,
          steps: [{ calls: 1, sizes: [500], textBetween: false, image: false, shuffle: false, extraText: false }],
        })),
        'prompt',
      ).entries;
      const out = await fullCompact({
        entries: conversation,
        tokensOf: charTokens,
        micro: { keepRecent: 5, maxChars: 2_000 },
        summarizer: { client, model: config.model, maxTokens: 2_000, system: [], tools: [], retry: fast },
      });
      assert.ok(out.ok, JSON.stringify(out));
      assert.match(out.result.summaryText ?? '', /Request and intent: test/);
      assert.equal(server.requests.at(-1)?.provider, c.provider);
    });

    it('names a model id the provider rejects, with how to choose another', async () => {
      const id = c.provider === 'bedrock' ? 'claude-sonnet-4-6-typo' : 'claude-nonexistent-9';
      if (c.provider !== 'bedrock')
        server.enqueue({ error: { status: 404, type: 'not_found_error', message: `model: ${id}` } });
      try {
        await client.stream(request(id, 'hi'), {}, never);
        assert.fail('the request went through');
      } catch (e) {
        assert.ok(e instanceof InvalidRequestError, String(e));
        assert.ok(e.message.includes(`did not accept the model id "${id}"`), e.message);
        assert.match(e.message, /Engram: Choose Model/);
      }
    });

    it('says which credential expired and the command that fixes it', async () => {
      useEnv(c.expire(server));
      try {
        await client.stream(request(config.model, 'hi'), {}, never);
        assert.fail('the request went through');
      } catch (e) {
        assert.ok(e instanceof AuthError, String(e));
        assert.match(e.message, c.expired);
        assert.doesNotMatch(e.message, /engram-p2-secret|engram-p2-foundry-key/);
      } finally {
        if (c.provider === 'vertex') server.setVertexMetadata('ok');
        useEnv(c.env);
      }
    });
  });
}

describe('bedrock with a named AWS profile', () => {
  let server: TestServer;
  let restore: (() => void) | undefined;
  before(async () => {
    server = await startTestServer({ providers: { bedrock: { credentials: [KEY], acceptUnsigned: false } } });
  });
  after(async () => {
    restore?.();
    await server.close();
  });

  it("signs with the profile's credential_process, as the AWS chain resolves it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-aws-profile-'));
    const script = path.join(dir, 'creds.js');
    fs.writeFileSync(
      script,
      `process.stdout.write(JSON.stringify({ Version: 1, AccessKeyId: ${JSON.stringify(KEY.accessKeyId)}, ` +
        `SecretAccessKey: ${JSON.stringify(KEY.secretAccessKey)} }));\n`,
    );
    const env = providerEnv('bedrock', server, { emptyDir: dir });
    fs.writeFileSync(
      path.join(dir, 'aws-config'),
      `[profile team]\ncredential_process = ${JSON.stringify(process.execPath)} ${JSON.stringify(script)}\n`,
    );
    env.AWS_ACCESS_KEY_ID = undefined;
    env.AWS_SECRET_ACCESS_KEY = undefined;
    env.AWS_PROFILE = 'team';
    restore = applyEnv(env);
    const config = resolveModelConfig({}, env, undefined);
    assert.equal(config.provider.id === 'bedrock' && config.provider.profile, 'team');
    server.enqueue({ content: [{ type: 'text', text: 'signed by the profile' }] });
    const answer = await createAnthropicClient(config).stream(request(config.model, 'hi'), {}, never);
    assert.deepEqual(answer.content, [{ type: 'text', text: 'signed by the profile' }]);
    assert.match(server.requests.at(-1)?.headers.authorization ?? '', /Credential=AKIAENGRAMP2TEST0001\//);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('foundry signed in with Entra ID', () => {
  let server: TestServer;
  let restore: (() => void) | undefined;
  before(async () => {
    server = await startTestServer({ providers: { foundry: { apiKeys: [FOUNDRY_KEY], acceptUnsigned: false } } });
  });
  after(async () => {
    restore?.();
    await server.close();
  });

  it("gets its token from Azure's credential chain (managed identity) when no key is set", async () => {
    const env = providerEnv('foundry', server, { entra: true });
    restore = applyEnv(env);
    const config = resolveModelConfig({}, env, undefined);
    assert.equal(config.provider.id === 'foundry' && config.provider.apiKey, undefined);
    server.enqueue({ content: [{ type: 'text', text: 'signed in' }] });
    const answer = await createAnthropicClient(config).stream(request(config.model, 'hi'), {}, never);
    assert.deepEqual(answer.content, [{ type: 'text', text: 'signed in' }]);
    const sent = server.requests.at(-1)?.headers ?? {};
    assert.match(sent.authorization ?? '', /^Bearer \S+/);
    assert.equal(sent['x-api-key'], undefined);
  });
});

describe('vertex with a region of its own for one model (VERTEX_REGION_CLAUDE_*)', () => {
  let server: TestServer;
  let restore: (() => void) | undefined;
  before(async () => {
    server = await startTestServer({ providers: { vertex: { acceptUnsigned: false } } });
  });
  after(async () => {
    restore?.();
    await server.close();
  });

  it("sends that model's requests and token counts to its region, and the others to CLOUD_ML_REGION", async () => {
    const env = providerEnv('vertex', server, { region: 'global' });
    env.VERTEX_REGION_CLAUDE_4_5_SONNET = 'us-east5';
    env.VERTEX_REGION_CLAUDE_HAIKU_4_5 = '';
    restore = applyEnv(env);
    const config = resolveModelConfig({}, env, undefined);
    const client = createAnthropicClient(config);
    const locationOf = (): string => /\/locations\/([^/]+)\//.exec(server.requests.at(-1)?.path ?? '')?.[1] ?? '';

    server.enqueue({ content: [{ type: 'text', text: 'from us-east5' }] });
    const own = await client.stream(request('claude-sonnet-4-5-20250929', 'hi'), {}, never);
    assert.deepEqual(own.content, [{ type: 'text', text: 'from us-east5' }]);
    assert.equal(locationOf(), 'us-east5');
    assert.equal(server.requests.at(-1)?.status, 200);

    assert.ok(client.countTokens, 'Vertex counts tokens');
    await client.countTokens(request('claude-sonnet-4-5-20250929', 'count me'));
    assert.equal(locationOf(), 'us-east5');

    for (const model of ['claude-sonnet-4-6', 'claude-haiku-4-5-20251001']) {
      server.enqueue({ content: [{ type: 'text', text: 'from global' }] });
      await client.stream(request(model, 'hi'), {}, never);
      assert.equal(locationOf(), 'global', `${model}: no variable (or an empty one) keeps CLOUD_ML_REGION`);
    }
  });
});
