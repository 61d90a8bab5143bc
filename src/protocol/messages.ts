// The host <-> webview protocol: the only module both sides import.
// Every message is a member of a discriminated union; `Handlers<U>` makes a handler map that fails the
// build when a new message type has no handler. Messages from a webview are untrusted input: the host
// checks each one against `CHAT_TO_HOST_SHAPES` / `INSPECTOR_TO_HOST_SHAPES` before dispatching it.

// ---------- shared pieces ----------

export type ViewId = 'chat' | 'inspector';

/** What fills the context, in the order the gauge lists it (the parts add up to usedTokens). */
export type GaugeCategory =
  | 'system' | 'tools' | 'instructions' | 'memory index' | 'recalled memories' | 'session notes' | 'messages' | 'tool results';

export interface GaugeState {
  usedTokens: number;
  window: number;
  reservedForOutput: number;
  /** Compaction marks in percent of the window, ascending (microcompact, session-memory, full). */
  marks: number[];
  breakdown: Array<{ category: GaugeCategory; tokens: number }>;
}

export type PermissionChoice = 'allowOnce' | 'allowSession' | 'deny';

/** The change an Edit or Write would make, shown in its permission prompt before the person answers. */
export interface PermissionDiff {
  path: string;
  /** 1-based line of the first shown line in the file, when the host could place it. */
  startLine?: number;
  lines: { kind: 'add' | 'del' | 'ctx'; text: string }[];
  /** Lines of the diff left out to keep the prompt short. */
  omitted: number;
}

/** A reply's tokens over all its model calls: input as billed fresh, read from and written to the cache, output. */
export interface TurnTokens {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** One rendered item of the chat transcript. */
export type ChatItem =
  /** `files`: workspace files the person attached with @ (their content went with the prompt). */
  | { kind: 'user'; id: string; text: string; files?: string[] }
  | { kind: 'assistant'; id: string; text: string; streaming: boolean }
  | { kind: 'thinking'; id: string; text: string }
  | {
    kind: 'tool'; id: string; name: string; summary: string; input: string;
    status: 'running' | 'done' | 'error' | 'denied' | 'waiting'; result?: string;
  }
  | { kind: 'permission'; id: string; toolUseId: string; toolName: string; summary: string; answered?: PermissionChoice; diff?: PermissionDiff }
  | { kind: 'notice'; id: string; level: 'info' | 'warning' | 'error'; text: string; action?: string; link?: { label: string; path: string } }
  /** The end of a reply: its tokens (absent when no model call was made). */
  | { kind: 'turn'; id: string; tokens?: TurnTokens }
  /** `/help`, answered in the view: the webview words it. */
  | { kind: 'help'; id: string }
  /** `/context`: the context breakdown as it was when asked. */
  | { kind: 'context'; id: string; gauge: GaugeState };

/** What the chat's first-run screen offers: an API key, a base URL, or the offline demo. */
export type SetupChoice = 'apiKey' | 'baseUrl' | 'demo';
export type ChatCommand = 'openInspector' | 'setApiKey' | 'showLog' | 'pickModel';

export interface SessionSummary {
  id: string;
  title: string;
  modified: number;
}

// ---------- chat view ----------

export type ChatToHost =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'stop' }
  | { type: 'newChat' }
  | { type: 'permission'; requestId: string; choice: PermissionChoice }
  | { type: 'listSessions'; requestId: string }
  | { type: 'resume'; sessionId: string }
  | { type: 'runCommand'; command: ChatCommand }
  /** Sends the last prompt again, on the conversation before it. */
  | { type: 'retry' }
  /** Replaces the last prompt with `text` and sends it. */
  | { type: 'editLast'; text: string }
  /** A code block's Copy (to the clipboard) or Insert (at the active editor's cursor). */
  | { type: 'codeAction'; action: 'copy' | 'insert'; code: string }
  /** @ completion: workspace files whose path contains `query`. */
  | { type: 'findFiles'; requestId: string; query: string }
  | { type: 'setup'; choice: SetupChoice }
  /** Opens a file the host itself linked (notes, a memory); any other path is refused. */
  | { type: 'openPath'; path: string }
  | { type: 'ping'; requestId: string; text: string };

export interface ChatSnapshot {
  sessionId: string | undefined;
  items: ChatItem[];
  busy: boolean;
  gauge: GaugeState;
  modelLabel: string;
  trusted: boolean;
  /** No API key and no choice made yet: the view shows its first-run screen. */
  setupNeeded: boolean;
}

export type HostToChat =
  | { type: 'snapshot'; state: ChatSnapshot }
  | { type: 'item'; item: ChatItem }
  | { type: 'textDelta'; id: string; delta: string }
  | { type: 'busy'; busy: boolean; status?: string }
  | { type: 'gauge'; gauge: GaugeState }
  | { type: 'sessions'; requestId: string; sessions: SessionSummary[] }
  /** Workspace-relative paths for @ completion, best first. */
  | { type: 'files'; requestId: string; files: string[] }
  | { type: 'pong'; requestId: string; text: string };

// ---------- inspector panel ----------

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
  /** From the front matter (originSessionId / originMessageId). */
  origin?: { sessionId: string; messageId?: string };
  /** Team entries only, once the folder was synced: where this file stands with the team server. */
  sync?: TeamFileSyncView;
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
  /** The server's version won; the local edit was kept at `keptPath` (absolute; `keptAt` relative to the team folder). */
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
}

/**
 * A compaction's stage as the timeline shows it: the engine's stages (CompactionStage in
 * core/compaction/types.ts) and `undo`, the boundary an undo writes to the transcript.
 */
export type CompactionStageView = 'micro' | 'session-memory' | 'full' | 'reactive' | 'undo';
export type CompactionTriggerView = 'auto' | 'manual' | 'reactive';

export type TimelineView =
  | {
    kind: 'notes'; id: string; at: number; status: 'created' | 'updated' | 'failed';
    tokens?: number; modelCalls?: number; durationMs?: number; condensed?: boolean; detail?: string;
  }
  | { kind: 'memory'; id: string; at: number; status: 'saved' | 'extracted' | 'failed'; files: string[]; modelCalls?: number; detail?: string }
  | {
    kind: 'compaction'; id: string; at: number; stage: CompactionStageView; trigger: CompactionTriggerView;
    tokensBefore: number; tokensAfter: number; durationMs: number; modelCalls: number;
    /** How many messages (transcript lines) it replaced, and how many tool results it trimmed. */
    replaced: number; trimmed: number;
    summary?: string; focus?: string;
    /** The newest compaction of the live session, when the session can undo it. */
    undoable: boolean;
    /** A later undo took it back: what it replaced is in the conversation again. */
    undone?: boolean;
  };

export interface InspectorSnapshot {
  source: InspectorSourceInfo;
  sessionId: string | undefined;
  /** Absent when the source has no conversation to measure. */
  gauge: GaugeState | undefined;
  notes: NotesView;
  memory: MemoryView;
  /** Oldest first. */
  timeline: TimelineView[];
  /** The host's clock when the snapshot was taken (ages are relative to it). */
  now: number;
}

/** A message a compaction replaced, as text (the webview shows it as text, never as HTML). */
export interface ReplacedMessageView {
  role: string;
  text: string;
}

export type EntryGroup = 'private' | 'team';
export type InspectorPane = 'gauge' | 'notes' | 'memory' | 'timeline';

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
  | { type: 'ping'; requestId: string; text: string };

export type HostToInspector =
  | { type: 'snapshot'; state: InspectorSnapshot }
  | { type: 'gauge'; gauge: GaugeState }
  | { type: 'compactionDetails'; requestId: string; id: string; messages: ReplacedMessageView[]; error?: string }
  /** Scrolls to and focuses a pane (the chat's `/memory` opens the memory pane). */
  | { type: 'revealPane'; pane: InspectorPane }
  /** The outcome of an action, read out by screen readers. */
  | { type: 'status'; text: string; level: 'info' | 'warning' | 'error'; undo?: { group: EntryGroup; trashId: string } }
  | { type: 'pong'; requestId: string; text: string };

// ---------- dispatch helpers ----------

export type Handlers<U extends { type: string }> = {
  [K in U['type']]: (message: Extract<U, { type: K }>) => void | Promise<void>;
};

/** Field kinds a message may carry; `?` marks an optional field. */
type FieldKind = 'string' | 'string?' | 'number' | 'boolean' | `enum:${string}`;
export type Shapes<U extends { type: string }> = { [K in U['type']]: Record<string, FieldKind> };

export const CHAT_TO_HOST_SHAPES: Shapes<ChatToHost> = {
  ready: {},
  send: { text: 'string' },
  stop: {},
  newChat: {},
  permission: { requestId: 'string', choice: 'enum:allowOnce|allowSession|deny' },
  listSessions: { requestId: 'string' },
  resume: { sessionId: 'string' },
  runCommand: { command: 'enum:openInspector|setApiKey|showLog|pickModel' },
  retry: {},
  editLast: { text: 'string' },
  codeAction: { action: 'enum:copy|insert', code: 'string' },
  findFiles: { requestId: 'string', query: 'string' },
  setup: { choice: 'enum:apiKey|baseUrl|demo' },
  openPath: { path: 'string' },
  ping: { requestId: 'string', text: 'string' },
};

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
  restoreEntry: { group: 'enum:private|team', trashId: 'string' },
  deleteTrash: { group: 'enum:private|team', trashId: 'string' },
  compactionDetails: { requestId: 'string', id: 'string' },
  openCompactionDiff: { id: 'string' },
  undoCompaction: { id: 'string' },
  pickSource: {},
  useCurrentSession: {},
  syncTeamMemory: {},
  ping: { requestId: 'string', text: 'string' },
};

/** The longest string field a webview may send; a chat prompt can be long, but not unbounded. */
export const MAX_FIELD_LENGTH = 1_000_000;

/**
 * Checks an untrusted value against the shapes of a union. Returns the typed message, or an error text
 * that names what is wrong (for the log). Extra fields are rejected: a webview has no reason to send them.
 */
export function parseMessage<U extends { type: string }>(
  raw: unknown, shapes: Shapes<U>,
): { ok: true; message: U } | { ok: false; error: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, error: 'message is not an object' };
  }
  const record = raw as Record<string, unknown>;
  const type = record.type;
  if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(shapes, type)) {
    return { ok: false, error: `unknown message type ${JSON.stringify(type)?.slice(0, 80)}` };
  }
  const shape = (shapes as Record<string, Record<string, FieldKind>>)[type];
  for (const key of Object.keys(record)) {
    if (key !== 'type' && !Object.prototype.hasOwnProperty.call(shape, key)) {
      return { ok: false, error: `${type}: unexpected field ${JSON.stringify(key.slice(0, 80))}` };
    }
  }
  for (const [key, kind] of Object.entries(shape)) {
    const value = record[key];
    const problem = checkField(value, kind);
    if (problem) return { ok: false, error: `${type}.${key}: ${problem}` };
  }
  return { ok: true, message: raw as U };
}

function checkField(value: unknown, kind: FieldKind): string | undefined {
  if (kind === 'string?' && value === undefined) return undefined;
  if (kind === 'string' || kind === 'string?') {
    if (typeof value !== 'string') return `expected a string, got ${typeof value}`;
    if (value.length > MAX_FIELD_LENGTH) return `string longer than ${MAX_FIELD_LENGTH} characters`;
    return undefined;
  }
  if (kind === 'number') return typeof value === 'number' && Number.isFinite(value) ? undefined : 'expected a number';
  if (kind === 'boolean') return typeof value === 'boolean' ? undefined : 'expected a boolean';
  const allowed = kind.slice('enum:'.length).split('|');
  return typeof value === 'string' && allowed.includes(value) ? undefined : `expected one of ${allowed.join(', ')}`;
}
