// Which provider a session talks to (settings beat Claude Code's environment, which beats the Anthropic API)
// and the model ids each provider takes, both ways.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { priceOf } from '../../../src/core/llm/modelPrices';
import { resolveModelConfig } from '../../../src/core/llm/modelConfig';
import { createProviderSdk } from '../../../src/core/llm/providerClient';
import { cloudSecrets, resolveProvider } from '../../../src/core/llm/providerConfig';
import {
  canonicalModelId,
  providerForModel,
  providerModelId,
  suggestedModels,
  vertexRegionVariable,
} from '../../../src/core/llm/providerModels';
import type { ProviderConfig } from '../../../src/core/llm/providerTypes';
import { modelLimits } from '../../../src/core/settings/modelLimits';

const bedrock = (region: string): ProviderConfig => ({ id: 'bedrock', region, skipAuth: false });
const vertex: ProviderConfig = { id: 'vertex', region: 'global', projectId: 'p', skipAuth: false };
const foundry: ProviderConfig = { id: 'foundry', resource: 'r', skipAuth: false };

describe('provider resolution', () => {
  it('is the Anthropic API when nothing says otherwise', () => {
    assert.deepEqual(resolveProvider({}, {}), { config: { id: 'anthropic' }, source: 'default', problems: [] });
  });

  it("follows Claude Code's switches, read as Claude Code reads them", () => {
    for (const on of ['1', 'true', 'TRUE', 'yes', 'on']) {
      assert.equal(resolveProvider({}, { CLAUDE_CODE_USE_BEDROCK: on }).config.id, 'bedrock', on);
    }
    for (const off of ['0', 'false', '', 'no']) {
      assert.equal(resolveProvider({}, { CLAUDE_CODE_USE_BEDROCK: off }).config.id, 'anthropic', off);
    }
    const v = resolveProvider({}, { CLAUDE_CODE_USE_VERTEX: '1', ANTHROPIC_VERTEX_PROJECT_ID: 'proj' });
    assert.equal(v.config.id, 'vertex');
    assert.equal(v.source, 'env');
    assert.equal(
      resolveProvider({}, { CLAUDE_CODE_USE_FOUNDRY: '1', ANTHROPIC_FOUNDRY_RESOURCE: 'r' }).config.id,
      'foundry',
    );
  });

  it('lets a setting or a flag beat the environment', () => {
    const env = { CLAUDE_CODE_USE_BEDROCK: '1' };
    const set = resolveProvider({ provider: 'anthropic' }, env);
    assert.equal(set.config.id, 'anthropic');
    assert.equal(set.source, 'setting');
    const flag = resolveProvider({ provider: ' Vertex ', providerFromFlag: true, vertexProjectId: 'p' }, env);
    assert.equal(flag.config.id, 'vertex');
    assert.equal(flag.source, 'flag');
  });

  it('names the valid providers for an unknown one and falls back to the environment', () => {
    const r = resolveProvider({ provider: 'bedrok', providerFromFlag: true }, { CLAUDE_CODE_USE_BEDROCK: '1' });
    assert.equal(r.config.id, 'bedrock');
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0] ?? '', /"bedrok" \(--provider\).*anthropic, bedrock, vertex, foundry/);
  });

  it("reads Bedrock's region, profile, base URL and skip switch, settings first", () => {
    assert.deepEqual(resolveProvider({ provider: 'bedrock' }, {}).config, {
      id: 'bedrock',
      region: 'us-east-1',
      skipAuth: false,
    });
    const env = {
      AWS_DEFAULT_REGION: 'eu-west-1',
      AWS_PROFILE: 'dev',
      ANTHROPIC_BEDROCK_BASE_URL: 'http://gw.example/',
      CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1',
    };
    assert.deepEqual(resolveProvider({ provider: 'bedrock' }, env).config, {
      id: 'bedrock',
      region: 'eu-west-1',
      profile: 'dev',
      baseUrl: 'http://gw.example',
      skipAuth: true,
    });
    const set = resolveProvider(
      { provider: 'bedrock', bedrockRegion: 'ap-northeast-1', bedrockProfile: 'prod' },
      { ...env, AWS_REGION: 'us-west-2' },
    ).config;
    assert.equal(set.id === 'bedrock' && set.region, 'ap-northeast-1');
    assert.equal(set.id === 'bedrock' && set.profile, 'prod');
    // An empty setting (VS Code's "not set") leaves the variable in charge.
    const empty = resolveProvider({ provider: 'bedrock', bedrockBaseUrl: '', bedrockRegion: ' ' }, env).config;
    assert.equal(empty.id === 'bedrock' && `${empty.baseUrl} ${empty.region}`, 'http://gw.example eu-west-1');
    const region = resolveProvider({ provider: 'bedrock' }, { ...env, AWS_REGION: 'us-west-2' }).config;
    assert.equal(region.id === 'bedrock' && region.region, 'us-west-2');
  });

  it("reads Vertex's region and project, and says how to set a missing project", () => {
    const r = resolveProvider({ provider: 'vertex' }, {});
    assert.deepEqual(r.config, { id: 'vertex', region: 'global', skipAuth: false });
    assert.match(r.problems[0] ?? '', /ANTHROPIC_VERTEX_PROJECT_ID.*engram\.vertex\.projectId/);
    const env = { CLOUD_ML_REGION: 'us-east5', GOOGLE_CLOUD_PROJECT: 'g', CLAUDE_CODE_SKIP_VERTEX_AUTH: 'true' };
    assert.deepEqual(resolveProvider({ provider: 'vertex' }, env), {
      config: { id: 'vertex', region: 'us-east5', projectId: 'g', skipAuth: true },
      source: 'setting',
      problems: [],
    });
    const ordered = resolveProvider(
      { provider: 'vertex' },
      { ...env, GCLOUD_PROJECT: 'c', ANTHROPIC_VERTEX_PROJECT_ID: 'a' },
    );
    assert.equal(ordered.config.id === 'vertex' && ordered.config.projectId, 'a');
    const set = resolveProvider({ provider: 'vertex', vertexProjectId: 's', vertexRegion: 'europe-west1' }, env);
    assert.equal(set.config.id === 'vertex' && `${set.config.projectId} ${set.config.region}`, 's europe-west1');
  });

  it("reads Foundry's endpoint and key, and says how to set a missing endpoint", () => {
    const none = resolveProvider({ provider: 'foundry' }, {});
    assert.match(none.problems[0] ?? '', /ANTHROPIC_FOUNDRY_RESOURCE.*ANTHROPIC_FOUNDRY_BASE_URL/);
    const env = { ANTHROPIC_FOUNDRY_RESOURCE: 'res', ANTHROPIC_FOUNDRY_API_KEY: 'key' };
    assert.deepEqual(resolveProvider({ provider: 'foundry' }, env).config, {
      id: 'foundry',
      resource: 'res',
      apiKey: 'key',
      skipAuth: false,
    });
    const url = resolveProvider({ provider: 'foundry', foundryBaseUrl: 'http://f.example/anthropic/' }, env).config;
    assert.deepEqual(url, { id: 'foundry', baseUrl: 'http://f.example/anthropic', apiKey: 'key', skipAuth: false });
    // The environment's base URL beats its resource, but a resource set in Engram beats both.
    const both = { ...env, ANTHROPIC_FOUNDRY_BASE_URL: 'http://env.example/anthropic' };
    const fromEnv = resolveProvider({ provider: 'foundry' }, both).config;
    assert.equal(
      fromEnv.id === 'foundry' && `${fromEnv.baseUrl} ${fromEnv.resource}`,
      'http://env.example/anthropic undefined',
    );
    const setRes = resolveProvider({ provider: 'foundry', foundryResource: 'mine' }, both).config;
    assert.equal(setRes.id === 'foundry' && `${setRes.baseUrl} ${setRes.resource}`, 'undefined mine');
  });

  it('lists the cloud credentials in the environment that a session redacts, by provider', () => {
    const env = {
      AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
      AWS_SESSION_TOKEN: ' aws-session-token ',
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      ANTHROPIC_FOUNDRY_API_KEY: 'foundry-key-value',
    };
    assert.deepEqual(cloudSecrets(bedrock('us-east-1'), env), ['aws-secret-value', 'aws-session-token']);
    assert.deepEqual(cloudSecrets(foundry, env), ['foundry-key-value']);
    assert.deepEqual(cloudSecrets({ id: 'anthropic' }, env), []);
  });

  it('fills the model config: provider, its source, and ANTHROPIC_MODEL when no model is set', () => {
    const env = { CLAUDE_CODE_USE_BEDROCK: '1', ANTHROPIC_MODEL: 'us.anthropic.claude-sonnet-4-6' };
    const c = resolveModelConfig({}, env, undefined);
    assert.equal(c.model, 'us.anthropic.claude-sonnet-4-6');
    assert.equal(c.provider.id, 'bedrock');
    assert.equal(c.providerSource, 'env');
    assert.equal(resolveModelConfig({ model: 'claude-opus-4-6' }, env, undefined).model, 'claude-opus-4-6');
    assert.deepEqual(resolveModelConfig({ provider: 'nope' }, {}, undefined).providerProblems.length, 1);
  });
});

describe('model ids by provider', () => {
  it("sends Bedrock the region's inference profile, else the global one, else the base id", () => {
    assert.equal(providerModelId('claude-sonnet-4-6', bedrock('us-west-2')), 'us.anthropic.claude-sonnet-4-6');
    assert.equal(providerModelId('claude-opus-4-6', bedrock('eu-central-1')), 'eu.anthropic.claude-opus-4-6-v1');
    assert.equal(
      providerModelId('claude-sonnet-4-5', bedrock('ap-northeast-1')),
      'jp.anthropic.claude-sonnet-4-5-20250929-v1:0',
    );
    // Sonnet 4.6 has no apac profile: the global one.
    assert.equal(providerModelId('claude-sonnet-4-6', bedrock('ap-southeast-1')), 'global.anthropic.claude-sonnet-4-6');
    // Opus 4.1 is in the us profile only: elsewhere its base id.
    assert.equal(providerModelId('claude-opus-4-1', bedrock('eu-west-1')), 'anthropic.claude-opus-4-1-20250805-v1:0');
    assert.equal(
      providerModelId('claude-haiku-4-5-20251001', bedrock('sa-east-1')),
      'global.anthropic.claude-haiku-4-5-20251001-v1:0',
    );
  });

  it('passes through ids already in the provider form, ARNs and unknown ids', () => {
    const arn = 'arn:aws:bedrock:us-east-2:123456789012:application-inference-profile/abc123';
    for (const id of ['eu.anthropic.claude-sonnet-4-6', arn, 'my-gateway-model']) {
      assert.equal(providerModelId(id, bedrock('us-east-1')), id);
    }
    assert.equal(providerModelId('claude-opus-4-1@20250805', vertex), 'claude-opus-4-1@20250805');
    assert.equal(providerModelId('claude-sonnet-4-6', { id: 'anthropic' }), 'claude-sonnet-4-6');
    assert.equal(
      providerModelId('us.anthropic.claude-sonnet-4-6', { id: 'anthropic' }),
      'us.anthropic.claude-sonnet-4-6',
    );
  });

  it("turns another cloud's id of a known model into this provider's (a setting kept after a switch)", () => {
    assert.equal(providerModelId('us.anthropic.claude-opus-4-1-20250805-v1:0', vertex), 'claude-opus-4-1@20250805');
    assert.equal(
      providerModelId('claude-sonnet-4-5@20250929', bedrock('eu-west-1')),
      'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
    );
    const arn = 'arn:aws:bedrock:us-east-2:123456789012:application-inference-profile/abc123';
    assert.equal(providerModelId(arn, vertex), arn);
  });

  it("sends Vertex its names and Foundry Anthropic's", () => {
    assert.equal(providerModelId('claude-sonnet-4-6', vertex), 'claude-sonnet-4-6');
    assert.equal(providerModelId('claude-opus-4-1', vertex), 'claude-opus-4-1@20250805');
    assert.equal(providerModelId('claude-haiku-4-5-20251001', vertex), 'claude-haiku-4-5@20251001');
    assert.equal(providerModelId('claude-opus-4-5-20251101', foundry), 'claude-opus-4-5');
    assert.equal(providerModelId('global.anthropic.claude-sonnet-4-6', foundry), 'claude-sonnet-4-6');
  });

  it('reads any provider form back as the Anthropic id, for limits and prices', () => {
    assert.equal(canonicalModelId('us.anthropic.claude-sonnet-4-5-20250929-v1:0'), 'claude-sonnet-4-5-20250929');
    assert.equal(canonicalModelId('global.anthropic.claude-opus-4-6-v1'), 'claude-opus-4-6');
    assert.equal(canonicalModelId('claude-opus-4-1@20250805'), 'claude-opus-4-1-20250805');
    assert.equal(
      canonicalModelId('arn:aws:bedrock:us-east-1:1:inference-profile/us.anthropic.claude-haiku-4-5-20251001-v1:0'),
      'claude-haiku-4-5-20251001',
    );
    assert.equal(canonicalModelId('my-gateway-model'), 'my-gateway-model');
    assert.deepEqual(modelLimits('us.anthropic.claude-sonnet-4-6'), {
      maxOutputTokens: 128_000,
      contextWindow: 1_000_000,
      known: true,
    });
    assert.equal(modelLimits('claude-opus-4-1@20250805').maxOutputTokens, 32_000);
    assert.equal(priceOf('claude-opus-4-1@20250805')?.input, 15);
    assert.equal(priceOf('eu.anthropic.claude-haiku-4-5-20251001-v1:0')?.output, 5);
  });

  it('round-trips every suggested model to its canonical id', () => {
    for (const p of [bedrock('us-east-1'), bedrock('eu-west-3'), vertex, foundry, { id: 'anthropic' } as const]) {
      const models = suggestedModels(p);
      assert.ok(models.length >= 6, p.id);
      for (const m of models) assert.equal(canonicalModelId(m.id), m.canonical, `${p.id} ${m.id}`);
    }
    assert.ok(suggestedModels(foundry).every((m) => !m.id.includes('claude-3')));
  });
});

describe('where each client sends its requests', () => {
  const endpoint = (provider: ProviderConfig): string => {
    const sdk = createProviderSdk({ provider, apiKey: undefined, baseUrl: '' }, { timeout: 1_000, fetch });
    return typeof sdk === 'string' ? sdk : sdk.baseURL;
  };

  it("uses the cloud's endpoint for the region, never the Anthropic API's, unless a base URL is set", () => {
    const saved = { b: process.env.ANTHROPIC_BEDROCK_BASE_URL, v: process.env.ANTHROPIC_VERTEX_BASE_URL };
    // The SDKs read these themselves; the resolved config must be what counts.
    process.env.ANTHROPIC_BEDROCK_BASE_URL = 'http://stale.example';
    process.env.ANTHROPIC_VERTEX_BASE_URL = 'http://stale.example';
    try {
      assert.equal(endpoint(bedrock('eu-west-1')), 'https://bedrock-runtime.eu-west-1.amazonaws.com');
      assert.equal(
        endpoint({ ...bedrock('eu-west-1'), baseUrl: 'http://gw.example' } as ProviderConfig),
        'http://gw.example',
      );
      assert.equal(endpoint(vertex), 'https://aiplatform.googleapis.com/v1');
      assert.equal(
        endpoint({ ...vertex, region: 'us-east5' } as ProviderConfig),
        'https://us-east5-aiplatform.googleapis.com/v1',
      );
      assert.equal(endpoint(foundry), 'https://r.services.ai.azure.com/anthropic/');
      assert.match(endpoint({ id: 'foundry', skipAuth: false }), /ANTHROPIC_FOUNDRY_RESOURCE/);
      assert.match(endpoint({ id: 'anthropic' }), /No Anthropic API key/);
    } finally {
      for (const [k, v] of [
        ['ANTHROPIC_BEDROCK_BASE_URL', saved.b],
        ['ANTHROPIC_VERTEX_BASE_URL', saved.v],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});

describe('Vertex regions per model, as Claude Code reads them', () => {
  it('names the variable of each model family', () => {
    const cases: Array<[string, string | undefined]> = [
      ['claude-sonnet-4-6', 'VERTEX_REGION_CLAUDE_4_6_SONNET'],
      ['claude-sonnet-4-5@20250929', 'VERTEX_REGION_CLAUDE_4_5_SONNET'],
      ['claude-sonnet-4-20250514', 'VERTEX_REGION_CLAUDE_4_0_SONNET'],
      ['claude-opus-4-1-20250805', 'VERTEX_REGION_CLAUDE_4_1_OPUS'],
      ['claude-opus-4@20250514', 'VERTEX_REGION_CLAUDE_4_0_OPUS'],
      ['claude-opus-4-5-20251101', 'VERTEX_REGION_CLAUDE_4_5_OPUS'],
      ['claude-haiku-4-5@20251001', 'VERTEX_REGION_CLAUDE_HAIKU_4_5'],
      ['claude-3-7-sonnet@20250219', 'VERTEX_REGION_CLAUDE_3_7_SONNET'],
      ['claude-3-5-haiku-20241022', 'VERTEX_REGION_CLAUDE_3_5_HAIKU'],
      ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'VERTEX_REGION_CLAUDE_4_5_SONNET'],
      ['my-own-model', undefined],
    ];
    for (const [model, variable] of cases) assert.equal(vertexRegionVariable(model), variable, model);
  });

  it('reads the variables from the environment, and a model with one gets its region and its price', () => {
    const env = {
      CLAUDE_CODE_USE_VERTEX: '1',
      ANTHROPIC_VERTEX_PROJECT_ID: 'p',
      CLOUD_ML_REGION: 'global',
      VERTEX_REGION_CLAUDE_4_5_SONNET: ' us-east5 ',
      VERTEX_REGION_CLAUDE_4_1_OPUS: '  ',
    };
    const { config } = resolveProvider({}, env);
    assert.deepEqual(config.id === 'vertex' && config.modelRegions, { VERTEX_REGION_CLAUDE_4_5_SONNET: 'us-east5' });
    const own = providerForModel(config, 'claude-sonnet-4-5-20250929');
    assert.equal(own.id === 'vertex' && own.region, 'us-east5');
    assert.equal(providerForModel(config, 'claude-opus-4-1-20250805'), config, 'an empty variable changes nothing');
    // The regional endpoint's 10% (from Sonnet 4.5 on) follows the model's own region.
    assert.ok(config.id === 'vertex');
    const globalOnly: ProviderConfig = { ...config, modelRegions: {} };
    const sonnet45 = 'claude-sonnet-4-5-20250929';
    assert.equal(priceOf(sonnet45, config)?.input, priceOf(sonnet45, own)?.input);
    assert.equal(
      priceOf(sonnet45, config)?.input,
      Math.round((priceOf(sonnet45, globalOnly)?.input ?? 0) * 1.1 * 1e6) / 1e6,
    );
  });
});
