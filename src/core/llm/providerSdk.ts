// What the model client needs of any provider's SDK client, and the options every client is built with;
// shared by providerClient.ts and the lazily loaded cloudChunk.ts.
import type { Messages } from '@anthropic-ai/sdk/resources/messages';

/** What every client shares: our own retry loop, the stall-guarded fetch, no SDK logging. */
export interface CommonClientOptions {
  timeout: number;
  fetch: typeof fetch;
}

/** What the model client needs of any provider's SDK client. */
export interface ProviderSdk {
  messages: Pick<Messages, 'create'> & Partial<Pick<Messages, 'countTokens'>>;
  /** Where requests go, for "Could not reach …" messages. */
  baseURL: string;
}

export type Shared = CommonClientOptions & { maxRetries: 0; logLevel: 'off' };
