// Where the Bedrock client's credentials come from, run for real against the test server: a named AWS profile
// (credential_process, an IAM Identity Center login that ran out) through AWS's own chain, and what the
// server says to a signature made off the clock.

import { Sha256 } from '@aws-crypto/sha256-js';
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { APIConnectionError } from '@anthropic-ai/sdk';
import { SignatureV4 } from '@smithy/signature-v4';
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { applyEnv, providerEnv } from '../support/providerEnv';
import { useTestServer } from '../support/testServerFixture';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const KEY = { accessKeyId: 'AKIAENGRAMTEST000001', secretAccessKey: 'engram-test-secret-key-0000000000000000001' };
const server = useTestServer({ providers: { bedrock: { credentials: [KEY], acceptUnsigned: false } } });
const ask = (text: string) => ({
  model: MODEL,
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: text }],
});

before(() => server.ready());

describe('Bedrock: credentials from an AWS profile', () => {
  it('signs with a credential_process profile; says to run aws sso login when the SSO login ran out', async () => {
    let restoreEnv = applyEnv(providerEnv('bedrock', server, { awsProfile: { process: KEY } }));
    try {
      server.enqueue({ content: [{ type: 'text', text: 'from a profile' }] });
      const message = await new AnthropicBedrock({ maxRetries: 0 }).messages.create(ask('hi'));
      assert.deepEqual(message.content, [{ type: 'text', text: 'from a profile' }]);
      assert.match(server.requests.at(-1)?.headers.authorization ?? '', /Credential=AKIAENGRAMTEST000001\//);
    } finally {
      restoreEnv();
    }
    restoreEnv = applyEnv(providerEnv('bedrock', server, { awsProfile: { ssoExpired: true } }));
    try {
      await new AnthropicBedrock({ maxRetries: 0 }).messages.create(ask('hi'));
      assert.fail('expected the credential chain to fail');
    } catch (err) {
      assert.ok(err instanceof APIConnectionError, String(err));
      assert.equal(err.message, 'Failed to resolve AWS credentials from the credential provider chain.');
      assert.match(String((err.cause as Error).message), /run 'aws sso login'/);
    } finally {
      restoreEnv();
    }
  });
});

describe('Bedrock: signatures and the clock', () => {
  it('refuses a signature made more than 15 minutes off the clock', async () => {
    const signer = new SignatureV4({ service: 'bedrock', region: 'us-east-1', credentials: KEY, sha256: Sha256 });
    const path = `/model/${MODEL}/invoke`;
    const body = JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 10, messages: [] });
    const host = new URL(server.url).host;
    const signed = await signer.sign(
      { method: 'POST', protocol: 'http:', hostname: '127.0.0.1', path, headers: { host }, body },
      { signingDate: new Date(Date.now() - 20 * 60 * 1000) },
    );
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: signed.headers, body });
    assert.equal(res.status, 403);
    assert.match(res.headers.get('x-amzn-errortype') ?? '', /^InvalidSignatureException:/);
    const { message } = (await res.json()) as { message: string };
    assert.match(
      message,
      /^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 15 min\.\)$/,
    );
  });
});
