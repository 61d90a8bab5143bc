// The host <-> webview protocol: the only module both sides import.
// Every message is a member of a discriminated union; `Handlers<U>` makes a handler map that fails the
// build when a new message type has no handler. Messages from a webview are untrusted input: the host
// checks each one against `CHAT_TO_HOST_SHAPES` / `INSPECTOR_TO_HOST_SHAPES` before dispatching it.

// ---------- shared pieces ----------

export type ViewId = 'chat' | 'inspector';

export interface GaugeState {
  usedTokens: number;
  window: number;
  reservedForOutput: number;
  /** Compaction marks in percent of the window, ascending (microcompact, session-memory, full). */
  marks: number[];
  breakdown: Array<{ category: string; tokens: number }>;
}

export type PermissionChoice = 'allowOnce' | 'allowSession' | 'deny';

/** One rendered item of the chat transcript. */
export type ChatItem =
  | { kind: 'user'; id: string; text: string }
  | { kind: 'assistant'; id: string; text: string; streaming: boolean }
  | { kind: 'thinking'; id: string; text: string }
  | {
    kind: 'tool'; id: string; name: string; summary: string; input: string;
    status: 'running' | 'done' | 'error' | 'denied' | 'waiting'; result?: string;
  }
  | { kind: 'permission'; id: string; toolUseId: string; toolName: string; summary: string; answered?: PermissionChoice }
  | { kind: 'notice'; id: string; level: 'info' | 'warning' | 'error'; text: string; action?: string; link?: { label: string; path: string } };

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
  | { type: 'runCommand'; command: 'openInspector' | 'setApiKey' | 'showLog' }
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
}

export type HostToChat =
  | { type: 'snapshot'; state: ChatSnapshot }
  | { type: 'item'; item: ChatItem }
  | { type: 'textDelta'; id: string; delta: string }
  | { type: 'busy'; busy: boolean; status?: string }
  | { type: 'gauge'; gauge: GaugeState }
  | { type: 'sessions'; requestId: string; sessions: SessionSummary[] }
  | { type: 'pong'; requestId: string; text: string };

// ---------- inspector panel ----------

export type InspectorToHost =
  | { type: 'ready' }
  | { type: 'refresh' }
  | { type: 'openFile'; path: string }
  | { type: 'ping'; requestId: string; text: string };

export interface InspectorSnapshot {
  source: string;
  sessionId: string | undefined;
  gauge: GaugeState;
  notes: { path: string | undefined; markdown: string | undefined };
  memory: { dir: string | undefined; entries: Array<{ title: string; file: string; hook: string; type: string }> };
  timeline: Array<{ kind: string; at: string; text: string }>;
}

export type HostToInspector =
  | { type: 'snapshot'; state: InspectorSnapshot }
  | { type: 'gauge'; gauge: GaugeState }
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
  runCommand: { command: 'enum:openInspector|setApiKey|showLog' },
  openPath: { path: 'string' },
  ping: { requestId: 'string', text: 'string' },
};

export const INSPECTOR_TO_HOST_SHAPES: Shapes<InspectorToHost> = {
  ready: {},
  refresh: {},
  openFile: { path: 'string' },
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
