// The one measure of how full the context is. The compaction orchestrator decides on it, and the
// status bar, the Chat view, the inspector and `engram gauge` show it, so the number the user sees is
// the number compaction acts on. The rule (DESIGN 5): the last response's input + cache creation +
// cache read + output, exact, plus estimates of the messages added after it; without a report that
// still describes the list (none yet, or the list was rewritten), the fixed parts plus every message,
// estimated. Messages are counted one by one as they arrive, cached per block, so history is never
// re-tokenized; a rewritten list is recognised by identity.
import type { ApiMessage, SystemBlock, ToolSchema, Usage } from '../conversation/types';
import {
  ContextAccountant,
  defaultTokenCounter,
  TokenEstimator,
  type ContextBreakdown,
  type FixedParts,
  type TokenCounter,
} from './accounting';

/**
 * The text of each part of a system prompt, sized separately for the breakdown (the agent's
 * SystemPromptParts, from composeSystemPrompt, has this shape).
 */
export interface PromptTexts {
  system: string;
  instructions: string;
  memoryIndex: string;
  /** The team memory index: counted in the 'memory index' category with the private one. */
  teamMemoryIndex?: string;
}

/** A tool as the gauge sizes it: its schema, and `mcp` when an MCP server provides it (its own category). */
export interface OfferedTool {
  schema: ToolSchema;
  mcp?: unknown;
}

export interface ContextGaugeOptions {
  /** Per-block message estimates; share one with whoever else estimates the same messages. */
  estimator?: TokenEstimator;
  /** Counts the system prompt and tool schemas. Default: the exact tokenizer once loaded, else an estimate. */
  count?: TokenCounter;
}

export class ContextGauge {
  readonly estimator: TokenEstimator;
  private readonly count: TokenCounter;
  private readonly accountant: ContextAccountant;
  // What the count covers: how many messages and the last of them. The agent's list only grows or is
  // replaced, so a different message in that place means it was rewritten. (No copy of the list is kept:
  // the agent's array grows in place.)
  private seenCount = 0;
  private lastSeen: ApiMessage | undefined;
  /** The message the last usage report ended with: while it is in its place, the report still applies. */
  private reportAnchor: ApiMessage | undefined;
  private sized:
    | {
        system: readonly SystemBlock[];
        tools: readonly OfferedTool[];
        parts: PromptTexts | undefined;
        /** The local tokenizer's sizes, which a count from the API rescales. */
        estimate: Omit<FixedParts, 'notes'>;
      }
    | undefined;

  constructor(opts: ContextGaugeOptions = {}) {
    this.count = opts.count ?? defaultTokenCounter;
    this.estimator = opts.estimator ?? new TokenEstimator(this.count);
    this.accountant = new ContextAccountant({ estimator: this.estimator });
  }

  /** The estimate of one message (cached per block): what compaction's stages weigh messages with. */
  tokensOf(m: ApiMessage): number {
    const t = this.estimator.message(m);
    return t.messages + t.toolResults;
  }

  /**
   * The parts of every request besides its messages: the system prompt and the tool schemas (built-in
   * and MCP apart). With `parts` (composeSystemPrompt's) the prompt is sized by category; without, the
   * parts already given for this same prompt are kept (the tool list may have changed: an MCP server
   * came up), else the whole prompt counts as `system`. Sized once per prompt and tool list.
   */
  setSystem(system: readonly SystemBlock[], tools: readonly OfferedTool[], parts?: PromptTexts): void {
    const s = this.sized;
    if (s && s.system === system && sameItems(s.tools, tools) && (parts === undefined || s.parts === parts)) return;
    const known = parts ?? (s && s.system === system ? s.parts : undefined);
    const size = (text: string): number => (text ? this.count(text) : 0);
    const prompt = known
      ? {
          system: size(known.system),
          instructions: size(known.instructions),
          memoryIndex: size(known.memoryIndex) + size(known.teamMemoryIndex ?? ''),
        }
      : { system: size(system.map((b) => b.text).join('')), instructions: 0, memoryIndex: 0 };
    const schemas = (list: readonly OfferedTool[]): number =>
      list.length > 0 ? this.count(JSON.stringify(list.map((t) => t.schema))) : 0;
    const estimate = {
      ...prompt,
      tools: schemas(tools.filter((t) => !t.mcp)),
      mcpTools: schemas(tools.filter((t) => t.mcp)),
    };
    this.accountant.setFixed(estimate);
    this.sized = { system, tools: tools.slice(), parts: known, estimate };
  }

  /**
   * The API's own count of this prompt and these tools (count_tokens): the parts keep their shares of
   * the breakdown, scaled to it, so the gauge and the cost line before the first response start from
   * the API's number rather than the local tokenizer's. False, and nothing changes, when the gauge has
   * sized another prompt or tool list since (its own count is on the way) or the count is not a positive
   * number.
   */
  calibrate(system: readonly SystemBlock[], tools: readonly OfferedTool[], counted: number): boolean {
    const s = this.sized;
    if (!s || s.system !== system || !sameItems(s.tools, tools)) return false;
    const e = s.estimate;
    const sum = SIZED_PARTS.reduce((n, k) => n + e[k], 0);
    if (!(counted > 0) || !Number.isFinite(counted) || sum <= 0) return false;
    const scaled = { ...e };
    for (const k of SIZED_PARTS) scaled[k] = Math.round((e[k] * counted) / sum);
    // Rounding leaves a few tokens over or short: the largest part takes them, so the parts add up to the count.
    const largest = SIZED_PARTS.reduce((a, k) => (e[k] > e[a] ? k : a));
    scaled[largest] += counted - SIZED_PARTS.reduce((n, k) => n + scaled[k], 0);
    this.accountant.setFixed(scaled);
    return true;
  }

  /** Fixed parts sized by the caller (a transcript on disk: what its usage reports beyond the messages). */
  setFixed(parts: Partial<FixedParts>): void {
    this.sized = undefined;
    this.accountant.setFixed(parts);
  }

  /** The fixed parts' tokens: they stay in every request, whatever compaction does to the messages. */
  get fixedTokens(): number {
    return this.accountant.fixedTokens;
  }

  /** True while the last usage report still covers the start of the list (used() is exact up to it). */
  get measured(): boolean {
    return this.reportAnchor !== undefined;
  }

  /** Brings the count up to date with `messages` (the conversation as it will be sent next). */
  sync(messages: readonly ApiMessage[]): void {
    const n = this.seenCount;
    if (messages.length >= n && (n === 0 || messages[n - 1] === this.lastSeen)) {
      for (let i = n; i < messages.length; i++) this.accountant.onMessageAdded(messages[i]);
    } else {
      // Rewritten (a prompt merged into the last message, a compaction, another session): what the last
      // report covers is kept while the message it ended with is still in its place.
      const k = this.accountant.reportedMessages;
      if (k > 0 && k <= messages.length && messages[k - 1] === this.reportAnchor) {
        this.accountant.truncate(k);
        for (let i = k; i < messages.length; i++) this.accountant.onMessageAdded(messages[i]);
      } else {
        this.accountant.reset(messages);
        this.reportAnchor = undefined;
      }
    }
    this.seenCount = messages.length;
    this.lastSeen = messages[messages.length - 1];
  }

  /** A response arrived; `messages` already ends with it (its output tokens are in the usage). */
  onResponse(usage: Usage, messages: readonly ApiMessage[]): void {
    this.sync(messages);
    if (messages.length === 0) return;
    this.accountant.onResponse(usage, messages.length);
    this.reportAnchor = messages[messages.length - 1];
  }

  /** The list was rewritten in a way identity cannot see (a compaction): the last report no longer applies. */
  forget(): void {
    this.accountant.reset([]);
    this.seenCount = 0;
    this.lastSeen = undefined;
    this.reportAnchor = undefined;
  }

  /** Tokens in context now; brought up to date with `messages` first when they are given. */
  used(messages?: readonly ApiMessage[]): number {
    if (messages) this.sync(messages);
    return this.accountant.used();
  }

  /** What fills the context; the parts add up to used(). */
  breakdown(messages?: readonly ApiMessage[]): ContextBreakdown {
    if (messages) this.sync(messages);
    return this.accountant.breakdown();
  }
}

/** The fixed parts the gauge sizes itself (the notes are set by the caller). */
const SIZED_PARTS = ['system', 'instructions', 'memoryIndex', 'tools', 'mcpTools'] as const;

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => x === b[i]));
}
