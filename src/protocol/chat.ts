// The Chat view's messages.
import type { GaugeState } from './shared';
import type { Shapes } from './shapes';

/** `allowAlways`: run it and save the card's `suggestedRule` in the project's local settings. */
export type PermissionChoice = 'allowOnce' | 'allowSession' | 'allowAlways' | 'deny';

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
  /**
   * `turn`: the prompt's turn in the session (1 is the first prompt), with its transcript line, once the
   * host knows it: the message then offers Rewind code / conversation / both.
   */
  | { kind: 'user'; id: string; text: string; files?: string[]; pinned?: boolean; turn?: number; promptUuid?: string }
  /** `pinned`: a pin holds this message or a selection of it (it is carried through every compaction). */
  | { kind: 'assistant'; id: string; text: string; streaming: boolean; pinned?: boolean }
  | { kind: 'thinking'; id: string; text: string }
  | {
      kind: 'tool';
      id: string;
      name: string;
      summary: string;
      input: string;
      status: 'running' | 'done' | 'error' | 'denied' | 'waiting';
      result?: string;
    }
  | {
      kind: 'permission';
      id: string;
      toolUseId: string;
      toolName: string;
      summary: string;
      answered?: PermissionChoice;
      diff?: PermissionDiff;
      /** The rule "Always allow" saves (Claude Code's syntax); no "Always allow" button without it. */
      suggestedRule?: string;
      /** An MCP server's tool: the server, its own name for the tool, and the arguments (pretty JSON, clipped). */
      mcp?: { server: string; tool: string; args: string };
    }
  | {
      kind: 'notice';
      id: string;
      level: 'info' | 'warning' | 'error';
      text: string;
      action?: string;
      link?: { label: string; path: string };
    }
  /**
   * Memories recalled for the prompt above, each with the prompt's words it matched; `notRelevant`: the
   * person said it was not (it is left out of the next request, and not attached again for those words).
   */
  | { kind: 'recall'; id: string; files: RecalledMemory[] }
  /** The end of a reply: its tokens (absent when no model call was made). */
  | { kind: 'turn'; id: string; tokens?: TurnTokens }
  /** `/help`, answered in the view: the webview words it. */
  | { kind: 'help'; id: string }
  /** `/context`: the context breakdown as it was when asked. */
  | { kind: 'context'; id: string; gauge: GaugeState }
  /**
   * The instruction files the session's system prompt holds (as the session opened); `skipped`: the
   * workspace is not trusted, so the project's CLAUDE.md and AGENTS.md were not read.
   */
  | { kind: 'instructions'; id: string; files: Array<{ label: string; path: string }>; skipped: boolean }
  /** Under a turn that changed files: "3 files changed", which opens the turn's diff (checkpoints, issue 33). */
  | { kind: 'changes'; id: string; turn: number; promptUuid?: string; files: ChangedFileView[]; skipped: number };

/** One file a turn changed, as the chat and the inspector list it. */
export interface ChangedFileView {
  path: string;
  change: 'added' | 'modified' | 'deleted';
}

/** What a rewind from the chat takes back: the files, the conversation, or both. */
export type RewindWhat = 'code' | 'conversation' | 'both';

export interface RecalledMemory {
  file: string;
  title: string;
  words: string[];
  notRelevant?: boolean;
  /** What it names that no longer exists in the workspace: attached with a caveat, or with `staleSkipped` left out. */
  stale?: string[];
  staleSkipped?: boolean;
}

/** What the chat's first-run screen offers: an API key, a base URL, the offline demo, or a cloud provider. */
export type SetupChoice = 'apiKey' | 'baseUrl' | 'demo' | 'bedrock' | 'vertex' | 'foundry';
/**
 * `openMemory`: the Memory Inspector at its memory pane (the cap warning's action); `cloudLogin`: how to log
 * in to the cloud provider in use (a cloud's auth error).
 */
export type ChatCommand =
  | 'reviewMemories'
  | 'openInspector'
  | 'setApiKey'
  | 'showLog'
  | 'pickModel'
  | 'openMemory'
  | 'manageMcpServers'
  | 'checkMemoryHealth'
  | 'cloudLogin';

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
  /** A recalled memory's "Not relevant" (or, with `undo`, its Undo) on a recall item. */
  | { type: 'notRelevant'; itemId: string; file: string; undo: boolean }
  /** Pins the message `itemId`, or `text` selected in it, to be carried through every compaction. */
  | { type: 'pin'; itemId: string; text?: string }
  /** Rewind code, conversation or both to right after the turn of the prompt `itemId` (checkpoints, issue 33). */
  | { type: 'rewind'; itemId: string; what: RewindWhat }
  /** A "3 files changed" line: the turn's changes in the multi-file diff editor. */
  | { type: 'openTurnDiff'; itemId: string }
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
  /** What the status line says while nothing runs (a compaction summary waiting for Apply or Cancel). */
  idleStatus?: string;
  /** Why the files cannot be rewound in this workspace (checkpoints off): the tooltip of the disabled actions. */
  checkpointsOff?: string;
}

export type HostToChat =
  | { type: 'snapshot'; state: ChatSnapshot }
  | { type: 'item'; item: ChatItem }
  /** The items before `before` of a long conversation, sent after its snapshot (which has the newest). */
  | { type: 'earlierItems'; before: string; items: ChatItem[] }
  | { type: 'textDelta'; id: string; delta: string }
  | { type: 'busy'; busy: boolean; status?: string }
  | { type: 'gauge'; gauge: GaugeState }
  | { type: 'sessions'; requestId: string; sessions: SessionSummary[] }
  /** Workspace-relative paths for @ completion, best first. */
  | { type: 'files'; requestId: string; files: string[] }
  | { type: 'pong'; requestId: string; text: string }
  /**
   * A conversation rewind was applied: an Edit in progress ends, and the prompt box holds `text` (the
   * message the rewind went back to before, to edit and send again) or is emptied.
   */
  | { type: 'rewound'; text?: string };

export const CHAT_TO_HOST_SHAPES: Shapes<ChatToHost> = {
  ready: {},
  send: { text: 'string' },
  stop: {},
  newChat: {},
  permission: { requestId: 'string', choice: 'enum:allowOnce|allowSession|allowAlways|deny' },
  listSessions: { requestId: 'string' },
  resume: { sessionId: 'string' },
  runCommand: {
    command:
      'enum:reviewMemories|openInspector|setApiKey|showLog|pickModel|openMemory|manageMcpServers|checkMemoryHealth|cloudLogin',
  },
  retry: {},
  editLast: { text: 'string' },
  codeAction: { action: 'enum:copy|insert', code: 'string' },
  findFiles: { requestId: 'string', query: 'string' },
  setup: { choice: 'enum:apiKey|baseUrl|demo|bedrock|vertex|foundry' },
  openPath: { path: 'string' },
  notRelevant: { itemId: 'string', file: 'string', undo: 'boolean' },
  pin: { itemId: 'string', text: 'string?' },
  rewind: { itemId: 'string', what: 'enum:code|conversation|both' },
  openTurnDiff: { itemId: 'string' },
  ping: { requestId: 'string', text: 'string' },
};
