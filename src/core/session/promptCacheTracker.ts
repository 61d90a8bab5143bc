// The prompt cache as this session left it: when the conversation's prefix was last written or read, with
// which TTL and usage, and the pace of the user's prompts (the automatic TTL). It wraps the session's
// model client, so every request (the main conversation's and the forks') carries the TTL in use on all
// its breakpoints and is seen as it goes out, with the usage it reported, by the model of the cache
// (promptCacheModel.ts); a resumed session starts from its transcript's end (conversation/cacheFacts.ts).
// The cost line (llm/nextTurnCost.ts) is computed from it on demand, for the prompt the next request
// will send (`follow`), and only here: the chat and the inspector show the same figures and expiry.
import type { Agent } from '../agent/agent';
import { appendPrompt } from '../agent/turnPrompt';
import type { TranscriptCacheFacts } from '../conversation/cacheFacts';
import type { ApiMessage, Usage } from '../conversation/types';
import { chooseTtl, type CacheTtl, type CacheTtlSetting } from '../llm/cacheTtl';
import type { BreakpointOptions } from '../llm/cacheBreakpoints';
import type { ModelClient, ModelRequest } from '../llm/modelClient';
import { nextTurnCost, type NextTurnCost } from '../llm/nextTurnCost';
import { hourCacheOn } from '../llm/providerModels';
import type { ProviderConfig } from '../llm/providerTypes';
import type { Clock } from '../ports';
import { PromptCacheModel, type CachedPrompt } from './promptCacheModel';

/** The prompt the next request will send, without its model (the cost line's own). */
export type NextPrompt = Omit<CachedPrompt, 'model'>;

interface LastWrite {
  at: number;
  ttl: CacheTtl;
  usage: Usage;
  model: string;
  /** A compaction (or undo) replaced the conversation since: only the system prompt and tools are cached. */
  compacted: boolean;
}

export class PromptCacheTracker {
  private readonly promptTimes: number[] = [];
  private last: LastWrite | undefined;
  private readonly cache = new PromptCacheModel();
  private nextPrompt: (() => NextPrompt) | undefined;
  /** The provider of the wrapped client: its prices, and whether it keeps a 1-hour cache. */
  private provider: ProviderConfig | undefined;

  constructor(
    private readonly setting: () => CacheTtlSetting,
    private readonly clock: Clock,
  ) {}

  /** Starts from what the transcript says (a resumed session). */
  seed(facts: TranscriptCacheFacts): void {
    this.promptTimes.push(...facts.promptTimes);
    const r = facts.lastResponse;
    if (!r) return;
    const ttl: CacheTtl = (r.usage.cache_creation?.ephemeral_1h_input_tokens ?? 0) > 0 ? '1h' : '5m';
    this.last = { at: r.at, ttl, usage: r.usage, model: r.model, compacted: facts.compactedAfter };
  }

  /** The TTL of a message to `model` sent at `at` (its gap counts towards the pace). */
  private ttl(model: string, at: number): CacheTtl {
    return this.offered(chooseTtl(this.setting(), [...this.promptTimes, at]), model);
  }

  /** `ttl`, or 5 minutes where the provider keeps no 1-hour cache for `model`. */
  private offered(ttl: CacheTtl, model: string): CacheTtl {
    return ttl === '1h' && this.provider && !hourCacheOn(model, this.provider) ? '5m' : ttl;
  }

  /** The conversation was replaced (a compaction, an undo): the next request rewrites it. */
  onConversationReplaced(): void {
    if (this.last) this.last.compacted = true;
  }

  /** Where the prompt of the next request comes from (the session's agent, as it will send it). */
  follow(nextPrompt: () => NextPrompt): void {
    this.nextPrompt = nextPrompt;
  }

  /**
   * The state and the next message's cost, given the gauge's tokens now, its fixed part, and whether its
   * count rests on a usage report that still applies (`measured`).
   */
  cost(model: string, contextTokens: number, fixedTokens: number, newTokens = 0, measured = false): NextTurnCost {
    const now = this.clock.now();
    const ttl = this.ttl(model, now);
    const next = this.cache.known ? this.nextPrompt?.() : undefined;
    return nextTurnCost(
      {
        model,
        ttl,
        ...(next ? { prefix: this.cache.lookup({ ...next, model }, ttl, now), contextMeasured: measured } : {}),
        ...(this.provider ? { provider: this.provider } : {}),
        lastRequestAt: this.last?.at,
        ...(this.last ? { lastTtl: this.last.ttl } : {}),
        lastUsage: this.last?.usage,
        contextTokens,
        fixedTokens,
        compacted: this.last?.compacted ?? false,
      },
      now,
      newTokens,
    );
  }

  /** `client` with the TTL on every request, and each request's time and usage noted here. */
  wrap(client: ModelClient): ModelClient {
    this.provider = client.provider;
    return {
      ...(client.provider ? { provider: client.provider } : {}),
      stream: async (req, handlers, signal) => {
        const at = this.clock.now();
        // A prompt the person typed opens a turn; its time counts towards the pace before its own TTL is chosen.
        const main = req.cache?.cacheTail !== false;
        if (main && isPrompt(req.messages[req.messages.length - 1])) this.promptTimes.push(at);
        const ttl = this.offered(chooseTtl(this.setting(), this.promptTimes), req.model);
        const sent: ModelRequest = { ...req, cache: { ...req.cache, ttl } };
        const response = await client.stream(sent, handlers, signal);
        this.noteResponse(main, at, ttl, response.usage, req.model);
        if (response.id) this.cache.observe(sent, ttl, response.usage, at);
        return response;
      },
    };
  }

  private noteResponse(main: boolean, at: number, ttl: CacheTtl, usage: Usage, model: string): void {
    const read = usage.cache_read_input_tokens ?? 0;
    if (main) {
      this.last = { at, ttl, usage, model, compacted: false };
      return;
    }
    // A fork (notes update, summary) that read the whole cached prefix refreshed its TTL.
    const last = this.last;
    if (last && !last.compacted && read >= cachedTokens(last.usage)) last.at = at;
  }
}

/**
 * The request `agent` sends for the next prompt, built as its loop builds it: the system prompt and the
 * tools offered now, the conversation with the new prompt appended (empty: only where the breakpoints
 * go depends on it), and compaction's breakpoint hints, looked at without using them up.
 */
export function nextPromptOf(
  agent: Agent,
  hints?: (messages: readonly ApiMessage[]) => BreakpointOptions | undefined,
): NextPrompt {
  const messages = agent.messages.slice();
  appendPrompt(messages, '');
  const cache = hints?.(messages);
  return {
    system: agent.systemPrompt,
    tools: agent.offeredTools.map((t) => t.schema),
    messages,
    ...(cache ? { cache } : {}),
  };
}

function cachedTokens(u: Usage): number {
  return (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
}

function isPrompt(m: ApiMessage | undefined): boolean {
  if (!m || m.role !== 'user') return false;
  return typeof m.content === 'string' || !m.content.some((b) => b.type === 'tool_result');
}
