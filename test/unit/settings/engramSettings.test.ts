// The one settings owner: package.json declares exactly the keys, defaults and ranges of SETTING_KEYS
// (so no default is written twice), values are checked and ordered, and the CLI's flags map onto the
// same rules.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { settingsFromFlags } from '../../../src/cli/cliSettings';
import { UsageError } from '../../../src/cli/args';
import {
  resolveSettings,
  SETTING_KEYS,
  SettingsStore,
  type EngramSettings,
} from '../../../src/core/settings/engramSettings';
import { DEFAULT_CONTEXT_WINDOW, MICROCOMPACT_PERCENT } from '../../../src/core/thresholds';

interface Declared {
  type: string;
  default: unknown;
  minimum?: number;
  maximum?: number;
}
const manifest = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Declared> } };
};
const declared = manifest.contributes.configuration.properties;

describe('settings', () => {
  it('package.json declares every key with the same default, type and range, and no other', () => {
    assert.deepEqual(
      Object.keys(declared).sort(),
      Object.keys(SETTING_KEYS)
        .map((k) => `engram.${k}`)
        .sort(),
    );
    for (const [id, key] of Object.entries(SETTING_KEYS)) {
      const d = declared[`engram.${id}`];
      assert.deepEqual(d.default, key.default, id);
      assert.equal(d.type, key.kind, id);
      if (key.kind === 'number') {
        assert.equal(d.minimum, key.minimum, `${id} minimum`);
        assert.equal(d.maximum, 'maximum' in key ? key.maximum : undefined, `${id} maximum`);
      }
    }
  });

  it('takes the defaults from thresholds.ts', () => {
    const s = resolveSettings().settings;
    assert.equal(s.contextWindow, DEFAULT_CONTEXT_WINDOW);
    assert.equal(s.compaction.microcompactPercent, MICROCOMPACT_PERCENT);
  });

  it('falls back to the default for a wrong type or a value out of range, and says so', () => {
    const { settings, problems } = resolveSettings({
      contextWindow: 0,
      'compaction.auto': 'yes',
      'memory.recall.maxFiles': 9,
    });
    assert.equal(settings.contextWindow, DEFAULT_CONTEXT_WINDOW);
    assert.equal(settings.compaction.auto, true);
    assert.equal(settings.memory.recall.maxFiles, 5);
    assert.equal(problems.length, 3);
    assert.match(problems[0], /engram\.contextWindow: 0 is below the minimum 8000/);
  });

  it('keeps the marks rising: one out of order falls back alone when that restores the order', () => {
    const marks = (raw: Parameters<typeof resolveSettings>[0]): number[] => {
      const c = resolveSettings(raw).settings.compaction;
      return [c.microcompactPercent, c.sessionMemoryPercent, c.fullPercent];
    };
    assert.deepEqual(marks({ 'compaction.microcompactPercent': 50 }), [50, 80, 100]);
    assert.deepEqual(marks({ 'compaction.microcompactPercent': 95 }), [60, 80, 100]);
    assert.deepEqual(marks({ 'compaction.sessionMemoryPercent': 60 }), [60, 80, 100]);
    assert.deepEqual(
      marks({
        'compaction.microcompactPercent': 90,
        'compaction.sessionMemoryPercent': 85,
        'compaction.fullPercent': 70,
      }),
      [60, 80, 100],
    );
    assert.deepEqual(
      marks({
        'compaction.microcompactPercent': 40,
        'compaction.sessionMemoryPercent': 50,
        'compaction.fullPercent': 90,
      }),
      [40, 50, 90],
    );
  });

  it('keeps the output reserve inside the window and keepMax above keepMin', () => {
    const s = resolveSettings({
      contextWindow: 10_000,
      maxOutputTokens: 16_000,
      'compaction.keepMinTokens': 5_000,
      'compaction.keepMaxTokens': 2_000,
    }).settings;
    assert.equal(s.maxOutputTokens, 5_000);
    assert.equal(s.compaction.keepMaxTokens, 5_000);
  });

  it('notifies listeners only when the resolved settings change', () => {
    const store = new SettingsStore({});
    const seen: EngramSettings[] = [];
    store.onChange((s) => seen.push(s));
    store.update({});
    store.update({ contextWindow: 100_000 });
    store.update({ contextWindow: 100_000 });
    assert.equal(seen.length, 1);
    assert.equal(seen[0].contextWindow, 100_000);
  });

  it('maps CLI flags onto the same rules, and a rejected flag is a usage error', () => {
    assert.equal(
      settingsFromFlags({ contextWindow: { flag: '--context-window', value: '100000' } }).contextWindow,
      100_000,
    );
    assert.equal(
      settingsFromFlags({ contextWindow: { flag: '--context-window', value: undefined } }).contextWindow,
      DEFAULT_CONTEXT_WINDOW,
    );
    assert.throws(
      () => settingsFromFlags({ contextWindow: { flag: '--context-window', value: '0' } }),
      (e: unknown) => e instanceof UsageError && /--context-window: 0 is below the minimum 8000/.test(e.message),
    );
    assert.throws(() => settingsFromFlags({ contextWindow: { flag: '--context-window', value: 'big' } }), UsageError);
    assert.throws(() => settingsFromFlags({ maxOutputTokens: { flag: '--max-tokens', value: '1.5' } }), UsageError);
  });

  it('keeps team memory off by default and takes only an http(s) server URL, saying why it refused one', () => {
    const off = resolveSettings().settings.teamMemory;
    assert.deepEqual(off, { enabled: false, serverUrl: '' });
    const on = resolveSettings({
      'teamMemory.enabled': true,
      'teamMemory.serverUrl': ' https://team.example.com:8443/memory/ ',
    });
    assert.deepEqual(on.problems, []);
    assert.deepEqual(on.settings.teamMemory, { enabled: true, serverUrl: 'https://team.example.com:8443/memory' });
    for (const bad of [
      'team.example.com',
      'ftp://team.example.com',
      'https://me:pw@team.example.com',
      'http://x.example?token=1',
      42,
    ]) {
      const r = resolveSettings({ 'teamMemory.serverUrl': bad });
      assert.equal(r.settings.teamMemory.serverUrl, '', String(bad));
      assert.equal(r.problems.length, 1, String(bad));
      assert.match(r.problems[0], /^engram\.teamMemory\.serverUrl: .+; using ""\.$/);
    }
    assert.match(
      resolveSettings({ 'teamMemory.enabled': 'yes' }).problems[0],
      /engram\.teamMemory\.enabled: expected true or false/,
    );
  });

  it('restricts the team settings in untrusted workspaces, and the pattern in package.json agrees with the check', () => {
    const full = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
      capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
    };
    const restricted = full.capabilities.untrustedWorkspaces.restrictedConfigurations;
    assert.ok(restricted.includes('engram.teamMemory.serverUrl'));
    assert.ok(restricted.includes('engram.teamMemory.enabled'));
    const pattern = new RegExp((declared['engram.teamMemory.serverUrl'] as Declared & { pattern: string }).pattern);
    for (const ok of ['', 'https://team.example.com', 'http://127.0.0.1:8080/x']) assert.ok(pattern.test(ok), ok);
    for (const bad of ['team.example.com', 'ftp://x', 'https://x?y=1']) assert.ok(!pattern.test(bad), bad);
  });

  it('reads the provider settings: an unknown provider or a base URL with a query falls back, with a problem', () => {
    const r = resolveSettings({
      provider: 'bedrock',
      'bedrock.region': ' eu-west-1 ',
      'bedrock.baseUrl': 'http://127.0.0.1:9/',
      'vertex.projectId': 'my-project',
    });
    assert.deepEqual(r.problems, []);
    assert.equal(r.settings.providers.provider, 'bedrock');
    assert.equal(r.settings.providers.bedrockRegion, 'eu-west-1');
    assert.equal(r.settings.providers.bedrockBaseUrl, 'http://127.0.0.1:9');
    assert.equal(r.settings.providers.vertexProjectId, 'my-project');
    assert.equal(resolveSettings().settings.providers.provider, 'anthropic');
    const bad = resolveSettings({ provider: 'openai', 'vertex.baseUrl': 'https://x.example?key=1' });
    assert.equal(bad.settings.providers.provider, 'anthropic');
    assert.equal(bad.settings.providers.vertexBaseUrl, '');
    assert.equal(bad.problems.length, 2);
    assert.match(bad.problems[0], /engram\.provider: expected one of anthropic, bedrock, vertex, foundry/);
  });

  it('restricts the provider, the AWS profile and the base URLs in untrusted workspaces', () => {
    const full = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
      capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
    };
    const restricted = full.capabilities.untrustedWorkspaces.restrictedConfigurations;
    for (const key of ['provider', 'bedrock.profile', 'bedrock.baseUrl', 'vertex.baseUrl', 'foundry.baseUrl'])
      assert.ok(restricted.includes(`engram.${key}`), key);
  });
});
