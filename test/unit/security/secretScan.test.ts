// The secret scanner shared by tool results and (later) the team-memory push: what it finds, what it
// leaves, that the scanned text cannot switch it off, and what it costs on a 1 MB result.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addKnownSecret, redactSecrets, scanSecrets } from '../../../src/core/security/secretScan';

const presetAnthropic = `sk-ant-api03-${'Ab3'.repeat(31)}AA`;
const adminAnthropic = `sk-ant-admin01-${'Zq8'.repeat(20)}`;
const github = `ghp_${'a1B2'.repeat(9)}`;
const slack = 'xoxb-123456789012-1234567890123-abcdefghijABCDEFGHIJklmn';
const awsSecretValue = 'q7Lm2Vx9Rt4Wb8Nc1Kd6Hf3Jg5Ps0YzAeUiOoTrE';
const pem = `-----BEGIN RSA PRIVATE KEY-----\n${'MIIEowIBAAKCAQEA7xQz'.repeat(8)}\n-----END RSA PRIVATE KEY-----`;

describe('secretScan', () => {
  it('redacts the kinds people leak, and leaves ordinary text alone', async () => {
    const text = [
      `ANTHROPIC_API_KEY=${presetAnthropic}`,
      `admin key ${adminAnthropic} here`,
      `token: ${github}`,
      `slack ${slack}`,
      `aws_secret_access_key = "${awsSecretValue}"`,
      pem,
      'postgres://app:hunter2hunter2@db.example.com:5432/app',
      'const answer = 42; // ordinary code with sk- and ant words',
    ].join('\n');
    const { text: out, findings } = await redactSecrets(text, { env: {} });
    for (const secret of [
      presetAnthropic,
      adminAnthropic,
      github,
      slack,
      awsSecretValue,
      'hunter2hunter2',
      'MIIEowIBAAKCAQEA7xQz',
    ]) {
      assert.equal(out.includes(secret), false, `${secret.slice(0, 12)}... is gone:\n${out}`);
    }
    assert.match(out, /^ANTHROPIC_API_KEY=\[REDACTED anthropic\]$/m);
    assert.match(out, /const answer = 42; \/\/ ordinary code with sk- and ant words/);
    assert.deepEqual([...new Set(findings.map((f) => f.kind))].sort(), [
      'anthropic',
      'aws',
      'database-connection-string',
      'github',
      'privatekey',
      'slack',
    ]);
    assert.deepEqual((await redactSecrets('nothing to see here, just prose and code()', { env: {} })).findings, []);
  });

  it('cannot be switched off by a secretlint-disable comment in the scanned text', async () => {
    const text = `// secretlint-disable\n${presetAnthropic}\n/* secretlint-disable-next-line */\n${github}`;
    const { text: out } = await redactSecrets(text, { env: {} });
    assert.equal(out.includes(presetAnthropic) || out.includes(github), false, out);
  });

  it('redacts the exact values of the credentials in use, whatever their shape', async () => {
    const env = { ANTHROPIC_API_KEY: 'gateway-key-0123456789', ANTHROPIC_AUTH_TOKEN: 'short' };
    const out = await redactSecrets('a gateway-key-0123456789 b gateway-key-0123456789 c short', { env });
    assert.equal(
      out.text,
      'a [REDACTED api key] b [REDACTED api key] c short',
      'values under 8 characters are not searched for',
    );
    addKnownSecret('from-secret-storage-42');
    assert.equal((await redactSecrets('x from-secret-storage-42 y', { env: {} })).text, 'x [REDACTED api key] y');
  });

  it('redacts a known value that is also a pattern match once', async () => {
    const findings = await scanSecrets(`k=${presetAnthropic};`, { env: { ANTHROPIC_API_KEY: presetAnthropic } });
    assert.equal(findings.length, 1);
    assert.deepEqual([findings[0].start, findings[0].end], [2, 2 + presetAnthropic.length]);
  });

  it('scans a 1 MB result in well under the time of a model call', async () => {
    const line =
      'export function handler(req: Request) { return fetch(`https://api.example.com/v1/items/${req.id}`); }\n';
    let text = '';
    while (text.length < 1_000_000) text += line;
    text = `${text.slice(0, 500_000)}KEY=${presetAnthropic}\n${text.slice(500_000)}`;
    await scanSecrets('warm up the rules', { env: {} });
    const times: number[] = [];
    let out = '';
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      out = (await redactSecrets(text, { env: {} })).text;
      times.push(performance.now() - t0);
    }
    const best = Math.min(...times);
    console.log(`secretScan: 1 MB in ${best.toFixed(1)} ms (best of 3: ${times.map((t) => t.toFixed(1)).join(', ')})`);
    assert.equal(out.includes(presetAnthropic), false);
    assert.ok(best < 1000, `1 MB took ${best.toFixed(0)} ms`);
  });
});
