// The inspector's pins list, as the host sends it: each pin of the live session with its token cost, and
// the total against the pin budget (what the next compaction would carry and leave out).

/** One pin of the live session, as the inspector's pins list shows it (text as text, never HTML). */
export interface PinView {
  id: string;
  text: string;
  tokens: number;
  /** A message pinned whole, a selection of one, or a fact carried from a compaction's dropped list. */
  source: 'message' | 'selection' | 'dropped';
  role?: 'user' | 'assistant';
  /** When it was pinned, ms since the epoch. */
  at: number;
  /** The next compaction would leave it out: over the pin budget. */
  wouldCut: boolean;
}

/** The live session's pins against the budget (engram.compaction.pinBudgetTokens). */
export interface PinsView {
  pins: PinView[];
  /** Tokens of all pins' texts, and of those the next compaction would carry. */
  tokens: number;
  carriedTokens: number;
  budget: number;
  /** How many pins the next compaction would leave out. */
  wouldCut: number;
}
