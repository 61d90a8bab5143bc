// How a host configures the engine: the settings (each key, its default and its check, read from VS Code's
// configuration or the CLI's settings file and flags), the model and key the session talks to, and the
// version a host reports. A host reads its own sources and hands the raw values here; what they mean and
// which wins is decided once, in core, for every host. Light enough for the extension's activation.
import {
  resolveModelConfig as modelConfigFrom,
  type Env,
  type ModelConfig,
  type ModelSettings,
} from '../llm/modelConfig';
import { providerName as nameOf } from '../llm/providerConfig';
import {
  canonicalModelId as canonicalOf,
  providerModelId as providerIdOf,
  suggestedModels as modelsOf,
} from '../llm/providerModels';
import type { ProviderConfig, ProviderId, ProviderModel, ProviderSettings } from '../llm/providerTypes';
import {
  resolveSettings as settingsFrom,
  type EngramSettings,
  type RawSettings,
  type ResolvedSettings,
} from '../settings/engramSettings';
import type { SearchBounds } from '../tools/searchTypes';

export type { Env, ModelConfig, ModelSettings, RawSettings, ResolvedSettings };
export type { ProviderConfig, ProviderId, ProviderModel, ProviderSettings };

/** The provider ids a setting or `--provider` accepts: anthropic, bedrock, vertex, foundry. */
export { PROVIDER_IDS } from '../llm/providerTypes';

/** Whether a ModelConfig can send a request: an API key for the Anthropic API, no provider problem for a cloud. */
export { modelReady } from '../llm/modelConfig';
export type { EngramSettings, SettingId } from '../settings/engramSettings';

/** Every setting by id: its key in VS Code's configuration and the CLI's settings file, default and check. */
export { SETTING_KEYS } from '../settings/engramSettings';

/** The settings a session reads, with a change event: a host fills it and updates it when its sources change. */
export { SettingsStore } from '../settings/settingsStore';

/** The version every host reports (`engram --version`, the transcript's `version` field). */
export { ENGRAM_VERSION } from '../version';

/**
 * The settings from raw values (absent or invalid ones take their defaults), with a problem named for
 * each value that was refused, for the host to report.
 */
export function resolveSettings(raw: RawSettings = {}): ResolvedSettings {
  return settingsFrom(raw);
}

/**
 * The model, base URL and key a session uses, from the host's settings, the environment and a stored key
 * (`secret`): a stored key beats ANTHROPIC_API_KEY, a base URL setting beats ANTHROPIC_BASE_URL.
 */
export function resolveModelConfig(settings: ModelSettings, env: Env, secret: string | undefined): ModelConfig {
  return modelConfigFrom(settings, env, secret);
}

/** The models the model picker offers for a provider, newest first, each with the id it sends. */
export function suggestedModels(provider: ProviderConfig): ProviderModel[] {
  return modelsOf(provider);
}

/** A provider's name for people: "Amazon Bedrock", "Google Vertex AI", ... */
export function providerName(id: ProviderId): string {
  return nameOf(id);
}

/** The id a provider is sent for `model` (`us.anthropic.claude-sonnet-4-6` on Bedrock in a US region). */
export function providerModelId(model: string, provider: ProviderConfig): string {
  return providerIdOf(model, provider);
}

/** The Anthropic API id of a provider's model id, which the model picker writes to `engram.model`. */
export function canonicalModelId(id: string): string {
  return canonicalOf(id);
}

/**
 * Which ripgrep Grep and Glob run on (issue 35): a host lists where one may be (its setting or flag, VS
 * Code's bundled copy, an `rg` on PATH), pickRipgrep takes the first that runs or says why none does, and
 * describeRipgrepChoice words it for the log, `/context` and the inspector. The engine itself is made by
 * search.ts's createSearchEngine (in the engine chunk: this module stays light for activation).
 */
export { describeRipgrepChoice, pickRipgrep, ripgrepOnPath } from '../tools/ripgrepLocation';
export type { RipgrepCandidate, RipgrepChoice } from '../tools/ripgrepLocation';

/**
 * The bounds every search of a session runs within: the settings' time limit and file size cap, and the
 * host's excludes (VS Code's files.exclude / search.exclude; none in the CLI).
 */
export function searchBoundsOf(settings: EngramSettings, excludes: string[]): SearchBounds {
  return {
    timeLimitMs: settings.search.timeLimitSeconds * 1000,
    maxFileBytes: settings.search.maxFileSizeMB * 1024 * 1024,
    excludes,
  };
}
