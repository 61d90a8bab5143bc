// What a model can take and give, so a setting beyond it is refused here instead of by the API (a 400
// for max_tokens over the model's output limit) or never noticed (compaction marks of a window the
// model does not have). Anthropic's published limits by model family; a model not listed (a gateway's
// name, a newer model) gets the largest limits of any listed one, which the API still checks. A cloud's id
// (`us.anthropic.claude-sonnet-4-6`, `claude-opus-4-1@20250805`) is read as its Anthropic id first.
import { canonicalModelId } from '../llm/providerModels';

export interface ModelLimits {
  /** The most `max_tokens` the model accepts. */
  maxOutputTokens: number;
  /** Its context window in tokens (the largest on offer, e.g. 1M with the long-context option). */
  contextWindow: number;
}

/** The largest limits of any model below: the bounds of the settings themselves. */
export const MAX_OUTPUT_TOKENS_ANY_MODEL = 128_000;
export const CONTEXT_WINDOW_ANY_MODEL = 1_000_000;

const FAMILIES: Array<[RegExp, ModelLimits]> = [
  [/^claude-(opus|sonnet)-4-[6-9]/, { maxOutputTokens: 128_000, contextWindow: 1_000_000 }],
  [/^claude-sonnet-4-5/, { maxOutputTokens: 64_000, contextWindow: 1_000_000 }],
  [/^claude-(opus|haiku)-4-5/, { maxOutputTokens: 64_000, contextWindow: 200_000 }],
  [/^claude-sonnet-4(-0|-2\d{7}|$)/, { maxOutputTokens: 64_000, contextWindow: 1_000_000 }],
  [/^claude-opus-4(-[01]|-2\d{7}|$)/, { maxOutputTokens: 32_000, contextWindow: 200_000 }],
  [/^claude-3-7-sonnet/, { maxOutputTokens: 64_000, contextWindow: 200_000 }],
  [/^claude-3-5-/, { maxOutputTokens: 8_192, contextWindow: 200_000 }],
  [/^claude-3-/, { maxOutputTokens: 4_096, contextWindow: 200_000 }],
];

/** The limits of `model`, or the largest of any model when it is not a known one. */
export function modelLimits(model: string): ModelLimits & { known: boolean } {
  const id = canonicalModelId(model);
  const found = FAMILIES.find(([pattern]) => pattern.test(id));
  return found
    ? { ...found[1], known: true }
    : { maxOutputTokens: MAX_OUTPUT_TOKENS_ANY_MODEL, contextWindow: CONTEXT_WINDOW_ANY_MODEL, known: false };
}
