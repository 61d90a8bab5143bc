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
  | 'tool results';

export interface GaugeState {
  usedTokens: number;
  window: number;
  reservedForOutput: number;
  /** Compaction marks in percent of the window, ascending (microcompact, session-memory, full). */
  marks: number[];
  breakdown: Array<{ category: GaugeCategory; tokens: number }>;
}
