// When the session notes get written (DESIGN 4). Pure: no I/O, no clock, so every firing point can be
// asserted from a table. The caller feeds it one observation per model response of the MAIN conversation
// (forks and sub-agents never call it) and tells it when an update actually started.
//
//            response (tokens < init)                      response, not due
//             +------+                                       +------+
//             |      v                                       |      v
//        +-----------------+  tokens >= init   +-------------------------+
//  ----> | not initialized | ----------------> | initialized (notes file) | <--+
//        +-----------------+   fire 'init'     +-------------------------+    |
//                                                   |  due: grew >= growth    |
//                                                   |  AND (tool calls >= N   |
//                                                   |       OR a turn ended   |
//                                                   |       with no tool call)|
//                                                   |  (due at a response that|
//                                                   |   called tools: fires at|
//                                                   |   the next one)         |
//                                                   +-------- fire 'update' --+
//
// An observation only counts; `markStarted` moves the baseline. A decision the caller cannot act on
// (an update is still running) is simply not marked, so the next response asks again with the counts
// kept. The growth baseline follows the context down: after a compaction shrinks the context, growth is
// measured from the smaller size, otherwise notes would stop until the context regained its old size.
import { NOTES_INIT_TOKENS, NOTES_UPDATE_GROWTH_TOKENS, NOTES_UPDATE_TOOL_CALLS } from '../../thresholds';

export interface TriggerThresholds {
  /** Context tokens at which the notes are first written. */
  initTokens: number;
  /** Context growth since the last update needed for another one. */
  growthTokens: number;
  /** Tool calls since the last update that make an update due (with enough growth). */
  toolCalls: number;
  /** At or above this many context tokens no ordinary update fires: compaction catches the notes up. */
  quietAboveTokens?: number;
}

export const DEFAULT_THRESHOLDS: TriggerThresholds = {
  initTokens: NOTES_INIT_TOKENS,
  growthTokens: NOTES_UPDATE_GROWTH_TOKENS,
  toolCalls: NOTES_UPDATE_TOOL_CALLS,
};

export interface TriggerState {
  initialized: boolean;
  /** Context size when the last update started (or the lowest size seen since, see above). */
  tokensAtLastUpdate: number;
  /** tool_use blocks in main-conversation responses since the last update started. */
  toolCallsSinceUpdate: number;
  /** Due at a response that called tools: waiting one response for their results (not persisted). */
  awaitingResults?: boolean;
}

export const INITIAL_TRIGGER_STATE: TriggerState = {
  initialized: false,
  tokensAtLastUpdate: 0,
  toolCallsSinceUpdate: 0,
};

export interface ResponseObservation {
  /** Context used after this response (its usage: input + cache write + cache read + output). */
  contextTokens: number;
  /** tool_use blocks in this response. */
  toolCalls: number;
  /**
   * tool_use blocks in the current user turn so far, this response included (default: this response's).
   * "The last turn had no tool call" (DESIGN 4) is judged on the whole turn: a final answer after a tool
   * call is not a turn without one.
   */
  turnToolCalls?: number;
}

/** Why nothing fires, for logs and table tests. */
export type QuietReason =
  | 'belowInit' // not initialized and the context is below the init threshold
  | 'growth' // not enough growth since the last update
  | 'toolCalls' // grown enough, but too few tool calls, and the turn has called a tool
  | 'resultsPending' // due at a response that called tools: the next response, which has their results, fires
  | 'nearCompaction'; // past the mark where compaction catches the notes up itself

export type TriggerDecision = { fire: false; reason: QuietReason } | { fire: true; kind: 'init' | 'update' };

export interface Observed {
  /** The state with this response counted (keep it whether or not the decision is acted on). */
  state: TriggerState;
  decision: TriggerDecision;
}

export function observeResponse(state: TriggerState, obs: ResponseObservation, t: TriggerThresholds): Observed {
  const counted: TriggerState = {
    initialized: state.initialized,
    tokensAtLastUpdate: Math.min(state.tokensAtLastUpdate, obs.contextTokens),
    toolCallsSinceUpdate: state.toolCallsSinceUpdate + obs.toolCalls,
    ...(state.awaitingResults ? { awaitingResults: true } : {}),
  };
  if (!counted.initialized) {
    const decision: TriggerDecision =
      obs.contextTokens >= t.initTokens ? { fire: true, kind: 'init' } : { fire: false, reason: 'belowInit' };
    return { state: counted, decision };
  }
  if (obs.contextTokens - counted.tokensAtLastUpdate < t.growthTokens)
    return { state: counted, decision: { fire: false, reason: 'growth' } };
  if (t.quietAboveTokens !== undefined && obs.contextTokens >= t.quietAboveTokens)
    return { state: counted, decision: { fire: false, reason: 'nearCompaction' } };
  // A turn that ended without any tool call is a natural pause (the model answered and waits for the
  // user): the conversation is in a settled state worth writing down even after few tool calls. A turn
  // that called tools waits for the tool-call count instead, so a session whose every turn reads a file
  // updates every few turns, not after each one.
  if (counted.toolCallsSinceUpdate < t.toolCalls && (obs.turnToolCalls ?? obs.toolCalls) > 0)
    return { state: counted, decision: { fire: false, reason: 'toolCalls' } };
  // Due at a response that called tools: the fork would see those calls answered "not run here" and
  // the notes would cover work whose results they never saw. One response later the results are in
  // (and the cursor covers them, so a session-memory compaction keeps less); it fires then, whatever
  // that response does.
  if (obs.toolCalls > 0 && !counted.awaitingResults)
    return { state: { ...counted, awaitingResults: true }, decision: { fire: false, reason: 'resultsPending' } };
  return { state: counted, decision: { fire: true, kind: 'update' } };
}

/** An update (or the init) started, covering the context as of `contextTokens`. */
export function markStarted(contextTokens: number): TriggerState {
  return { initialized: true, tokensAtLastUpdate: contextTokens, toolCallsSinceUpdate: 0 };
}

/** Thresholds from settings; anything missing, non-finite or negative falls back to the default. */
export function resolveThresholds(partial: Partial<TriggerThresholds> = {}): TriggerThresholds {
  const pick = (v: number | undefined, d: number): number => (v !== undefined && Number.isFinite(v) && v >= 0 ? v : d);
  return {
    initTokens: pick(partial.initTokens, DEFAULT_THRESHOLDS.initTokens),
    growthTokens: pick(partial.growthTokens, DEFAULT_THRESHOLDS.growthTokens),
    toolCalls: pick(partial.toolCalls, DEFAULT_THRESHOLDS.toolCalls),
    ...(partial.quietAboveTokens !== undefined && Number.isFinite(partial.quietAboveTokens)
      ? { quietAboveTokens: partial.quietAboveTokens }
      : {}),
  };
}
