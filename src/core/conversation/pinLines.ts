// Pins in the transcript: a line of Engram's own type, `engram-pin`, outside the conversation's chain (no
// parentUuid: Claude Code and the chain reader pass over it), one per pin added and one per pin removed.
// The pins in force are the adds minus the removals, in the order they were added; a resume reads them
// back, and an undo of a compaction cannot lose them, since they never lived in a summary only.
//
//   {"type":"engram-pin","op":"add","uuid":U,"timestamp":T,"sessionId":S,"text":"...",
//    "source":{"kind":"message"|"selection","role":"user"|"assistant","messageId"?:ID} | {"kind":"dropped"}}
//   {"type":"engram-pin","op":"remove","uuid":U2,"timestamp":T,"sessionId":S,"pinUuid":U}
//
// `messageId` is what the chat knows the message by (an assistant reply's API id), when it knows one.
export const PIN_LINE_TYPE = 'engram-pin';

export type PinSource =
  | { kind: 'message' | 'selection'; role: 'user' | 'assistant'; messageId?: string }
  /** A fact the inspector's "dropped" list offered to carry (issue 24: "Carry it"). */
  | { kind: 'dropped' };

interface PinLineBase {
  type: typeof PIN_LINE_TYPE;
  uuid: string;
  timestamp: string;
  sessionId: string;
}

export interface PinAddLine extends PinLineBase {
  op: 'add';
  text: string;
  source: PinSource;
}

export interface PinRemoveLine extends PinLineBase {
  op: 'remove';
  /** The uuid of the add line it takes back. */
  pinUuid: string;
}

export type PinLine = PinAddLine | PinRemoveLine;

/** A pin in force: its add line's uuid, when it was added, the text word for word and where it came from. */
export interface Pin {
  id: string;
  at: string;
  text: string;
  source: PinSource;
}

/** Why a line of type `engram-pin` cannot be read as one, or undefined when it can. */
export function pinLineProblem(o: Record<string, unknown>): string | undefined {
  for (const key of ['uuid', 'timestamp', 'sessionId'] as const)
    if (typeof o[key] !== 'string') return `${PIN_LINE_TYPE} line without "${key}"`;
  if (o.op === 'remove')
    return typeof o.pinUuid === 'string' ? undefined : `${PIN_LINE_TYPE} removal without "pinUuid"`;
  if (o.op !== 'add') return `${PIN_LINE_TYPE} line with an unknown "op" (${JSON.stringify(o.op)})`;
  if (typeof o.text !== 'string' || o.text.trim() === '') return `${PIN_LINE_TYPE} line without its pinned "text"`;
  return sourceProblem(o.source);
}

function sourceProblem(source: unknown): string | undefined {
  const s = source as Record<string, unknown> | null;
  if (!s || typeof s !== 'object' || Array.isArray(s)) return `${PIN_LINE_TYPE} line without its "source"`;
  if (s.kind === 'dropped') return undefined;
  if (s.kind !== 'message' && s.kind !== 'selection') return `${PIN_LINE_TYPE} line with an unknown source kind`;
  if (s.role !== 'user' && s.role !== 'assistant') return `${PIN_LINE_TYPE} line whose source has no role`;
  if (s.messageId !== undefined && typeof s.messageId !== 'string')
    return `${PIN_LINE_TYPE} line whose source has a "messageId" that is not text`;
  return undefined;
}

export function isPinLine(line: { type: string }): line is PinLine {
  return line.type === PIN_LINE_TYPE;
}

/** The pins in force after `lines` (adds minus removals), in the order they were added. */
export function activePins(lines: Iterable<PinLine>): Pin[] {
  const pins = new Map<string, Pin>();
  for (const l of lines) {
    if (l.op === 'add') pins.set(l.uuid, { id: l.uuid, at: l.timestamp, text: l.text, source: l.source });
    else pins.delete(l.pinUuid);
  }
  return [...pins.values()];
}
