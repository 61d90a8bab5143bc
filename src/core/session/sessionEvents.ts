// What an Engram session tells its host (the Chat view, `engram -p`, tests): one stream of data events,
// so every host hears the same things in the same order and only decides how to show them.
import type { ChangedFile, SkippedPath } from '../checkpoints/types';
import type { Pin } from '../conversation/pinLines';
import type { AgentEvent } from '../agent/events';
import type { OrchestratorEvent } from '../compaction/orchestrator';
import type { AutoMemoryEvent } from '../memory/autoMemory/extraction';
import type { SessionNotesEvent } from '../memory/sessionNotes/events';
import type { TeamSyncReport } from '../memory/team/teamSyncTypes';
import type { McpHubEvent } from '../mcp/types';
import type { EngramSettings } from '../settings/engramSettings';
import type { TimelineEntry } from '../inspection/timeline';
import type { RewindOutcome } from './rewindTypes';
import { stopOnce } from '../../protocol/sentence';

export type NoticeLevel = 'info' | 'warning' | 'error';
/** What a notice offers to do besides its text: `openMemory` opens the inspector's memory pane. */
export type NoticeAction = 'openMemory';

/**
 * A notice's English template (`{0}`-style placeholders) and its arguments: `text` is the English,
 * and a host that speaks another language looks the template up (VS Code's l10n bundles are keyed by it).
 * Arguments are data (file names, counts, reasons from below) and are not translated.
 */
export interface NoticeWords {
  template: string;
  args: string[];
}

/** `text` and `words` of a notice; a template is a plain string literal, so tests can list them all. */
export function say(template: string, ...args: Array<string | number>): { text: string; words: NoticeWords } {
  // A reason that ends a sentence itself loses its full stop where the template adds one.
  const strings = stopOnce(template, args);
  return {
    text: template.replace(/\{(\d+)\}/g, (m, i: string) => strings[Number(i)] ?? m),
    words: { template, args: strings },
  };
}

export type SessionEvent =
  | { type: 'agent'; event: AgentEvent }
  | { type: 'notes'; event: SessionNotesEvent }
  | { type: 'memory'; event: AutoMemoryEvent }
  | { type: 'compaction'; event: OrchestratorEvent }
  /** Something worth a line in the chat (or on stderr), in words; `file` is a path the line may link to. */
  | {
      type: 'notice';
      level: NoticeLevel;
      text: string;
      words?: NoticeWords;
      file?: { label: string; path: string };
      action?: NoticeAction;
    }
  /** A notes update, a memory write or a compaction joined the timeline. */
  | { type: 'timeline'; entry: TimelineEntry }
  /** How full the context is may have changed (a response, a compaction or its undo, a setting). */
  | { type: 'context' }
  | { type: 'settings'; settings: EngramSettings }
  /** A team memory sync finished (at session start, after a team write, or asked for): its report. */
  | { type: 'teamSync'; report: TeamSyncReport }
  /** A pin was added or removed: the pins in force now, oldest first. */
  | { type: 'pins'; pins: readonly Pin[] }
  /** What the session's MCP hub said: a server's status, a failure, a change of the offered tools. */
  | { type: 'mcp'; event: McpHubEvent }
  /** A turn changed files (issue 33): its checkpoint, for the chat's "3 files changed" line under the turn. */
  | {
      type: 'checkpoint';
      turn: number;
      promptUuid?: string;
      files: readonly ChangedFile[];
      skipped: readonly SkippedPath[];
    }
  /** A rewind or its undo was applied (sessionRewind.ts); the conversation may have been replaced too. */
  | { type: 'rewind'; outcome: RewindOutcome; undo: boolean };

export type SessionEventListener = (event: SessionEvent) => void;

/** A small listener set whose listeners cannot break each other. */
export class EventStream<E> {
  private readonly listeners = new Set<(event: E) => void>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  on(listener: (event: E) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: E): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
