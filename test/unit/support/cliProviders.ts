// What the provider tests of the command line share: the test credentials the server is told to accept,
// the path each provider's requests take, and a Claude Code user's environment for each provider
// (providerEnv.ts) in the form a child `engram` process takes, with the Anthropic API beside the clouds.
import type { ProviderId } from '../../../src/core/llm/providerTypes';
import { providerEnv, type ProviderEnvOptions } from './providerEnv';

/** AWS keys the test server knows (it checks the signature with the secret). Nothing here is a real secret. */
export const TEST_AWS = {
  accessKeyId: 'AKIDENGRAMTEST000001',
  secretAccessKey: 'engram-test-secret-key-000000000000001',
};
export const TEST_FOUNDRY_KEY = 'engram-test-foundry-key-0001';

/** What each provider puts in the request path, for asserting on the server's log. */
export const WIRE_PATH: Record<ProviderId, RegExp> = {
  anthropic: /^\/v1\/messages$/,
  bedrock: /^\/model\/[^/]+\/invoke(-with-response-stream)?$/,
  vertex: /^\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/[^/:]+:(stream)?[rR]awPredict$/,
  foundry: /^\/anthropic\/v1\/messages$/,
};

/**
 * Claude Code's environment for `provider` against the test server, as a child process's environment
 * (unset variables left out): Bedrock in us-west-2 with the test keys, Vertex AI through the server's
 * metadata emulation, Foundry with the test key; `opts` as providerEnv's (`skipAuth`: CLAUDE_CODE_SKIP_*_AUTH=1
 * and no credentials at all).
 */
export function cliProviderEnv(
  provider: ProviderId,
  server: { url: string; port: number },
  opts: ProviderEnvOptions = {},
): Record<string, string> {
  if (provider === 'anthropic') return { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'test-key' };
  const env = providerEnv(provider, server, {
    ...(provider === 'bedrock' ? { region: 'us-west-2' } : {}),
    ...(provider === 'bedrock' && !opts.skipAuth && !opts.awsProfile ? { aws: TEST_AWS } : {}),
    foundryKey: TEST_FOUNDRY_KEY,
    ...opts,
  });
  if (opts.skipAuth && provider === 'vertex') env.GCE_METADATA_HOST = undefined;
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}
