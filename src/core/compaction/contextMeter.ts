// How full the context is right now, by DESIGN 5's rule: the last response's usage (input + cache
// creation + cache read + output, exact) plus estimates of the messages added after it. Without a usage
// report that still describes the list (none yet, or the list was rewritten by a compaction), it is the
// system prompt and tools plus every message, estimated. Estimates are cached per block, so history is
// never re-tokenized.
import type { SystemBlock } from '../conversation/types';
import type { ApiMessage, Usage } from '../conversation/types';
import { usageTotal } from '../tokens/accounting';
import type { Tool } from '../tools/tool';
import type { TokensOf } from './types';

interface Baseline {
  total: number;
  /** The message the report ends with: if it is not where it was, the list was replaced. */
  anchor: ApiMessage;
  count: number;
}

export class ContextMeter {
  private baseline: Baseline | undefined;
  private fixedCache: { system: unknown; tools: unknown; tokens: number } | undefined;

  constructor(private readonly tokensOf: TokensOf, private readonly countTokens: (text: string) => number) {}

  /** A response arrived; `messages` already ends with it. */
  onResponse(usage: Usage, messages: readonly ApiMessage[]): void {
    const anchor = messages[messages.length - 1];
    if (anchor) this.baseline = { total: usageTotal(usage), anchor, count: messages.length };
  }

  /** The list was rewritten: the last report no longer describes it. */
  forget(): void {
    this.baseline = undefined;
  }

  used(messages: readonly ApiMessage[], fixed: number): number {
    const b = this.baseline;
    let total = 0;
    let from = 0;
    if (b && b.count <= messages.length && messages[b.count - 1] === b.anchor) {
      total = b.total;
      from = b.count;
    } else {
      total = fixed;
    }
    for (let i = from; i < messages.length; i++) total += this.tokensOf(messages[i]);
    return total;
  }

  /** System prompt and tool schemas, counted once per (system, tools) pair. */
  fixedTokens(system: readonly SystemBlock[], tools: readonly Tool[]): number {
    if (this.fixedCache?.system === system && this.fixedCache.tools === tools) return this.fixedCache.tokens;
    const tokens = system.reduce((n, b) => n + this.countTokens(b.text), 0) + tools.reduce((n, t) => n + this.countTokens(JSON.stringify(t.schema)), 0);
    this.fixedCache = { system, tools, tokens };
    return tokens;
  }
}
