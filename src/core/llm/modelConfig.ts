// Where the model settings come from. Pure, so the VS Code layer (engram.* settings + SecretStorage)
// and the CLI (flags + environment) resolve them the same way.
import { type Env, resolveProvider } from './providerConfig';
import type { ProviderConfig, ProviderSettings, ProviderSource } from './providerTypes';

export type { Env };

// claude-sonnet-4-5 reaches end of life on 2026-11-30 (the SDK warns on every call with it).
export const DEFAULT_MODEL = 'claude-sonnet-4-6';
/** Matches the `engram.maxOutputTokens` default in package.json. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_000;
export const DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface ModelSettings extends ProviderSettings {
  /** `engram.model` or `--model`; unset lets ANTHROPIC_MODEL (as Claude Code users set it) decide. */
  model?: string;
  maxOutputTokens?: number;
  /** `engram.baseUrl`; empty means "not set". */
  baseUrl?: string;
}

export interface ModelConfig {
  model: string;
  maxOutputTokens: number;
  baseUrl: string;
  apiKey: string | undefined;
  /** Where the key came from, for a status line that never shows the key itself. */
  apiKeySource: 'secret' | 'env' | 'none';
  /** The cloud the model is reached through (providerConfig.ts); `anthropic` uses baseUrl and apiKey. */
  provider: ProviderConfig;
  providerSource: ProviderSource;
  /** What keeps the provider from working (an unknown name, a missing project), each with its fix. */
  providerProblems: string[];
}

/**
 * Precedence: a key in SecretStorage beats ANTHROPIC_API_KEY (the user set it on purpose in the
 * editor); an explicit engram.baseUrl beats ANTHROPIC_BASE_URL for the same reason; a model setting beats
 * ANTHROPIC_MODEL. The provider is resolved by resolveProvider (a choice beats Claude Code's environment).
 */
export function resolveModelConfig(settings: ModelSettings, env: Env, secret: string | undefined): ModelConfig {
  const secretKey = clean(secret);
  const envKey = clean(env.ANTHROPIC_API_KEY);
  const apiKey = secretKey ?? envKey;
  const max = settings.maxOutputTokens;
  const provider = resolveProvider(settings, env);
  return {
    model: clean(settings.model) ?? clean(env.ANTHROPIC_MODEL) ?? DEFAULT_MODEL,
    maxOutputTokens:
      typeof max === 'number' && Number.isFinite(max) && max >= 1 ? Math.floor(max) : DEFAULT_MAX_OUTPUT_TOKENS,
    baseUrl: (clean(settings.baseUrl) ?? clean(env.ANTHROPIC_BASE_URL) ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    apiKey,
    apiKeySource: secretKey ? 'secret' : envKey ? 'env' : 'none',
    provider: provider.config,
    providerSource: provider.source,
    providerProblems: provider.problems,
  };
}

/**
 * Whether `config` has what its provider needs to send a request: an API key for the Anthropic API; for a
 * cloud, no problem in its settings (its credentials are found by the cloud's own chain at request time).
 */
export function modelReady(config: ModelConfig): boolean {
  return config.provider.id === 'anthropic' ? config.apiKey !== undefined : config.providerProblems.length === 0;
}

function clean(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}
