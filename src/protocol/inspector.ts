// The memory inspector's messages.
import type { CheckpointRowView, RewindRowView } from './checkpointRows';
import type { GaugeState } from './shared';
import type { Shapes } from './shapes';
import type { PinsView } from './pinsView';
import { MCP_TO_HOST_SHAPES, type McpServersView, type McpToHost, type PermissionRuleView } from './mcpView';
import { HEALTH_TO_HOST_SHAPES, type HealthToHost, type HealthView } from './healthView';

export type MemoryKind = 'user' | 'feedback' | 'project' | 'reference';

/** Where the inspector reads from: the live session, another session or project, or Claude Code's folder. */
export type InspectorSourceKind = 'current' | 'session' | 'project' | 'claude';

export interface InspectorSourceInfo {
  kind: InspectorSourceKind;
  /** What the header shows, e.g. "Current session" or "Claude Code (~/.claude) · -home-me-demo". */
  label: string;
  /** Claude Code's folder: nothing is changed there except by pruning (which warns first). */
  readOnly: boolean;
  /** The data root (Engram's data dir or Claude Code's config dir). */
  root: string;
  projectKey?: string;
}

export interface NotesSectionView {
  heading: string;
  /** What was written under the heading's guide line (Markdown; the webview sanitises it). */
  markdown: string;
  tokens: number;
  cap: number;
}

export interface NotesView {
  path?: string;
  exists: boolean;
  sections: NotesSectionView[];
  tokens: number;
  fileCap: number;
  /** When the last update finished, ms since the epoch. */
  updatedAt?: number;
  /** The last response the notes cover: its API message id, and its place among the session's responses. */
  covers?: { messageId: string; response?: number; responses?: number; at?: number; preview?: string };
  updating: boolean;
  lastError?: string;
}

export interface MemoryEntryView {
  /** Unique in the snapshot: `<group>:<file>`. */
  key: string;
  group: 'private' | 'team';
  title: string;
  /** Relative to its memory folder, forward slashes. */
  file: string;
  path: string;
  hook: string;
  type: MemoryKind | null;
  tokens: number | null;
  mtimeMs: number | null;
  /** 1-based line in MEMORY.md; null for files no line points to. */
  line: number | null;
  /** Inside the 200-line / 25 KB cap of the system prompt. */
  loaded: boolean;
  /** The index line points at no readable file. */
  missing: boolean;
  indexed: boolean;
  /**
   * From the front matter (originSessionId / originMessageId); sessionId `recovered` for a file indexed
   * after a crash left it without its line.
   */
  origin?: { sessionId: string; messageId?: string };
  /**
   * Another agent wrote it (front matter originClient / originVia): the client's name (its MCP
   * `clientInfo.name`, or `vscode-lm`) and the door it came through.
   */
  writtenBy?: { client: string; via: 'mcp' | 'vscode-lm' };
  /** Team entries only, once the folder was synced: where this file stands with the team server. */
  sync?: TeamFileSyncView;
  /** How often it was recalled into a turn or read by the agent (`.usage.json`), and when last (ISO). */
  uses?: number;
  lastUsed?: string;
  /** The words of messages the person said it was not relevant to, one list per message (`.usage.json`). */
  notRelevant?: string[][];
}

/** MEMORY.md against its caps: `near` from 80% of either, `over` past one (lines are cut). */
export interface IndexCapView {
  lines: number;
  maxLines: number;
  bytes: number;
  maxBytes: number;
  level: 'ok' | 'near' | 'over';
  /** The warning mark, in percent of a cap. */
  warnPercent: number;
}

/**
 * A team file's sync state as the inspector shows it (the engine's TeamFileStatus from
 * `team/.sync/state.json`), `unsynced` for a file the last sync did not see, plus what the last pull
 * did to it.
 */
export type TeamSyncStateView =
  | { state: 'synced' }
  | { state: 'local-change' }
  | { state: 'unsynced' }
  | { state: 'blocked'; rule: string; kind: string; line: number }
  | { state: 'skipped'; reason: 'too_large' | 'server_max_entries'; detail: string }
  /**
   * The server's version won; the local edit was kept at `keptPath` (absolute; `keptAt` relative to the
   * team folder).
   */
  | { state: 'conflict'; keptAt: string; keptPath: string };

export interface TeamFileSyncView {
  status: TeamSyncStateView;
  /** The last sync wrote this file from the server: new here, or replacing the local copy. */
  pulled?: 'new' | 'updated' | 'conflict';
}

/** The team folder's sync, for the team group's header and the rows the index has no entry for. */
export interface TeamMemoryView {
  repo?: string;
  server?: string;
  /** Absent before the first sync. */
  lastSync?: {
    at: string;
    ok: boolean;
    error?: string;
    version?: number;
    pulled: number;
    pushed: number;
    skipped: number;
    blocked: number;
    conflicts: number;
    retries: number;
  };
  /** Learned from the server's 413 reply. */
  serverMaxEntries: number | null;
  /** Synced files that are no index entry or topic file (the team MEMORY.md itself, say), with their state. */
  files: Array<{ file: string; path: string; sync: TeamFileSyncView }>;
}

export interface InstructionView {
  path: string;
  /** The path as people read it: relative to the project folder, else from ~ (instructionLabel). */
  label: string;
  scope: 'user' | 'project' | 'local';
  tokens: number;
  importedFrom?: string;
  truncated: boolean;
}

export interface TrashView {
  id: string;
  group: 'private' | 'team';
  file: string;
  /** The title of the index line it was pruned with (absent when it had none). */
  title?: string;
  prunedAt: string;
}

export interface MemoryView {
  dir?: string;
  exists: boolean;
  instructions: InstructionView[];
  /** The workspace is not trusted: the project's instruction files (CLAUDE.md, AGENTS.md) are not read. */
  projectInstructionsSkipped?: boolean;
  /** Index entries in MEMORY.md order (team entries included, after the private ones). */
  entries: MemoryEntryView[];
  /** Topic files no index line points to. */
  unindexed: MemoryEntryView[];
  /** Lines of MEMORY.md the system prompt gets, of how many, and the line cap. */
  loadedLines: number;
  totalLines: number;
  maxLines: number;
  warnings: string[];
  /** Pruned entries that can be restored, newest first. */
  trash: TrashView[];
  /** The team folder's sync; absent while it has never been synced. */
  team?: TeamMemoryView;
  /** The review queue of background extraction (engram.memory.extraction.review); absent without a memory folder. */
  review?: ReviewQueueView;
  /** The private MEMORY.md against its caps (absent without a memory folder). */
  cap?: IndexCapView;
  /** The team folder's MEMORY.md against the same caps (absent without a team index). */
  teamCap?: IndexCapView;
}

/** A memory the background agent proposed, waiting for the user (`<memory>/.pending/<id>.md`). */
export interface PendingMemoryView {
  id: string;
  group: EntryGroup;
  /** The topic file it would create or change, relative to its memory folder. */
  file: string;
  action: 'create' | 'update';
  title: string;
  type: MemoryKind | null;
  description?: string;
  /** The proposed file in full, and what the file held when it was proposed (updates only). */
  content: string;
  base: string | null;
  proposedAt: string;
  sessionId: string;
  messageId: string;
  /** Another agent proposed it (through `engram mcp` or VS Code's language model tools). */
  writtenBy?: MemoryEntryView['writtenBy'];
}

export interface ReviewQueueView {
  /** engram.memory.extraction.review */
  on: boolean;
  /** Oldest first. */
  items: PendingMemoryView[];
  /** Queue records that could not be read (left on disk). */
  problems: string[];
}

/**
 * A compaction's stage as the timeline shows it: the engine's stages (CompactionStage in
 * core/compaction/types.ts) and `undo`, the boundary an undo writes to the transcript.
 */
export type CompactionStageView = 'micro' | 'session-memory' | 'full' | 'reactive' | 'undo';
export type CompactionTriggerView = 'auto' | 'manual' | 'reactive';

export type TimelineView =
  | {
      kind: 'notes';
      id: string;
      at: number;
      status: 'created' | 'updated' | 'failed';
      tokens?: number;
      modelCalls?: number;
      durationMs?: number;
      condensed?: boolean;
      detail?: string;
    }
  | {
      kind: 'memory';
      id: string;
      at: number;
      status: 'saved' | 'extracted' | 'failed';
      files: string[];
      modelCalls?: number;
      detail?: string;
    }
  | {
      kind: 'compaction';
      id: string;
      at: number;
      stage: CompactionStageView;
      trigger: CompactionTriggerView;
      tokensBefore: number;
      tokensAfter: number;
      durationMs: number;
      modelCalls: number;
      /** How many messages (transcript lines) it replaced, and how many tool results it trimmed. */
      replaced: number;
      trimmed: number;
      summary?: string;
      focus?: string;
      /** A person edited the summary (or notes) in the preview before it applied. */
      summaryEdited?: boolean;
      /** What the new conversation no longer carries of what it replaced (absent in older records). */
      dropped?: { paths: string[]; commands: string[]; errors: string[]; userMessages: string[] };
      /** The instruction files in the system prompt after it, as labels (kept: CLAUDE.md, AGENTS.md). */
      keptInstructions?: string[];
      /** The newest compaction of the live session, when the session can undo it; `undone`: a later undo took it back. */
      undoable: boolean;
      undone?: boolean;
      pinsCarried?: { count: number; tokens: number; cut: number }; // pins carried after its summary, and left out
    }
  | CheckpointRowView // checkpoints and rewinds (issue 33): checkpointRows.ts
  | RewindRowView;

export interface InspectorSnapshot {
  source: InspectorSourceInfo;
  sessionId: string | undefined;
  /** Absent when the source has no conversation to measure. */
  gauge: GaugeState | undefined;
  notes: NotesView;
  memory: MemoryView;
  /** Oldest first. */
  timeline: TimelineView[];
  /** The live session's pins (absent for a source on disk). */
  pins?: PinsView;
  /** The live session's MCP servers (absent for a source on disk). */
  mcp?: McpServersView;
  /** The permission rules in force, with where each came from (absent for a source on disk). */
  rules?: PermissionRuleView[];
  /** The Health view: each memory checked against the workspace (absent while no check was asked for). */
  health?: HealthView;
  /** The host's clock when the snapshot was taken (ages are relative to it). */
  now: number;
}

/** A message a compaction replaced, as text (the webview shows it as text, never as HTML). */
export interface ReplacedMessageView {
  role: string;
  text: string;
}

export type EntryGroup = 'private' | 'team';
export type InspectorPane = 'gauge' | 'notes' | 'memory' | 'timeline' | 'review' | 'mcp' | 'health';

export type InspectorToHost =
  | { type: 'ready' }
  | { type: 'refresh' }
  /** Opens a file the snapshot names (notes, instructions, memory); any other path is refused. */
  | { type: 'openFile'; path: string }
  | { type: 'revealFile'; path: string }
  /** Opens the transcript of the session a memory came from, at the message. */
  | { type: 'openOrigin'; sessionId: string; messageId?: string }
  | { type: 'inspectSession'; sessionId: string }
  | { type: 'renameEntry'; group: EntryGroup; file: string }
  | { type: 'changeType'; group: EntryGroup; file: string }
  | { type: 'pruneEntry'; group: EntryGroup; file: string }
  /** Takes back the entry's `index`-th "not relevant" (MemoryEntryView.notRelevant). */
  | { type: 'undoNotRelevant'; group: EntryGroup; file: string; index: number }
  | { type: 'restoreEntry'; group: EntryGroup; trashId: string }
  /** Deletes a pruned entry for good, after the host asks again. */
  | { type: 'deleteTrash'; group: EntryGroup; trashId: string }
  | { type: 'compactionDetails'; requestId: string; id: string }
  | { type: 'openCompactionDiff'; id: string }
  | { type: 'undoCompaction'; id: string }
  | { type: 'pickSource' }
  | { type: 'useCurrentSession' }
  /** "Sync now" in the team group: runs "Engram: Sync Team Memory" for the workspace. */
  | { type: 'syncTeamMemory' }
  /** The review queue: save a proposal, open it in an editor, drop it (with Undo), or turn review on or off. */
  | { type: 'acceptPending'; id: string }
  | { type: 'editPending'; id: string }
  | { type: 'rejectPending'; id: string }
  | { type: 'restorePending'; id: string }
  | { type: 'setReview'; on: boolean }
  /**
   * A cap banner's actions, for the private or the team index: pick the least used entries to prune, or
   * entries of one type to merge (the host asks).
   */
  | { type: 'pruneLeastUsed'; group: EntryGroup }
  | { type: 'mergeEntries'; group: EntryGroup }
  /** Pins `text` in the live session (the timeline's "Carry it" on a fact a compaction dropped). */
  | { type: 'pinText'; text: string; origin: 'dropped' }
  /** Removes a pin of the live session (the pins list's Remove). */
  | { type: 'unpin'; id: string }
  /** A checkpoint row's file (or, without `path`, all its files): the turn's change in a diff editor. */
  | { type: 'openCheckpointDiff'; turn: number; promptUuid?: string; path?: string }
  | McpToHost
  | HealthToHost
  | { type: 'ping'; requestId: string; text: string };

export type HostToInspector =
  | { type: 'snapshot'; state: InspectorSnapshot }
  | { type: 'gauge'; gauge: GaugeState }
  | { type: 'compactionDetails'; requestId: string; id: string; messages: ReplacedMessageView[]; error?: string }
  /** Scrolls to and focuses a pane (the chat's `/memory` opens the memory pane). */
  | { type: 'revealPane'; pane: InspectorPane }
  /** The outcome of an action, read out by screen readers. */
  | {
      type: 'status';
      text: string;
      level: 'info' | 'warning' | 'error';
      undo?: { group: EntryGroup; trashId: string };
      undoReject?: string;
    }
  | { type: 'pong'; requestId: string; text: string };

const ENTRY_REF = { group: 'enum:private|team', file: 'string' } as const;

export const INSPECTOR_TO_HOST_SHAPES: Shapes<InspectorToHost> = {
  ready: {},
  refresh: {},
  openFile: { path: 'string' },
  revealFile: { path: 'string' },
  openOrigin: { sessionId: 'string', messageId: 'string?' },
  inspectSession: { sessionId: 'string' },
  renameEntry: ENTRY_REF,
  changeType: ENTRY_REF,
  pruneEntry: ENTRY_REF,
  undoNotRelevant: { group: 'enum:private|team', file: 'string', index: 'number' },
  restoreEntry: { group: 'enum:private|team', trashId: 'string' },
  deleteTrash: { group: 'enum:private|team', trashId: 'string' },
  compactionDetails: { requestId: 'string', id: 'string' },
  openCompactionDiff: { id: 'string' },
  undoCompaction: { id: 'string' },
  pickSource: {},
  useCurrentSession: {},
  syncTeamMemory: {},
  acceptPending: { id: 'string' },
  editPending: { id: 'string' },
  rejectPending: { id: 'string' },
  restorePending: { id: 'string' },
  setReview: { on: 'boolean' },
  pruneLeastUsed: { group: 'enum:private|team' },
  mergeEntries: { group: 'enum:private|team' },
  pinText: { text: 'string', origin: 'enum:dropped' },
  unpin: { id: 'string' },
  openCheckpointDiff: { turn: 'number', promptUuid: 'string?', path: 'string?' },
  ...MCP_TO_HOST_SHAPES,
  ...HEALTH_TO_HOST_SHAPES,
  ping: { requestId: 'string', text: 'string' },
};
