// What an orchestrator tells its listeners (the chat's notices, the status bar, the inspector's timeline):
// a compaction done or undone, a stage's progress, a stage that declined or failed, and automatic
// compaction stopping after too many failures in a row.
import type { CompactionEvent } from './events';
import type { CompactProgress } from './fullCompact';
import type { CompactionStage, CompactionTrigger, UnavailableCode } from './types';

export type OrchestratorEvent =
  | { type: 'compacted'; event: CompactionEvent }
  | { type: 'progress'; stage: CompactionStage; trigger: CompactionTrigger; progress: CompactProgress }
  /** A stage declined and the next one was tried (e.g. notes still empty, so a summary was written). */
  | { type: 'unavailable'; stage: CompactionStage; trigger: CompactionTrigger; code: UnavailableCode; reason: string }
  | {
      type: 'failed';
      stage: CompactionStage;
      trigger: CompactionTrigger;
      code: UnavailableCode;
      reason: string;
      consecutiveFailures: number;
    }
  /** Tell the user: automatic compaction is off until they compact by hand or turn it back on. */
  | { type: 'autoCompactionStopped'; failures: number; reason: string }
  | { type: 'undone'; event: CompactionEvent };
