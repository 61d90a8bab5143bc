// The prompt cache as this session left it: when the conversation's prefix was last written or read, with
// which TTL and usage, and the pace of the user's prompts (the automatic TTL). It wraps the session's
// model client, so every request (the main conversation's and the forks') carries the TTL in use on all
// its breakpoints and is seen as it goes out; a resumed session starts from its transcript's end
// (conversation/cacheFacts.ts). The cost line (llm/nextTurnCost.ts) is computed from it on demand.
import type { TranscriptCacheFacts } from '../conversation/cacheFacts';
import type { ApiMessage, Usage } from '../conversation/types';
import { chooseTtl, type CacheTtl, type CacheTtlSetting } from '../llm/cacheTtl';
import type { ModelClient, ModelRequest } from '../llm/modelClient';
import { nextTurnCost, type NextTurnCost } from '../llm/nextTurnCost';
import type { Clock } from '../ports';

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

  /** The TTL of a message sent at `at` (its gap counts towards the pace). */
  ttl(at = this.clock.now()): CacheTtl {
    return chooseTtl(this.setting(), [...this.promptTimes, at]);
  }

  /** The conversation was replaced (a compaction, an undo): the next request rewrites it. */
  onConversationReplaced(): void {
    if (this.last) this.last.compacted = true;
  }

  /** The state and the next message's cost, given the gauge's tokens now and its fixed part. */
  cost(model: string, contextTokens: number, fixedTokens: number, newTokens = 0): NextTurnCost {
    const now = this.clock.now();
    return nextTurnCost(
      {
        model,
        ttl: this.ttl(now),
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
    return {
      stream: async (req, handlers, signal) => {
        const at = this.clock.now();
        // A prompt the person typed opens a turn; its time counts towards the pace before its own TTL is chosen.
        const main = req.cache?.cacheTail !== false;
        if (main && isPrompt(req.messages[req.messages.length - 1])) this.promptTimes.push(at);
        const ttl = chooseTtl(this.setting(), this.promptTimes);
        const sent: ModelRequest = { ...req, cache: { ...req.cache, ttl } };
        const response = await client.stream(sent, handlers, signal);
        this.noteResponse(main, at, ttl, response.usage, req.model);
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

function cachedTokens(u: Usage): number {
  return (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
}

function isPrompt(m: ApiMessage | undefined): boolean {
  if (!m || m.role !== 'user') return false;
  return typeof m.content === 'string' || !m.content.some((b) => b.type === 'tool_result');
}
