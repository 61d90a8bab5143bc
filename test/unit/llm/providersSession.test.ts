// A session on a cloud's client, as a host shows it: on Bedrock (no token count) the cost line says its
// tokens were estimated locally; on Vertex the provider's count calibrates the gauge and nothing is said.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sessionGauge } from '../../../src/core/host/conversationDisplay';
import { createAnthropicClient } from '../../../src/core/llm/anthropicClient';
import { resolveModelConfig } from '../../../src/core/llm/modelConfig';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import { SettingsStore } from '../../../src/core/settings/engramSettings';
import { startTestServer, type TestServer } from '../../../src/testServer/anthropicTestServer';
import { applyEnv, providerEnv } from '../support/providerEnv';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs();
const KEY = { accessKeyId: 'AKIAENGRAMP2SESS0001', secretAccessKey: 'engram-p2-session-secret-0000000000001' };

describe('the cost line of a session on a cloud', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ providers: { bedrock: { credentials: [KEY], acceptUnsigned: false } } });
  });
  after(() => server.close());

  for (const provider of ['bedrock', 'vertex'] as const) {
    it(`${provider}: ${provider === 'bedrock' ? 'says the tokens were estimated locally' : 'counts with the provider'}`, async () => {
      const env = providerEnv(provider, server, provider === 'bedrock' ? { aws: KEY } : {});
      const restore = applyEnv(env);
      try {
        const config = resolveModelConfig({}, env, undefined);
        const store = new SettingsStore({});
        const session = await openEngramSession(
          {
            cwd: tempDir(),
            dataDir: tempDir(),
            client: createAnthropicClient(config),
            trusted: true,
            permissionPrompt: { ask: async () => 'allowOnce' },
            version: '0.0.0-test',
            entrypoint: 'test',
          },
          store,
        );
        try {
          const counted = await session.promptCounted;
          assert.equal(counted, provider === 'vertex');
          server.enqueue({ content: [{ type: 'text', text: 'hello' }] });
          await session.runTurn('hi');
          const cache = sessionGauge(session, store.settings).cache;
          assert.ok(cache);
          assert.equal(cache.localCountBy, provider === 'bedrock' ? 'Amazon Bedrock' : undefined);
          assert.equal(server.requests.at(-1)?.provider, provider);
        } finally {
          session.dispose();
        }
      } finally {
        restore();
      }
    });
  }
});
