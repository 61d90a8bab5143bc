// What a session tells its host, made from what its parts report: one event stream, the timeline as
// data (notes updates, memory writes, compactions), and notices in words. Each part's listener hands its
// events here (sessionParts.ts), so the translation into what hosts hear lives in one place and the parts
// know nothing of hosts.
import type { OrchestratorEvent } from '../compaction/orchestrator';
import type { TimelineEntry } from '../inspection/timeline';
import type { AutoMemoryEvent } from '../memory/autoMemory/extraction';
import type { SessionNotesEvent } from '../memory/sessionNotes/events';
import type { TeamSyncReport } from '../memory/team/teamSyncTypes';
import type { Logger } from '../ports';
import {
  EventStream,
  type NoticeAction,
  type NoticeLevel,
  type NoticeWords,
  type SessionEvent,
  type SessionEventListener,
} from './sessionEvents';
import { compactionNotice, memoryNotice, notesNotice, staleRecallNotices } from './sessionNotices';
import { teamSyncNotice } from './teamMemoryLink';

export class SessionReporter {
  /** Notes updates, memory writes and compactions of this session, oldest first. */
  readonly timeline: TimelineEntry[] = [];
  private readonly events: EventStream<SessionEvent>;

  constructor(private readonly logger: Logger) {
    this.events = new EventStream<SessionEvent>((e) => logger.error('A session listener threw', e));
  }

  on(listener: SessionEventListener): () => void {
    return this.events.on(listener);
  }

  emit(event: SessionEvent): void {
    this.events.emit(event);
  }

  /** Drops every listener (the session was disposed). */
  clear(): void {
    this.events.clear();
  }

  memoryEvent(event: AutoMemoryEvent): void {
    this.emit({ type: 'memory', event });
    // A memory pass that saved nothing changed nothing: it is no event of the session's memory.
    const saved = event.type !== 'extractionDone' || event.saved.length > 0;
    if (
      (event.type === 'memorySaved' || event.type === 'extractionDone' || event.type === 'extractionFailed') &&
      saved
    ) {
      this.addTimeline({ kind: 'memory', at: Date.now(), event });
    }
    const told = memoryNotice(event);
    if (told) this.notice(told.level, told, told.file);
    for (const stale of staleRecallNotices(event)) this.notice(stale.level, stale);
    if (event.type === 'extractionFailed') this.logger.warn(`Memory extraction failed: ${event.error}`);
  }

  notesEvent(event: SessionNotesEvent): void {
    this.emit({ type: 'notes', event });
    if (event.type === 'notesUpdated' || event.type === 'notesUpdateFailed' || event.type === 'notesCreated') {
      this.addTimeline({ kind: 'notes', at: Date.now(), event });
    }
    const told = notesNotice(event);
    if (told) this.notice(told.level, told, told.file);
  }

  teamSync(report: TeamSyncReport): void {
    this.emit({ type: 'teamSync', report });
    const words = teamSyncNotice(report);
    if (words) this.notice(words.level, words);
    if (!report.ok) this.logger.warn(`Team memory sync failed: ${report.error ?? 'no reason given'}`);
  }

  compactionEvent(event: OrchestratorEvent): void {
    this.emit({ type: 'compaction', event });
    const words = compactionNotice(event);
    if (words) this.notice(words.level, words);
    if (event.type === 'compacted') this.addTimeline({ kind: 'compaction', at: event.event.at, event: event.event });
    if (event.type === 'compacted' || event.type === 'undone') this.emit({ type: 'context' });
  }

  notice(
    level: NoticeLevel,
    said: { text: string; words: NoticeWords },
    file?: { label: string; path: string },
    action?: NoticeAction,
  ): void {
    this.emit({
      type: 'notice',
      level,
      text: said.text,
      words: said.words,
      ...(file ? { file } : {}),
      ...(action ? { action } : {}),
    });
  }

  /** Adds an entry to the timeline and tells the host (checkpoints and rewinds add theirs from outside). */
  addTimeline(entry: TimelineEntry): void {
    this.timeline.push(entry);
    this.emit({ type: 'timeline', entry });
  }
}
