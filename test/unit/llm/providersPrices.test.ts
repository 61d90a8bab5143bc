// Each provider's prices (the list price, and the clouds' regional premium from Sonnet 4.5 on) and the
// 1-hour prompt cache where the provider keeps one, as the session's cost line and requests use them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyUsage, type ModelClient, type ModelRequest } from '../../../src/core/llm/modelClient';
import { priceOf } from '../../../src/core/llm/modelPrices';
import { hourCacheOn } from '../../../src/core/llm/providerModels';
import type { ProviderConfig } from '../../../src/core/llm/providerTypes';
import { PromptCacheTracker } from '../../../src/core/session/promptCacheTracker';

const bedrock = (region: string): ProviderConfig => ({ id: 'bedrock', region, skipAuth: false });
const vertex = (region: string): ProviderConfig => ({ id: 'vertex', region, projectId: 'p', skipAuth: false });

describe('prices by provider', () => {
  it('charges the list price on global endpoints and 10% more on regional ones, from Sonnet 4.5 on', () => {
    assert.equal(priceOf('claude-sonnet-4-6')?.input, 3);
    assert.equal(priceOf('claude-sonnet-4-6', { id: 'foundry', resource: 'r', skipAuth: false })?.input, 3);
    // us-east-1 sends the us. profile: regional; sa-east-1 has no geography profile: global.
    assert.deepEqual(priceOf('claude-sonnet-4-6', bedrock('us-east-1')), {
      input: 3.3,
      output: 16.5,
      write5m: 4.125,
      write1h: 6.6,
      read: 0.33,
    });
    assert.equal(priceOf('claude-sonnet-4-6', bedrock('sa-east-1'))?.input, 3);
    assert.equal(priceOf('global.anthropic.claude-haiku-4-5-20251001-v1:0', bedrock('us-east-1'))?.output, 5);
    assert.equal(priceOf('claude-sonnet-4-6', vertex('global'))?.output, 15);
    assert.equal(priceOf('claude-sonnet-4-6', vertex('us-east5'))?.output, 16.5);
    // Older models keep one price everywhere.
    assert.equal(priceOf('claude-opus-4-1', bedrock('us-east-1'))?.input, 15);
    assert.equal(priceOf('claude-sonnet-4@20250514', vertex('europe-west1'))?.input, 3);
    assert.equal(priceOf('my-gateway-model', bedrock('us-east-1')), undefined);
  });
});

describe('the 1-hour prompt cache by provider', () => {
  it('is kept by Vertex and Foundry, and on Bedrock from the 4.5 models on', () => {
    assert.equal(hourCacheOn('claude-sonnet-4-20250514', bedrock('us-east-1')), false);
    assert.equal(hourCacheOn('claude-3-7-sonnet-20250219', bedrock('us-east-1')), false);
    assert.equal(hourCacheOn('claude-sonnet-4-5', bedrock('us-east-1')), true);
    assert.equal(hourCacheOn('us.anthropic.claude-opus-4-6-v1', bedrock('us-east-1')), true);
    assert.equal(hourCacheOn('claude-sonnet-4-20250514', vertex('global')), true);
  });

  it("falls back to 5 minutes in the request and the cost line where Bedrock keeps no hour's cache", async () => {
    const sent: ModelRequest[] = [];
    const client: ModelClient = {
      provider: bedrock('us-east-1'),
      stream: async (req) => {
        sent.push(req);
        return { id: 'm', model: req.model, content: [], stopReason: 'end_turn', usage: emptyUsage() };
      },
    };
    const tracker = new PromptCacheTracker(() => '1h', { now: () => 1_000_000 });
    const wrapped = tracker.wrap(client);
    const req = (model: string): ModelRequest => ({
      model,
      maxTokens: 10,
      system: [],
      tools: [],
      messages: [{ role: 'user', content: 'hi' }],
    });
    await wrapped.stream(req('claude-sonnet-4-20250514'), {}, new AbortController().signal);
    await wrapped.stream(req('claude-sonnet-4-6'), {}, new AbortController().signal);
    assert.deepEqual(
      sent.map((r) => r.cache?.ttl),
      ['5m', '1h'],
    );
    assert.equal(tracker.cost('claude-sonnet-4-20250514', 5000, 1000).ttl, '5m');
    const onSix = tracker.cost('claude-sonnet-4-6', 5000, 1000);
    assert.equal(onSix.ttl, '1h');
    // The us. profile's regional price: 5000 tokens written at 1h (2x the 3.30 input) is 0.033 USD.
    assert.ok(Math.abs((onSix.ifCold.usd ?? 0) - 0.033) < 1e-9, String(onSix.ifCold.usd));
  });
});
