// The compaction settings (DESIGN 5). Defaults come from thresholds.ts; the VS Code layer maps
// `engram.compaction.*` (and `engram.contextWindow`) onto this shape, the CLI maps its flags.
import {
  DEFAULT_CONTEXT_WINDOW,
  FULL_COMPACT_PERCENT,
  KEEP_MAX_TOKENS,
  PIN_BUDGET_TOKENS,
  KEEP_MIN_TEXT_MESSAGES,
  KEEP_MIN_TOKENS,
  MAX_CONSECUTIVE_COMPACT_FAILURES,
  MAX_REACTIVE_RETRIES,
  MICROCOMPACT_KEEP_RECENT_RESULTS,
  MICROCOMPACT_PERCENT,
  MICROCOMPACT_RESULT_CHARS,
  NOTES_WAIT_TIMEOUT_MS,
  REATTACH_FILE_TOKENS,
  REATTACH_MAX_FILES,
  REATTACH_TOTAL_TOKENS,
  SESSION_MEMORY_COMPACT_PERCENT,
  NOTES_CATCH_UP_BEFORE_COMPACTION,
  TRIM_SUPERSEDED_FIRST,
} from '../thresholds';

export interface CompactionSettings {
  /** Compact automatically before model calls (`engram.compaction.auto`). */
  auto: boolean;
  /** Recover from "prompt is too long" by compacting and retrying (`engram.compaction.reactive`). */
  reactive: boolean;
  /** The model's context window in tokens (`engram.contextWindow`). */
  contextWindow: number;
  /** Marks, in percent of the window: microcompact, session-memory compaction, full compaction. */
  microcompactPercent: number;
  sessionMemoryPercent: number;
  fullPercent: number;
  /**
   * Automatic microcompact waits until it can save at least this share of the window (percent): every
   * trim rewrites the prompt from the first trimmed result on, so trimming in batches keeps the
   * prompt cache warm instead of missing it on every call.
   */
  microcompactMinSavingsPercent: number;
  /** Newest tool results that microcompact leaves whole. */
  keepRecentToolResults: number;
  /** Older tool results are cut to this many characters. */
  toolResultChars: number;
  /** Trims cut superseded copies first and keep each file's newest copy whole (supersededResults.ts). */
  trimSupersededFirst: boolean;
  /** Session-memory compaction lets live notes that lag behind catch up first (NotesSource.catchUp). */
  notesCatchUp: boolean;
  /** Session-memory compaction keeps >= minTokens and >= minTextMessages, at most maxTokens. */
  keepMinTokens: number;
  keepMinTextMessages: number;
  keepMaxTokens: number;
  /** How long compaction waits for a running notes update. */
  notesWaitMs: number;
  /** Automatic compaction stops after this many failures in a row. */
  maxConsecutiveFailures: number;
  /** Reactive recoveries per model call. */
  maxReactiveRetries: number;
  /** Re-attached after a compaction: files, tokens per file, tokens in all. */
  reattachMaxFiles: number;
  reattachFileTokens: number;
  reattachTotalTokens: number;
  /** Pinned text carried after each summary, in tokens; the oldest pins that do not fit are cut. */
  pinBudgetTokens: number;
}

export const DEFAULT_COMPACTION_SETTINGS: Readonly<CompactionSettings> = Object.freeze({
  auto: true,
  reactive: true,
  contextWindow: DEFAULT_CONTEXT_WINDOW,
  microcompactPercent: MICROCOMPACT_PERCENT,
  sessionMemoryPercent: SESSION_MEMORY_COMPACT_PERCENT,
  fullPercent: FULL_COMPACT_PERCENT,
  microcompactMinSavingsPercent: 2,
  keepRecentToolResults: MICROCOMPACT_KEEP_RECENT_RESULTS,
  toolResultChars: MICROCOMPACT_RESULT_CHARS,
  trimSupersededFirst: TRIM_SUPERSEDED_FIRST,
  notesCatchUp: NOTES_CATCH_UP_BEFORE_COMPACTION,
  keepMinTokens: KEEP_MIN_TOKENS,
  keepMinTextMessages: KEEP_MIN_TEXT_MESSAGES,
  keepMaxTokens: KEEP_MAX_TOKENS,
  notesWaitMs: NOTES_WAIT_TIMEOUT_MS,
  maxConsecutiveFailures: MAX_CONSECUTIVE_COMPACT_FAILURES,
  maxReactiveRetries: MAX_REACTIVE_RETRIES,
  reattachMaxFiles: REATTACH_MAX_FILES,
  reattachFileTokens: REATTACH_FILE_TOKENS,
  reattachTotalTokens: REATTACH_TOTAL_TOKENS,
  pinBudgetTokens: PIN_BUDGET_TOKENS,
});

type BooleanSetting = 'auto' | 'reactive' | 'trimSupersededFirst' | 'notesCatchUp';

/**
 * Defaults overlaid with what the user set. A value of the wrong type or out of range falls back to
 * its default (a typo in settings.json must not switch compaction off), and the marks are kept in
 * order (micro <= session-memory <= full) so every stage stays reachable.
 */
export function resolveCompactionSettings(
  given: Partial<Record<keyof CompactionSettings, unknown>> = {},
): CompactionSettings {
  const d = DEFAULT_COMPACTION_SETTINGS;
  const bool = (k: BooleanSetting): boolean => (typeof given[k] === 'boolean' ? (given[k] as boolean) : d[k]);
  const num = (
    k: Exclude<keyof CompactionSettings, BooleanSetting>,
    min: number,
    max = Number.MAX_SAFE_INTEGER,
  ): number => {
    const v = given[k];
    return typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : d[k];
  };
  const micro = num('microcompactPercent', 1, 1000);
  const sm = Math.max(micro, num('sessionMemoryPercent', 1, 1000));
  const full = Math.max(sm, num('fullPercent', 1, 1000));
  const minTokens = Math.floor(num('keepMinTokens', 0));
  return {
    auto: bool('auto'),
    reactive: bool('reactive'),
    contextWindow: Math.floor(num('contextWindow', 1)),
    microcompactPercent: micro,
    sessionMemoryPercent: sm,
    fullPercent: full,
    microcompactMinSavingsPercent: num('microcompactMinSavingsPercent', 0, 100),
    keepRecentToolResults: Math.floor(num('keepRecentToolResults', 0)),
    toolResultChars: Math.floor(num('toolResultChars', 100)),
    trimSupersededFirst: bool('trimSupersededFirst'),
    notesCatchUp: bool('notesCatchUp'),
    keepMinTokens: minTokens,
    keepMinTextMessages: Math.floor(num('keepMinTextMessages', 0)),
    keepMaxTokens: Math.max(minTokens, Math.floor(num('keepMaxTokens', 0))),
    notesWaitMs: num('notesWaitMs', 0),
    maxConsecutiveFailures: Math.floor(num('maxConsecutiveFailures', 1)),
    maxReactiveRetries: Math.floor(num('maxReactiveRetries', 0, 3)),
    reattachMaxFiles: Math.floor(num('reattachMaxFiles', 0)),
    reattachFileTokens: Math.floor(num('reattachFileTokens', 0)),
    reattachTotalTokens: Math.floor(num('reattachTotalTokens', 0)),
    pinBudgetTokens: Math.floor(num('pinBudgetTokens', 0)),
  };
}

/** Tokens at a mark (percent of the window). */
export function tokensAtPercent(settings: CompactionSettings, percent: number): number {
  return Math.floor((settings.contextWindow * percent) / 100);
}
