// The bookkeeping of one conversation's compactions: each applied stage becomes a transcript record, an
// event on the timeline and the before/after lists an exact undo needs; undoing takes the newest back
// off all three. Kept apart from the orchestrator, which decides when to compact: how a compaction is
// recorded changes for other reasons (the transcript format, the timeline) than when one runs.
import { randomUUID } from 'node:crypto';
import type { ApiMessage } from '../conversation/types';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import type { Clock, Logger } from '../ports';
import type { ConversationIds } from './conversationIds';
import { compactionEvent, type CompactionEvent } from './events';
import type { RecordMeta } from './manualCompaction';
import { recordStage } from './transcriptRecords';
import { undoNewest, type UndoStash } from './undo';
import type { CompactionResult, CompactionTrigger } from './types';

export interface LedgerOptions {
  /** Compactions recorded before (a resumed session): the newest can be undone. */
  events?: readonly CompactionEvent[];
  ids: ConversationIds;
  clock: Clock;
  logger: Logger;
  newId?(): string;
  /** Where the conversation is recorded now (the attached agent's transcript), if anywhere. */
  transcript(): TranscriptWriter | undefined;
}

export class CompactionLedger {
  private readonly timeline: CompactionEvent[] = [];
  /** The last compaction's before/after lists: an exact undo while nothing else changed. */
  private stash: UndoStash | undefined;

  constructor(private readonly opts: LedgerOptions) {
    this.timeline.push(...(opts.events ?? []));
  }

  /** Every compaction of this conversation so far, oldest first. */
  get events(): readonly CompactionEvent[] {
    return this.timeline;
  }

  get newest(): CompactionEvent | undefined {
    return this.timeline[this.timeline.length - 1];
  }

  /** Records a stage in the transcript and the timeline, and keeps what an exact undo needs. */
  async record(result: CompactionResult, trigger: CompactionTrigger, m: RecordMeta): Promise<CompactionEvent> {
    const { durationMs, beforeEntries, view } = m;
    const id = this.newId();
    const marks = {
      ...(m.focus ? { focus: m.focus } : {}),
      ...(m.summaryEdited ? { summaryEdited: true } : {}),
      ...(m.pinsCarried ? { pinsCarried: m.pinsCarried } : {}),
      ...(m.keptInstructions ? { keptInstructions: m.keptInstructions } : {}),
    };
    const event = compactionEvent(result, { id, trigger, durationMs, at: this.opts.clock.now(), ...marks });
    const writer = this.opts.transcript();
    if (writer) {
      try {
        const meta = { eventId: id, trigger, durationMs, maxChars: m.maxChars, ...marks };
        const linesUpTo = (tail: string) => this.opts.ids.linesUpTo(writer, view, tail);
        await recordStage(writer, result, beforeEntries, meta, linesUpTo);
      } catch (e) {
        this.opts.logger.error('Could not record the compaction in the transcript', e);
      }
    }
    this.timeline.push(event);
    this.stash = { event, before: beforeEntries.slice(), after: result.entries.map((e) => e.message) };
    return event;
  }

  /**
   * Puts back what the newest compaction replaced in `current` (messages added since stay) and takes it
   * off the timeline. Undefined when it cannot be undone.
   */
  async undoNewest(
    current: readonly ApiMessage[],
    preTokens: number,
  ): Promise<{ restored: ApiMessage[]; undone: CompactionEvent } | undefined> {
    const last = this.newest;
    if (!last) return undefined;
    const writer = this.opts.transcript();
    const restored = await undoNewest({
      event: last,
      current,
      ...(this.stash ? { stash: this.stash } : {}),
      ...(writer ? { writer } : {}),
      ids: this.opts.ids,
      eventId: this.newId(),
      preTokens,
      logger: this.opts.logger,
    });
    if (!restored) return undefined;
    this.timeline.pop();
    this.stash = undefined;
    return { restored, undone: last };
  }

  private newId(): string {
    return this.opts.newId?.() ?? randomUUID();
  }
}
