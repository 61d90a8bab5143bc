// The circuit breaker of automatic compaction: it counts the automatic and reactive failures in a row
// and, at the limit, stops automatic compaction so a conversation that cannot be compacted does not
// pay for a failing attempt before every model call.
//
//   auto on --(the limit of failures in a row)--> stopped
//   stopped --(a manual compaction succeeds, or automatic compaction is turned back on)--> auto on
//
// It only decides; the orchestrator tells the user (its 'failed' and 'autoCompactionStopped' events).
export class AutoCompactionBreaker {
  private failuresInARow = 0;
  private isStopped = false;

  /** `limit`: the failures in a row that stop automatic compaction (read at each failure: a setting). */
  constructor(private readonly limit: () => number) {}

  /** Failures in a row so far (a manual failure is not counted). */
  get failures(): number {
    return this.failuresInARow;
  }

  /** True once the limit was reached, until reset. */
  get stopped(): boolean {
    return this.isStopped;
  }

  /** A compaction was applied: the failures before it no longer count. */
  succeeded(): void {
    this.failuresInARow = 0;
  }

  /** Automatic compaction is on again, with no failures counted. */
  reset(): void {
    this.isStopped = false;
    this.failuresInARow = 0;
  }

  /** Counts a failure; returns the reason to tell the user when this one stops automatic compaction. */
  countFailure(automatic: boolean, lastReason: string): string | undefined {
    this.failuresInARow++;
    if (!automatic || this.failuresInARow < this.limit() || this.isStopped) return undefined;
    this.isStopped = true;
    return (
      `Automatic compaction failed ${this.failuresInARow} times in a row (last: ${lastReason}). ` +
      'It is off until you compact by hand or turn it back on.'
    );
  }
}
