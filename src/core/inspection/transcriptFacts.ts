// What the inspector needs from a session transcript, in one streaming pass: the order of the model's
// responses (so "the notes cover up to response 12 of 20" can be said) and every compaction recorded
// in it (boundary lines with their metadata and the summary that followed). Plain Node, no `vscode`:
// unit-tested. Results are cached by file size and mtime, since the inspector refreshes after every turn.
import { promises as fsp } from 'node:fs';
import { stringList, validDropped } from '../compaction/recordedCompactions';
import type { DroppedFacts } from '../compaction/types';
import { isPinLine, type PinLine } from '../conversation/pinLines';
import { forEachTranscriptLine, type TranscriptLine } from '../conversation/transcriptReader';
import type { AssistantLine, SystemLine, UserLine } from '../conversation/types';
import type { CompactionStageView, CompactionTriggerView } from '../../protocol/messages';

/** Responses copied by a compaction carry this model name; they are not real responses. */
const SYNTHETIC_MODEL = '<synthetic>';
const PREVIEW_CHARS = 160;

export interface ResponseFact {
  /** 1-based position among the session's responses. */
  index: number;
  at?: number;
  preview?: string;
}

export interface CompactionFact {
  /** The event id Engram records (`eventId`), else the boundary line's uuid. */
  id: string;
  at: number;
  stage: CompactionStageView;
  trigger: CompactionTriggerView;
  tokensBefore: number;
  tokensAfter?: number;
  durationMs?: number;
  modelCalls?: number;
  summary?: string;
  /** Conversation lines between the previous boundary and this one (what it replaced, for a disk-only view). */
  lineRange: [number, number];
  /** The uuids of the lines it replaced, as Engram records them (recordFormat.ts); better than the range. */
  replacedUuids?: string[];
  replacedLines: number;
  trimmed: number;
  /** For an undo boundary: the compaction it undid. */
  undoes?: string;
  /** The instruction files (paths) in the system prompt after it, as Engram records them. */
  keptInstructions?: string[];
  /** What its replacement no longer carried, as Engram records it (droppedFacts.ts). */
  dropped?: DroppedFacts;
}

export interface TranscriptFacts {
  responses: Map<string, ResponseFact>;
  responseCount: number;
  compactions: CompactionFact[];
  /** The working directory the session ran in (from its lines). */
  cwd?: string;
  /** The pin lines (added and removed), in order: the pins of a session read from disk. */
  pinLines: PinLine[];
}

const cache = new Map<string, { size: number; mtimeMs: number; facts: TranscriptFacts }>();

export async function transcriptFacts(file: string): Promise<TranscriptFacts | undefined> {
  let st;
  try {
    st = await fsp.stat(file);
  } catch {
    return undefined;
  }
  const hit = cache.get(file);
  if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs) return hit.facts;
  const facts = await scan(file);
  cache.set(file, { size: st.size, mtimeMs: st.mtimeMs, facts });
  if (cache.size > 20) cache.delete(cache.keys().next().value as string);
  return facts;
}

async function scan(file: string): Promise<TranscriptFacts> {
  const facts: TranscriptFacts = { responses: new Map(), responseCount: 0, compactions: [], pinLines: [] };
  let conversationLines = 0;
  let previousBoundaryLine = 0;
  let pendingSummary: CompactionFact | undefined;
  try {
    await forEachTranscriptLine(file, (line, lineNo) => {
      if (!facts.cwd && typeof (line as { cwd?: unknown }).cwd === 'string') facts.cwd = (line as { cwd: string }).cwd;
      if ((line as { isSidechain?: unknown }).isSidechain === true) return;
      if (isPinLine(line)) {
        facts.pinLines.push(line);
        return;
      }
      if (line.type === 'assistant') {
        conversationLines++;
        pendingSummary = undefined;
        noteResponse(facts, line as AssistantLine);
      } else if (line.type === 'user') {
        const user = line as UserLine;
        if (pendingSummary && user.isCompactSummary) {
          pendingSummary.summary =
            typeof user.message.content === 'string'
              ? user.message.content
              : user.message.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
          pendingSummary = undefined;
          return;
        }
        pendingSummary = undefined;
        conversationLines++;
      } else if (line.type === 'system') {
        const fact = compactionOf(line as SystemLine, lineNo, previousBoundaryLine, conversationLines);
        if (fact) {
          facts.compactions.push(fact);
          if (fact.stage !== 'micro' && (line as SystemLine).subtype === 'compact_boundary') {
            previousBoundaryLine = lineNo;
            conversationLines = 0;
            // An undo has no summary: the lines after it are the restored conversation.
            pendingSummary = fact.stage === 'undo' ? undefined : fact;
          }
        }
      }
    });
  } catch {
    // unreadable now (removed while reading): what was read so far
  }
  return facts;
}

function noteResponse(facts: TranscriptFacts, line: AssistantLine): void {
  const m = line.message;
  if (line.isApiErrorMessage || m.model === SYNTHETIC_MODEL) return;
  let fact = facts.responses.get(m.id);
  if (!fact) {
    fact = { index: ++facts.responseCount, ...(timeOf(line) !== undefined ? { at: timeOf(line) } : {}) };
    facts.responses.set(m.id, fact);
  }
  if (fact.preview === undefined) {
    const text = m.content.find((b) => b.type === 'text');
    if (text && text.type === 'text' && text.text.trim()) fact.preview = clipPreview(text.text);
  }
}

function compactionOf(
  line: SystemLine,
  lineNo: number,
  previousBoundaryLine: number,
  conversationLines: number,
): CompactionFact | undefined {
  const at = timeOf(line) ?? 0;
  if (line.subtype === 'compact_boundary') {
    const meta = (line.compactMetadata ?? {}) as Record<string, unknown>;
    const stage = stageOf(meta.stage);
    const engram = engramOf(meta.engram);
    return {
      id: str(meta.eventId) ?? line.uuid,
      at,
      stage,
      trigger: meta.reactive === true ? 'reactive' : triggerOf(meta.trigger),
      tokensBefore: num(meta.preTokens) ?? 0,
      ...(num(meta.postTokens) !== undefined ? { tokensAfter: num(meta.postTokens) } : {}),
      ...(num(meta.durationMs) !== undefined ? { durationMs: num(meta.durationMs) } : {}),
      ...(num(meta.modelCalls) !== undefined ? { modelCalls: num(meta.modelCalls) } : {}),
      lineRange: [previousBoundaryLine + 1, lineNo - 1],
      replacedLines: stage === 'undo' ? 0 : (engram.replacedUuids?.length ?? conversationLines),
      ...(engram.replacedUuids ? { replacedUuids: engram.replacedUuids } : {}),
      trimmed: engram.results?.length ?? 0,
      ...(engram.keptInstructions ? { keptInstructions: engram.keptInstructions } : {}),
      ...(engram.dropped ? { dropped: engram.dropped } : {}),
      ...((str(meta.undoneEventId) ?? str(engram.undoneEventId))
        ? { undoes: str(meta.undoneEventId) ?? str(engram.undoneEventId) }
        : {}),
    };
  }
  if (line.subtype === 'microcompact_boundary') {
    const meta = ((line as Record<string, unknown>).microcompactMetadata ?? {}) as Record<string, unknown>;
    const ids = Array.isArray(meta.compactedToolIds) ? meta.compactedToolIds : [];
    const engram = engramOf(meta.engram);
    const undoes = str(engram.undoneEventId);
    return {
      id: str(meta.eventId) ?? line.uuid,
      at,
      stage: undoes ? 'undo' : meta.stage === 'reactive' ? 'reactive' : 'micro',
      trigger: triggerOf(meta.trigger),
      tokensBefore: num(meta.preTokens) ?? 0,
      ...(num(meta.postTokens) !== undefined ? { tokensAfter: num(meta.postTokens) } : {}),
      modelCalls: 0,
      lineRange: [lineNo, lineNo],
      replacedLines: 0,
      ...(engram.replacedUuids ? { replacedUuids: engram.replacedUuids } : {}),
      trimmed: ids.length,
      ...(undoes ? { undoes } : {}),
      ...(engram.keptInstructions ? { keptInstructions: engram.keptInstructions } : {}),
      ...(engram.dropped ? { dropped: engram.dropped } : {}),
    };
  }
  return undefined;
}

const STAGES: readonly CompactionStageView[] = ['micro', 'session-memory', 'full', 'reactive', 'undo'];
const TRIGGERS: readonly CompactionTriggerView[] = ['auto', 'manual', 'reactive'];

/** A boundary without Engram's `stage` (Claude Code writes none) is a full compaction. */
function stageOf(v: unknown): CompactionStageView {
  return STAGES.find((s) => s === v) ?? 'full';
}

function triggerOf(v: unknown): CompactionTriggerView {
  return TRIGGERS.find((t) => t === v) ?? 'auto';
}

function timeOf(line: TranscriptLine): number | undefined {
  const t = (line as { timestamp?: unknown }).timestamp;
  if (typeof t !== 'string') return undefined;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Engram's namespaced record data (compaction/recordFormat.ts), version 1; empty when absent. */
function engramOf(v: unknown): {
  replacedUuids?: string[];
  results?: unknown[];
  undoneEventId?: unknown;
  keptInstructions?: string[];
  dropped?: DroppedFacts;
} {
  if (!v || typeof v !== 'object' || (v as { v?: unknown }).v !== 1) return {};
  const e = v as Record<string, unknown>;
  const uuids = Array.isArray(e.replacedUuids)
    ? e.replacedUuids.filter((u): u is string => typeof u === 'string')
    : undefined;
  return {
    ...(uuids ? { replacedUuids: uuids } : {}),
    ...(Array.isArray(e.results) ? { results: e.results } : {}),
    undoneEventId: e.undoneEventId,
    ...(stringList(e.keptInstructions) ? { keptInstructions: stringList(e.keptInstructions) } : {}),
    ...(validDropped(e.dropped) ? { dropped: e.dropped } : {}),
  };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function clipPreview(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > PREVIEW_CHARS ? `${one.slice(0, PREVIEW_CHARS - 1)}…` : one;
}
