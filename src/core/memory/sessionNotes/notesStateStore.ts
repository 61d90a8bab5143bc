// The session notes' bookkeeping: the trigger counts and the update history of the sidecar state file
// (stateFile.ts), held in memory between writes. Apart from the updater (updater.ts) because what is
// recorded, and when it is saved, changes for other reasons than when or how the notes are updated.
import { promises as fsp } from 'node:fs';
import { isFile } from '../../fs/fileKind';
import type { Logger } from '../../ports';
import type { SessionNotesPaths } from './paths';
import { initialNotesState, readNotesState, writeNotesState, type NotesState } from './stateFile';
import { markStarted, type TriggerState } from './trigger';

export class NotesStateStore {
  private data: NotesState = initialNotesState();
  private writes: Promise<void> = Promise.resolve();
  /** The state changed since it was last written (or its write failed). */
  private dirty = false;

  constructor(
    private readonly paths: SessionNotesPaths,
    private readonly logger: Logger,
  ) {}

  get state(): Readonly<NotesState> {
    return this.data;
  }

  /** Reads the sidecar; whether the notes file exists decides what a missing sidecar means. */
  async load(): Promise<void> {
    this.data = await readNotesState(this.paths.state, await isFile(this.paths.summary));
  }

  /** The counts with one more response observed (trigger.ts); written at the next flush. */
  observed(counted: TriggerState): void {
    this.data = { ...this.data, ...counted };
    this.dirty = true;
  }

  /** An update starts: counting starts over from the context size it covers. */
  started(contextTokens: number): void {
    const { awaitingResults: _done, ...rest } = this.data;
    this.data = { ...rest, ...markStarted(contextTokens) };
    this.dirty = true;
  }

  /** An update finished: the message it covers, whether it had to condense; saved at once. */
  done(messageId: string, condensed: boolean, now: number): Promise<void> {
    const { lastError: _cleared, ...rest } = this.data;
    this.data = {
      ...rest,
      lastSummarizedMessageId: messageId,
      updatedAt: new Date(now).toISOString(),
      updates: rest.updates + 1,
      condensed,
      condenseRuns: rest.condenseRuns + (condensed ? 1 : 0),
    };
    return this.save();
  }

  /** An update failed: why, kept until the next one succeeds; saved at once. */
  failed(error: string): Promise<void> {
    this.data = { ...this.data, lastError: error };
    return this.save();
  }

  /** Writes the trigger counts when they changed (after a turn), so a reload carries on from them. */
  flush(): Promise<void> {
    if (!this.dirty || !this.data.initialized) return this.writes;
    return this.save();
  }

  /** Sidecar writes go one at a time, each writing the state as it is when its turn comes. */
  private save(): Promise<void> {
    this.dirty = false;
    this.writes = this.writes.then(async () => {
      try {
        await fsp.mkdir(this.paths.dir, { recursive: true });
        await writeNotesState(this.paths.state, this.data);
      } catch (e) {
        this.dirty = true;
        this.logger.error('Could not write the session notes state', e);
      }
    });
    return this.writes;
  }
}
