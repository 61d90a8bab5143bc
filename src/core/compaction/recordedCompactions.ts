// Reading compaction records back (the format is recordFormat.ts): every reader of a transcript (a
// resumed session, `engram gauge` and `engram compact`, the inspector) replays the cuts the last
// process made, so it sees the conversation that process sent, byte for byte, and keeps its prompt
// cache; and a resumed session gets its compactions back as events, so the timeline shows them and
// the newest can still be undone.
//
// Replay: cuts of records not undone, in file order, each with the same trim function microcompact
// used, and only on the bytes it was decided on (the sha1 of the original). A result already cut (the
// kept lines were written again after the cut) or short enough is left as it is; a result whose bytes
// differ is sent whole and reported.
import { loadConversation, type LoadedConversation } from '../conversation/conversationLoader';
import type { ChainOptions } from '../conversation/conversationChain';
import type { TranscriptLine } from '../conversation/transcriptReader';
import type { ContentBlock, SystemLine, ToolResultBlock, UserLine } from '../conversation/types';
import type { CompactionEvent } from './events';
import type { PinsCarried } from './pinnedBlock';
import { imagesAsNotes, isTrimmed, trimToolResult } from './microcompact';
import { contentSha1, RECORD_VERSION, type EngramRecordData, type RecordedCuts } from './recordFormat';
import type { CompactionEntry, CompactionStage, CompactionTrigger, DroppedFacts } from './types';
import { DROPPED_KINDS } from './droppedFacts';

/** One compaction record (or undo) as read from its line. */
export interface RecordedEvent {
  /** Engram's event id; the line's uuid for a record without one (Claude Code's). */
  eventId: string;
  stage: CompactionStage | 'undo';
  trigger: CompactionTrigger;
  /** When it was written, ms since the epoch (0 when the line has no time). */
  at: number;
  tokensBefore: number;
  tokensAfter: number;
  durationMs: number;
  modelCalls: number;
  /** Data to replay and undo it: absent on Claude Code's records and on Engram's before version 1. */
  engram?: EngramRecordData;
  /** microcompact's compactedToolIds. */
  trimmedToolUseIds: string[];
  summaryText?: string;
  /** An undo: the event it undid. */
  undoneEventId?: string;
}

const STAGES: readonly CompactionStage[] = ['micro', 'session-memory', 'full', 'reactive'];

/** The records among `lines` (any lines: the loaders pass only compaction records), in file order. */
export function readRecords(lines: readonly TranscriptLine[]): RecordedEvent[] {
  const summaries = new Map<string, string>();
  for (const l of lines)
    if (l.type === 'user' && (l as UserLine).isCompactSummary)
      summaries.set((l as UserLine).uuid, summaryTextOf(l as UserLine));
  const out: RecordedEvent[] = [];
  let awaitingSummary: RecordedEvent | undefined;
  for (const l of lines) {
    if (l.type === 'user' && (l as UserLine).isCompactSummary) {
      // Claude Code names no summary line: the one right after a boundary is its summary.
      if (awaitingSummary && awaitingSummary.summaryText === undefined)
        awaitingSummary.summaryText = summaryTextOf(l as UserLine);
      awaitingSummary = undefined;
      continue;
    }
    if (l.type !== 'system') continue;
    const line = l as SystemLine;
    const micro = line.subtype === 'microcompact_boundary';
    if (!micro && line.subtype !== 'compact_boundary') continue;
    const meta = ((micro ? line.microcompactMetadata : line.compactMetadata) ?? {}) as Record<string, unknown>;
    const engram = engramOf(meta.engram);
    const undone = str(engram?.undoneEventId) ?? str(meta.undoneEventId);
    const stage =
      undone !== undefined || meta.stage === 'undo'
        ? 'undo'
        : (STAGES.find((s) => s === meta.stage) ?? (micro ? 'micro' : 'full'));
    const ev: RecordedEvent = {
      eventId: str(meta.eventId) ?? line.uuid,
      stage,
      trigger:
        meta.reactive === true || meta.trigger === 'reactive'
          ? 'reactive'
          : meta.trigger === 'manual'
            ? 'manual'
            : 'auto',
      at: timeOf(line),
      tokensBefore: num(meta.preTokens) ?? 0,
      tokensAfter: num(meta.postTokens) ?? 0,
      durationMs: num(meta.durationMs) ?? 0,
      modelCalls: num(meta.modelCalls) ?? (stage === 'full' ? 1 : 0),
      ...(engram ? { engram } : {}),
      trimmedToolUseIds: Array.isArray(meta.compactedToolIds)
        ? meta.compactedToolIds.filter((x): x is string => typeof x === 'string')
        : [],
      ...(undone !== undefined ? { undoneEventId: undone } : {}),
    };
    const summary = engram?.summaryUuid !== undefined ? summaries.get(engram.summaryUuid) : undefined;
    if (summary !== undefined) ev.summaryText = summary;
    out.push(ev);
    awaitingSummary = micro || stage === 'undo' ? undefined : ev;
  }
  return out;
}

/** Ids of the events an undo record names. */
export function undoneIds(records: readonly RecordedEvent[]): Set<string> {
  const out = new Set<string>();
  for (const r of records) if (r.undoneEventId !== undefined) out.add(r.undoneEventId);
  return out;
}

export interface ReplayOutcome {
  entries: CompactionEntry[];
  /** Results cut again. */
  replayed: number;
  /** tool_use ids of recorded cuts whose result differs from what was cut (left whole). */
  mismatched: string[];
  warnings: string[];
}

/** The entries with every recorded cut that was not undone applied again, in file order. */
export function replayCuts(
  entries: readonly CompactionEntry[],
  records: readonly RecordedEvent[],
  skip: ReadonlySet<string> = new Set(),
): ReplayOutcome {
  const undone = undoneIds(records);
  const active = records.filter(
    (r) =>
      r.engram?.results !== undefined &&
      r.engram.maxChars !== undefined &&
      !undone.has(r.eventId) &&
      !skip.has(r.eventId),
  );
  const out: ReplayOutcome = { entries: entries.slice(), replayed: 0, mismatched: [], warnings: [] };
  if (active.length === 0) return out;
  const where = new Map<string, number>();
  entries.forEach((e, i) => {
    if (e.message.role !== 'user' || typeof e.message.content === 'string') return;
    for (const b of e.message.content) if (b.type === 'tool_result') where.set(b.tool_use_id, i);
  });
  const copies = new Map<number, ContentBlock[]>();
  const contentAt = (i: number): ContentBlock[] => {
    let c = copies.get(i);
    if (!c) copies.set(i, (c = (entries[i].message.content as ContentBlock[]).slice()));
    return c;
  };
  for (const r of active) {
    const cuts = r.engram as EngramRecordData & RecordedCuts;
    for (const rec of cuts.results) {
      const i = where.get(rec.id);
      if (i === undefined) continue; // summarised away since
      const content = contentAt(i);
      const k = content.findIndex((b) => b.type === 'tool_result' && b.tool_use_id === rec.id);
      const block = content[k] as ToolResultBlock;
      if (isTrimmed(block)) continue;
      const cut = trimToolResult(block, cuts.maxChars);
      if (cut === block) continue;
      if (contentSha1(block) !== rec.sha1) {
        out.mismatched.push(rec.id);
        continue;
      }
      content[k] = cut;
      out.replayed++;
    }
    for (const id of cuts.imagesIn ?? []) {
      const i = where.get(id);
      if (i !== undefined) copies.set(i, imagesAsNotes(contentAt(i)));
    }
  }
  for (const [i, content] of copies) out.entries[i] = { ...entries[i], message: { role: 'user', content } };
  if (out.mismatched.length > 0) {
    const named = `${out.mismatched.slice(0, 5).join(', ')}${out.mismatched.length > 5 ? ', ...' : ''}`;
    out.warnings.push(
      `${out.mismatched.length} tool result(s) differ from what compaction trimmed (${named}); they are sent whole.`,
    );
  }
  return out;
}

/**
 * The compactions a session recorded, as the events a live session would hold: `all` for the
 * timeline (undone ones included, as they stay in a live timeline), `active` for the orchestrator
 * (not undone, oldest first; the newest is the one undo acts on). Only records with Engram's data
 * become events: without the replaced ids nothing could be undone. A compaction written by another
 * program after them means theirs can no longer be undone.
 */
export function recordedEvents(records: readonly RecordedEvent[]): {
  all: CompactionEvent[];
  active: CompactionEvent[];
} {
  const undone = undoneIds(records);
  const all: CompactionEvent[] = [];
  let active: CompactionEvent[] = [];
  for (const r of records) {
    if (r.stage === 'undo') continue;
    if (!r.engram) {
      active = [];
      continue;
    }
    const ev = eventOf(r);
    all.push(ev);
    if (!undone.has(r.eventId)) active.push(ev);
  }
  return { all, active };
}

function eventOf(r: RecordedEvent): CompactionEvent {
  const e = r.engram as EngramRecordData;
  const trimmed = e.results?.map((x) => x.id) ?? r.trimmedToolUseIds;
  return {
    id: r.eventId,
    stage: r.stage as CompactionStage,
    trigger: r.trigger,
    tokensBefore: r.tokensBefore,
    tokensAfter: r.tokensAfter,
    durationMs: r.durationMs,
    modelCalls: r.modelCalls,
    replacedIds: e.replacedUuids?.slice() ?? [],
    keptFrom: e.keptFrom ?? 0,
    ...(r.summaryText !== undefined ? { summaryText: r.summaryText } : {}),
    ...(trimmed.length > 0 ? { trimmedToolUseIds: trimmed.slice() } : {}),
    ...(e.focus ? { focus: e.focus } : {}),
    ...(e.summaryEdited === true ? { summaryEdited: true as const } : {}),
    ...(validDropped(e.dropped) ? { dropped: e.dropped } : {}),
    at: r.at,
    ...(pinsCarriedOf(e.pinsCarried) ?? {}),
    ...(stringList(e.keptInstructions) ? { keptInstructions: stringList(e.keptInstructions) } : {}),
  };
}

export interface ReplayedConversation extends LoadedConversation {
  records: RecordedEvent[];
  replay: ReplayOutcome;
}

/** loadConversation with the recorded cuts replayed: the conversation as the last process sent it. */
export async function loadReplayedConversation(file: string, opts: ChainOptions = {}): Promise<ReplayedConversation> {
  const loaded = await loadConversation(file, opts);
  const records = readRecords(loaded.compactionRecords);
  const replay = replayCuts(loaded.entries, records);
  return { ...loaded, entries: replay.entries, records, replay };
}

function engramOf(v: unknown): EngramRecordData | undefined {
  if (!v || typeof v !== 'object' || (v as { v?: unknown }).v !== RECORD_VERSION) return undefined;
  const e = v as EngramRecordData;
  // A malformed cut list is ignored as a whole rather than half replayed.
  if (e.results !== undefined && (!Array.isArray(e.results) || !e.results.every(validResult)))
    return { ...e, results: undefined };
  return e;
}

/** A recorded dropped list is used only whole: four lists of strings (older records have none). */
export function validDropped(d: unknown): d is DroppedFacts {
  if (!d || typeof d !== 'object') return false;
  const x = d as Record<string, unknown>;
  return DROPPED_KINDS.every((k) => Array.isArray(x[k]) && (x[k] as unknown[]).every((s) => typeof s === 'string'));
}

function validResult(r: unknown): boolean {
  const x = r as Record<string, unknown> | null;
  return !!x && typeof x.id === 'string' && typeof x.sha1 === 'string';
}

function summaryTextOf(l: UserLine): string {
  const c = l.message.content;
  return typeof c === 'string' ? c : c.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
}

function timeOf(line: { timestamp?: unknown }): number {
  const ms = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : NaN;
  return Number.isFinite(ms) ? ms : 0;
}

/** A list of strings as recorded; undefined when absent or malformed (an older or foreign record). */
export function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v.slice() : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A record's pin figures, when they are all there and numbers (a hand-edited record may hold anything). */
function pinsCarriedOf(p: unknown): { pinsCarried: PinsCarried } | undefined {
  const o = p as Record<string, unknown> | undefined;
  if (!o || typeof o !== 'object') return undefined;
  const { count, tokens, cut } = o;
  if (typeof count !== 'number' || typeof tokens !== 'number' || typeof cut !== 'number') return undefined;
  return { pinsCarried: { count, tokens, cut } };
}
