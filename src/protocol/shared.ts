// Pieces both webviews use.

// ---------- shared pieces ----------

export type ViewId = 'chat' | 'inspector';

/** What fills the context, in the order the gauge lists it (the parts add up to usedTokens). */
export type GaugeCategory =
  | 'system'
  | 'tools'
  | 'instructions'
  | 'memory index'
  | 'recalled memories'
  | 'session notes'
  | 'messages'
  | 'tool results'
  /** Definitions of the tools MCP servers provide (listed only when some are offered). */
  | 'mcp tools';

export interface GaugeState {
  usedTokens: number;
  window: number;
  reservedForOutput: number;
  /** Compaction marks in percent of the window, ascending (microcompact, session-memory, full). */
  marks: number[];
  breakdown: Array<{ category: GaugeCategory; tokens: number }>;
  /** The prompt cache and the next message's cost, for an open session that has a model. */
  cache?: CacheCost;
}

/** Tokens of the next request by how they are billed, and their price (absent: the model's price is unknown). */
export interface CacheSplit {
  read: number;
  write: number;
  input: number;
  usd?: number;
}

/** The prompt cache's state and what the next message costs warm or cold (the cost line). */
export interface CacheCost {
  warm: boolean;
  /** Milliseconds the cache has left when this was sent (0 when cold). */
  leftMs: number;
  /**
   * When the cache expires (ms since the epoch), while warm: every view counts down to this one instant,
   * so the chat and the inspector always show the same time left.
   */
  expiresAt?: number;
  ttl: '5m' | '1h';
  ifWarm: CacheSplit;
  ifCold: CacheSplit;
  /** The model costs nothing (the offline demo): the line shows tokens and says so, no prices. */
  free?: boolean;
  /**
   * The provider that has no token count (e.g. "Amazon Bedrock"): the prompt's tokens are the local
   * estimate, and the tooltip says so.
   */
  localCountBy?: string;
}
