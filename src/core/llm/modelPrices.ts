// What a model's tokens cost, in USD per million tokens, for the next-message cost line (issue 24).
// Source: Anthropic's price list, https://platform.claude.com/docs/en/about-claude/pricing ("Model
// pricing": base input, 5m cache writes, 1h cache writes, cache hits and refreshes, output), checked
// 2026-12-04. Cache writes are 1.25x the base input for 5 minutes and 2x for an hour; a cache hit is
// 0.1x, except where the list says otherwise (the `read` column). A model not listed has no price: the
// cost line says "price unknown" rather than guess from a neighbour.
//
// The clouds list the same prices (Amazon Bedrock, https://aws.amazon.com/bedrock/pricing/, "Anthropic";
// Google Vertex AI, https://cloud.google.com/vertex-ai/generative-ai/pricing, "Claude"; Microsoft Foundry
// bills Anthropic's standard API prices, https://platform.claude.com/docs/en/build-with-claude/claude-in-microsoft-foundry).
// From Claude Sonnet 4.5 on, Bedrock and Vertex offer a global endpoint at the list price and regional
// ones (a Bedrock geography profile such as `us.` or an in-region id; a Vertex region other than `global`)
// at a 10% premium; older models keep one price ("Global vs regional endpoints" in Anthropic's
// https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock and
// https://platform.claude.com/docs/en/build-with-claude/claude-on-vertex-ai), checked 2026-12-05.

import { canonicalModelId, fromSonnet45, providerForModel, providerModelId } from './providerModels';
import type { ProviderConfig } from './providerTypes';

export interface ModelPrice {
  /** USD per million tokens. */
  input: number;
  output: number;
  write5m: number;
  write1h: number;
  read: number;
}

/** [id prefix, base input, output, cache read when it is not 0.1x input]. Longest prefix wins. */
const LIST: ReadonlyArray<[prefix: string, input: number, output: number, read?: number]> = [
  ['claude-fable-5-1', 10, 50, 0.25],
  ['claude-fable-5', 10, 50, 1],
  ['claude-opus-5', 5, 25],
  ['claude-opus-4-8', 5, 25],
  ['claude-opus-4-7', 5, 25],
  ['claude-opus-4-6', 5, 25],
  ['claude-opus-4-5', 5, 25],
  ['claude-opus-4-1', 15, 75],
  ['claude-opus-4', 15, 75],
  ['claude-sonnet-4-6', 3, 15],
  ['claude-sonnet-4-5', 3, 15],
  ['claude-sonnet-4', 3, 15],
  ['claude-3-7-sonnet', 3, 15],
  ['claude-haiku-4-5', 1, 5],
  ['claude-3-5-haiku', 0.8, 4],
  ['claude-3-haiku', 0.25, 1.25, 0.03],
];

/** The regional endpoints' premium over the list price. */
const REGIONAL_PREMIUM = 1.1;

/**
 * The price of `model` (an API id, with or without a date suffix, or a cloud's id of it) on `provider`, or
 * undefined when it is not on the list. A prefix matches only up to a separator, so `claude-opus-4` does
 * not price `claude-opus-45`.
 */
export function priceOf(model: string, provider: ProviderConfig = { id: 'anthropic' }): ModelPrice | undefined {
  const list = listPrice(model);
  if (!list) return undefined;
  const scale = regional(model, provider) ? REGIONAL_PREMIUM : 1;
  if (scale === 1) return list;
  const round = (n: number) => Math.round(n * scale * 1e6) / 1e6;
  return {
    input: round(list.input),
    output: round(list.output),
    write5m: round(list.write5m),
    write1h: round(list.write1h),
    read: round(list.read),
  };
}

/** Whether requests for `model` go to a regional endpoint that costs more than the global one. */
function regional(model: string, provider: ProviderConfig): boolean {
  if (!fromSonnet45(model)) return false;
  if (provider.id === 'bedrock') return !providerModelId(model, provider).toLowerCase().startsWith('global.');
  if (provider.id === 'vertex') {
    const own = providerForModel(provider, model);
    return own.id === 'vertex' && own.region !== 'global';
  }
  return false;
}

function listPrice(model: string): ModelPrice | undefined {
  const id = canonicalModelId(model).toLowerCase();
  let best: (typeof LIST)[number] | undefined;
  for (const row of LIST) {
    const p = row[0];
    if ((id === p || id.startsWith(`${p}-`) || id.startsWith(`${p}@`)) && (!best || p.length > best[0].length))
      best = row;
  }
  if (!best) return undefined;
  const [, input, output, read] = best;
  return { input, output, write5m: input * 1.25, write1h: input * 2, read: read ?? input / 10 };
}
