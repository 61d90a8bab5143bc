// Context accounting (DESIGN 5): how full the model's window is. The API's last usage report is exact
// for everything up to and including its response; only the messages added since are estimated. Each
// content block is tokenized once and its count cached on the block object, so a new message costs its
// own tokens and nothing else: history is never re-tokenized (target: <= 1 ms after a new message in a
// 200K-token conversation, DESIGN 8).
import type { ApiMessage, ContentBlock, Usage } from '../conversation/types';
import { countTokens, estimateTokensFast, isTokenizerLoaded } from './tokenizer';

export type TokenCounter = (text: string) => number;

/** Role markers and turn structure the API adds around each message. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Block framing (type tags, ids); small but it adds up over thousands of blocks. */
export const BLOCK_OVERHEAD_TOKENS = 3;
/** An image costs about width x height / 750 tokens; images are scaled to ~1.15 megapixels at most. */
export const IMAGE_TOKENS = 1_600;

/** The exact tokenizer once loaded, the character estimate until then (loading is never forced here). */
export const defaultTokenCounter: TokenCounter = (text) =>
  isTokenizerLoaded() ? countTokens(text) : estimateTokensFast(text);

/** Token estimates of one message, split the way the context gauge shows them. */
export interface MessageTokens {
  /** Text, thinking and tool calls. */
  messages: number;
  /** Tool results (what microcompact trims). */
  toolResults: number;
}

/** Per-block estimates, cached by block object (a WeakMap: dropped messages free their entries). */
export class TokenEstimator {
  private readonly cache = new WeakMap<object, number>();

  constructor(private readonly count: TokenCounter = defaultTokenCounter) {}

  message(m: ApiMessage): MessageTokens {
    const out: MessageTokens = { messages: MESSAGE_OVERHEAD_TOKENS, toolResults: 0 };
    if (typeof m.content === 'string') {
      out.messages += this.cached(m, () => this.count(m.content as string));
      return out;
    }
    for (const b of m.content) {
      const tokens = this.block(b);
      if (b.type === 'tool_result') out.toolResults += tokens;
      else out.messages += tokens;
    }
    return out;
  }

  block(b: ContentBlock): number {
    return this.cached(b, () => BLOCK_OVERHEAD_TOKENS + this.blockBody(b));
  }

  private blockBody(b: ContentBlock): number {
    switch (b.type) {
      case 'text':
        return this.count(b.text);
      case 'thinking':
        return this.count(b.thinking);
      case 'redacted_thinking':
        return estimateTokensFast(b.data); // opaque data: its text says nothing about its tokens
      case 'tool_use':
        return this.count(b.name) + this.count(JSON.stringify(b.input));
      case 'image':
        return IMAGE_TOKENS;
      case 'tool_result':
        if (typeof b.content === 'string') return this.count(b.content);
        return b.content.reduce(
          (sum, inner) => sum + (inner.type === 'text' ? this.count(inner.text) : IMAGE_TOKENS),
          0,
        );
    }
  }

  private cached(key: object, compute: () => number): number {
    let tokens = this.cache.get(key);
    if (tokens === undefined) {
      tokens = compute();
      this.cache.set(key, tokens);
    }
    return tokens;
  }
}

const sharedEstimator = new TokenEstimator();

/** Estimated tokens of a message array (cached per block, so repeated calls cost little). */
export function estimateMessagesTokens(
  messages: readonly ApiMessage[],
  estimator: TokenEstimator = sharedEstimator,
): number {
  let total = 0;
  for (const m of messages) {
    const t = estimator.message(m);
    total += t.messages + t.toolResults;
  }
  return total;
}

/** Everything in a request besides the messages, sized by whoever builds those parts. */
export interface FixedParts {
  system: number;
  instructions: number;
  memoryIndex: number;
  notes: number;
  /** Definitions of the built-in tools. */
  tools: number;
  /** Definitions of the tools MCP servers provide (tools with `mcp` set): their own category in the gauge. */
  mcpTools: number;
}

export interface ContextBreakdown extends FixedParts {
  messages: number;
  toolResults: number;
  /** Equals used(): the parts above add up to it. */
  total: number;
  /** The part of total that is an estimate (messages since the last response, or all without one). */
  estimated: number;
}

/** All four usage fields: what was read, cached or written, and the response that now sits in context. */
export function usageTotal(u: Usage): number {
  return u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + u.output_tokens;
}

const NO_FIXED: FixedParts = { system: 0, instructions: 0, memoryIndex: 0, notes: 0, tools: 0, mcpTools: 0 };

export class ContextAccountant {
  private readonly estimator: TokenEstimator;
  private fixed: FixedParts = NO_FIXED;
  // Running sums over the messages, one entry per message count, so any "since message k" is O(1).
  private prefixMessages: number[] = [0];
  private prefixResults: number[] = [0];
  private lastUsage: number | undefined;
  private coveredMessages = 0;

  constructor(opts: { estimator?: TokenEstimator; count?: TokenCounter; fixed?: Partial<FixedParts> } = {}) {
    this.estimator = opts.estimator ?? (opts.count ? new TokenEstimator(opts.count) : sharedEstimator);
    if (opts.fixed) this.setFixed(opts.fixed);
  }

  get messageCount(): number {
    return this.prefixMessages.length - 1;
  }

  /** Sizes of the system prompt, instructions, memory index, notes and tool schemas (built-in and MCP; caller-estimated). */
  setFixed(parts: Partial<FixedParts>): void {
    this.fixed = { ...this.fixed, ...parts };
  }

  onMessageAdded(msg: ApiMessage): void {
    const t = this.estimator.message(msg);
    const n = this.messageCount;
    this.prefixMessages.push(this.prefixMessages[n] + t.messages);
    this.prefixResults.push(this.prefixResults[n] + t.toolResults);
  }

  /**
   * A model response arrived. `coveredMessages` is how many messages its usage accounts for: the request's
   * messages plus the response itself once it has been added (its output_tokens are in the usage).
   */
  onResponse(usage: Usage, coveredMessages: number): void {
    this.lastUsage = usageTotal(usage);
    this.coveredMessages = Math.max(0, Math.min(coveredMessages, this.messageCount));
  }

  /**
   * The conversation was rewritten (compaction, microcompact, a resumed session): start over from these
   * messages. Blocks kept from before cost nothing (cached); the old usage no longer applies.
   */
  reset(messages: readonly ApiMessage[]): void {
    this.prefixMessages = [0];
    this.prefixResults = [0];
    this.lastUsage = undefined;
    this.coveredMessages = 0;
    for (const m of messages) this.onMessageAdded(m);
  }

  /**
   * Messages from index `k` on were replaced: forget them (add the new ones after). The usage report
   * stays only when it covers no more than the first `k` messages, which are unchanged.
   */
  truncate(k: number): void {
    const keep = Math.max(0, Math.min(k, this.messageCount));
    this.prefixMessages.length = keep + 1;
    this.prefixResults.length = keep + 1;
    if (this.coveredMessages > keep) {
      this.lastUsage = undefined;
      this.coveredMessages = 0;
    }
  }

  /** How many leading messages the last usage report accounts for (0 without one). */
  get reportedMessages(): number {
    return this.lastUsage === undefined ? 0 : this.coveredMessages;
  }

  /** The fixed parts' sum (system prompt, instructions, memory index, notes, tool schemas). */
  get fixedTokens(): number {
    return this.fixedTotal();
  }

  used(): number {
    if (this.lastUsage === undefined) return this.fixedTotal() + this.messagesSince(0);
    return this.lastUsage + this.messagesSince(this.coveredMessages);
  }

  percentOf(window: number): number {
    return window > 0 ? (this.used() / window) * 100 : 0;
  }

  /**
   * What fills the context. The fixed parts are as given; messages and tool results are estimates,
   * scaled to fill what the usage report leaves after the fixed parts, so that the parts add up to used().
   */
  breakdown(): ContextBreakdown {
    const n = this.messageCount;
    const estMessages = this.prefixMessages[n];
    const estResults = this.prefixResults[n];
    const total = this.used();
    const fixed = this.fixedTotal();
    const estimated = this.lastUsage === undefined ? total : this.messagesSince(this.coveredMessages);
    const room = Math.max(0, total - fixed);
    const est = estMessages + estResults;
    const messages = est > 0 ? Math.round((room * estMessages) / est) : room;
    return { ...this.fixed, messages, toolResults: room - messages, total, estimated };
  }

  private messagesSince(k: number): number {
    const n = this.messageCount;
    return this.prefixMessages[n] - this.prefixMessages[k] + this.prefixResults[n] - this.prefixResults[k];
  }

  private fixedTotal(): number {
    const f = this.fixed;
    return f.system + f.instructions + f.memoryIndex + f.notes + f.tools + f.mcpTools;
  }
}
