// When team memory syncs in a session: at start, after a write to the team folder (debounced, so an
// agent writing five files syncs once), and on demand. Syncs never overlap; a request during a run is
// kept and run once after it (a trailing run), like the memory extraction's trigger (DESIGN 4).
//
//   idle --request()--> running --done--> idle
//                        |  request() / requestSoon() fired: trailing = true (the callers wait for it)
//                        '--done with trailing--> running (once more)
import type { TeamSyncReport } from './teamSyncTypes';

/** After a memory write, the sync waits this long for further writes before it runs. */
export const TEAM_SYNC_DEBOUNCE_MS = 2_000;

export interface TeamSyncSchedulerOptions {
  debounceMs?: number;
  onReport?(r: TeamSyncReport): void;
}

export class TeamSyncScheduler {
  private running: Promise<TeamSyncReport> | null = null;
  private trailing: Promise<TeamSyncReport> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private disposed = false;

  constructor(
    private readonly runSync: () => Promise<TeamSyncReport>,
    private readonly opts: TeamSyncSchedulerOptions = {},
  ) {}

  /** Syncs now, or right after the sync in progress (several requests meanwhile share that one run). */
  request(): Promise<TeamSyncReport> {
    if (this.running === null) {
      this.running = this.start();
      return this.running;
    }
    // After the run however it ended: a failed sync must not swallow the one asked for meanwhile.
    this.trailing ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.trailing = null;
        this.running = this.start();
        return this.running;
      });
    return this.trailing;
  }

  /** Syncs once no further call has come for the debounce time (for "after a memory write"). */
  requestSoon(): void {
    if (this.disposed) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.request().catch(() => undefined);
    }, this.opts.debounceMs ?? TEAM_SYNC_DEBOUNCE_MS);
  }

  /**
   * Cancels a pending debounced sync and stops reporting; a sync in progress (or already asked for)
   * still ends normally.
   */
  dispose(): void {
    this.disposed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private async start(): Promise<TeamSyncReport> {
    try {
      const report = await this.runSync();
      if (!this.disposed) this.opts.onReport?.(report);
      return report;
    } finally {
      // Cleared in the same microtask the run ends, so a trailing run (chained on this promise) starts next.
      if (this.trailing === null) this.running = null;
    }
  }
}
