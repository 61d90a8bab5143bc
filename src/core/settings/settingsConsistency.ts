// The rules between settings, applied after each value passed its own key's check: the compaction marks
// rise strictly, the kept tail's maximum is not below its minimum, and the window and output limit fit
// the model (and each other). Each rule that changes a value says so in `problems`.
import { FULL_COMPACT_PERCENT, MICROCOMPACT_PERCENT, SESSION_MEMORY_COMPACT_PERCENT } from '../thresholds';
import { modelLimits } from './modelLimits';

/** The kept tail's maximum may not be below its minimum: a lower maximum is raised to the minimum. */
export function keepMaxAtLeastMin(keepMinTokens: number, keepMaxTokens: number, problems: string[]): number {
  if (keepMaxTokens >= keepMinTokens) return keepMaxTokens;
  problems.push(
    `engram.compaction.keepMaxTokens (${keepMaxTokens}) is below keepMinTokens (${keepMinTokens}); ` +
      `using ${keepMinTokens}.`,
  );
  return keepMinTokens;
}

/** An output limit at or above the window leaves no room for the conversation: it becomes half the window. */
export function outputWithinWindow(maxOutputTokens: number, contextWindow: number, problems: string[]): number {
  if (maxOutputTokens < contextWindow) return maxOutputTokens;
  const capped = Math.floor(contextWindow / 2);
  problems.push(
    `engram.maxOutputTokens (${maxOutputTokens}) does not fit the context window (${contextWindow}); ` +
      `using ${capped}.`,
  );
  return capped;
}

/**
 * The window and output limit bounded by what `model` has: the API would answer a larger max_tokens
 * with a 400.
 */
export function withinModel(
  model: string,
  contextWindow: number,
  maxOutputTokens: number,
  problems: string[],
): { contextWindow: number; maxOutputTokens: number } {
  const limits = modelLimits(model);
  const who = limits.known ? model : 'any Claude model';
  const out = { contextWindow, maxOutputTokens };
  if (contextWindow > limits.contextWindow) {
    problems.push(
      `engram.contextWindow: ${contextWindow} is more than ${who} has (${limits.contextWindow} tokens); ` +
        `using ${limits.contextWindow}.`,
    );
    out.contextWindow = limits.contextWindow;
  }
  if (maxOutputTokens > limits.maxOutputTokens) {
    problems.push(
      `engram.maxOutputTokens: ${maxOutputTokens} is more than ${who} can write in one answer ` +
        `(${limits.maxOutputTokens}); using ${limits.maxOutputTokens}.`,
    );
    out.maxOutputTokens = limits.maxOutputTokens;
  }
  return out;
}

/**
 * Marks must rise strictly: a mark at or below the one before it would make its stage unreachable (or
 * fire two stages at once). A mark out of order falls back to its default when that restores the order,
 * else all three do.
 */
export function orderedMarks(given: [number, number, number], problems: string[]): [number, number, number] {
  if (given[0] < given[1] && given[1] < given[2]) return given;
  const defaults: [number, number, number] = [
    MICROCOMPACT_PERCENT,
    SESSION_MEMORY_COMPACT_PERCENT,
    FULL_COMPACT_PERCENT,
  ];
  for (let i = 0; i < 3; i++) {
    const tried = given.slice() as [number, number, number];
    tried[i] = defaults[i];
    if (tried[0] < tried[1] && tried[1] < tried[2]) {
      problems.push(
        `engram.compaction marks ${given.join(' / ')} are not in rising order; using ${tried.join(' / ')}.`,
      );
      return tried;
    }
  }
  problems.push(`engram.compaction marks ${given.join(' / ')} are not in rising order; using ${defaults.join(' / ')}.`);
  return defaults;
}
