// Where the model settings come from. Pure, so the VS Code layer (engram.* settings + SecretStorage)
// and the CLI (flags + environment) resolve them the same way.

// claude-sonnet-4-5 reaches end of life on 2026-11-30 (the SDK warns on every call with it).
export const DEFAULT_MODEL = 'claude-sonnet-4-6';
/** Matches the `engram.maxOutputTokens` default in package.json. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_000;
export const DEFAULT_BASE_URL = 'https://api.anthropic.com';

export interface ModelSettings {
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
}

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Precedence: a key in SecretStorage beats ANTHROPIC_API_KEY (the user set it on purpose in the
 * editor); an explicit engram.baseUrl beats ANTHROPIC_BASE_URL for the same reason.
 */
export function resolveModelConfig(settings: ModelSettings, env: Env, secret: string | undefined): ModelConfig {
  const secretKey = clean(secret);
  const envKey = clean(env.ANTHROPIC_API_KEY);
  const apiKey = secretKey ?? envKey;
  const max = settings.maxOutputTokens;
  return {
    model: clean(settings.model) ?? DEFAULT_MODEL,
    maxOutputTokens:
      typeof max === 'number' && Number.isFinite(max) && max >= 1 ? Math.floor(max) : DEFAULT_MAX_OUTPUT_TOKENS,
    baseUrl: (clean(settings.baseUrl) ?? clean(env.ANTHROPIC_BASE_URL) ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    apiKey,
    apiKeySource: secretKey ? 'secret' : envKey ? 'env' : 'none',
  };
}

function clean(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}
