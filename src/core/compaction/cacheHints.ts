// Where the prompt cache can still be read after a trim, for the breakpoints of the next model calls
// (llm/cacheBreakpoints.ts). Compaction knows what it changed; the request builder does not:
// - stable: the last message holding a trimmed tool result. Found again on every call from the
//   messages themselves, so a resumed process marks the same message the last one did;
// - read: right after a trim, the message before the first one it changed. The previous call's end
//   is no longer a prefix of this call; this one is, and it lies within the API's look-back of the
//   stable message the calls before marked, so the trim reads that prefix instead of rewriting it.
import type { ApiMessage, ToolResultBlock } from '../conversation/types';
import type { BreakpointOptions } from '../llm/cacheBreakpoints';
import { isTrimmed } from './microcompact';

export class CacheHints {
  private readAt: { anchor: ApiMessage; index: number } | undefined;

  /** A trim replaced `before` by `after` (same length, changed messages are new objects). */
  noteTrim(before: readonly ApiMessage[], after: readonly ApiMessage[]): void {
    const first = after.findIndex((m, i) => before[i] !== m);
    this.readAt = first > 0 ? { anchor: after[first - 1], index: first - 1 } : undefined;
  }

  /** Anything else replaced the conversation: the old read point means nothing now. */
  forget(): void {
    this.readAt = undefined;
  }

  /** Hints for the call about to send `messages`; the read point is used once. */
  next(messages: readonly ApiMessage[]): BreakpointOptions | undefined {
    const hints = this.peek(messages);
    this.readAt = undefined;
    return hints;
  }

  /** The hints `next` would give, leaving the read point for the call (the cost line's estimate). */
  peek(messages: readonly ApiMessage[]): BreakpointOptions | undefined {
    const read = this.readAt;
    const stableAt = lastTrimmed(messages);
    const readAt = read && messages[read.index] === read.anchor ? read.index : undefined;
    if (stableAt < 0 && readAt === undefined) return undefined;
    return { ...(stableAt >= 0 ? { stableAt } : {}), ...(readAt !== undefined ? { readAt } : {}) };
  }
}

// Messages never change in place, so what a message holds is looked at once (a call scans the whole
// list while nothing is trimmed yet).
const holdsTrimmed = new WeakMap<ApiMessage, boolean>();

function lastTrimmed(messages: readonly ApiMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    let known = holdsTrimmed.get(m);
    if (known === undefined) {
      known =
        typeof m.content !== 'string' &&
        m.content.some((b) => b.type === 'tool_result' && isTrimmed(b as ToolResultBlock));
      holdsTrimmed.set(m, known);
    }
    if (known) return i;
  }
  return -1;
}
