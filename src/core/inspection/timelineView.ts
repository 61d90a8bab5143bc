// The timeline: notes updates, memory writes and compactions, oldest first. The live session's events
// (data the engine emitted, STYLE 7) come first-hand; compactions recorded in the transcript fill in
// what the live list does not hold (a session resumed after a reload, or any session read from disk).
// Plain Node: unit-tested.
import type { CompactionEvent } from '../compaction/events';
import { instructionLabel } from '../memory/instructions';
import type { MemoryEntryView, TimelineView } from '../../protocol/messages';
import { checkpointTimelineView, markUndoneRewinds } from './checkpointTimeline';
import type { TimelineEntry } from './timeline';
import type { CompactionFact, TranscriptFacts } from './transcriptFacts';

export interface TimelineInput {
  live?: readonly TimelineEntry[];
  facts?: TranscriptFacts;
  /** For a session read from disk: memories whose front matter names it as their origin. */
  sessionId?: string;
  memories?: readonly MemoryEntryView[];
  /** The latest notes update known from the sidecar (disk sessions have no live notes events). */
  notesUpdatedAt?: number;
  notesTokens?: number;
  /** The session can undo its newest compaction (the chat session provides undoLastCompaction). */
  canUndo: boolean;
  /** The project folder, to show kept instruction files by their path in it. */
  cwd?: string;
}

export function buildTimeline(input: TimelineInput): TimelineView[] {
  const out: TimelineView[] = [];
  const live = input.live ?? [];
  const seenCompactions = new Set<string>();
  live.forEach((entry, i) => {
    const view = liveView(entry, i, input.cwd);
    if (!view) return;
    if (view.kind === 'compaction') seenCompactions.add(view.id);
    out.push(view);
  });
  const undone = new Set<string>();
  for (const fact of input.facts?.compactions ?? []) {
    if (fact.undoes) undone.add(fact.undoes);
    if (seenCompactions.has(fact.id)) {
      // The live event has no summary text when it came from a hook; the transcript has it.
      const v = out.find((t) => t.kind === 'compaction' && t.id === fact.id);
      if (v && v.kind === 'compaction' && v.summary === undefined && fact.summary !== undefined)
        v.summary = fact.summary;
      continue;
    }
    out.push(factView(fact, input.cwd));
  }
  if (live.length === 0) {
    if (input.notesUpdatedAt !== undefined) {
      out.push({
        kind: 'notes',
        id: 'notes-disk',
        at: input.notesUpdatedAt,
        status: 'updated',
        ...(input.notesTokens !== undefined ? { tokens: input.notesTokens } : {}),
      });
    }
    if (input.sessionId) {
      for (const m of input.memories ?? []) {
        if (m.origin?.sessionId === input.sessionId && m.mtimeMs !== null) {
          out.push({
            kind: 'memory',
            id: `memory-disk-${m.key}`,
            at: m.mtimeMs,
            status: 'saved',
            files: [m.file],
            detail: m.title,
          });
        }
      }
    }
  }
  out.sort((a, b) => a.at - b.at);
  markUndoneRewinds(out);
  // Only the newest compaction can be undone, and not one already undone (or an undo itself).
  const compactions = out.filter((t): t is Extract<TimelineView, { kind: 'compaction' }> => t.kind === 'compaction');
  const latest = compactions[compactions.length - 1];
  for (const c of compactions) {
    c.undoable = input.canUndo && c === latest && c.stage !== 'undo' && !undone.has(c.id);
    if (undone.has(c.id)) c.undone = true;
  }
  return out;
}

function liveView(entry: TimelineEntry, i: number, cwd: string | undefined): TimelineView | undefined {
  if (entry.kind === 'compaction') return compactionView(entry.event, cwd);
  if (entry.kind === 'checkpoint' || entry.kind === 'rewind') return checkpointTimelineView(entry, i);
  if (entry.kind === 'notes') {
    const e = entry.event;
    const id = `notes-${i}`;
    if (e.type === 'notesCreated') return { kind: 'notes', id, at: entry.at, status: 'created', detail: e.template };
    if (e.type === 'notesUpdated') {
      return {
        kind: 'notes',
        id,
        at: entry.at,
        status: 'updated',
        tokens: e.tokens,
        modelCalls: e.modelCalls,
        durationMs: e.durationMs,
        condensed: e.condensed,
      };
    }
    if (e.type === 'notesUpdateFailed') return { kind: 'notes', id, at: entry.at, status: 'failed', detail: e.error };
    return undefined;
  }
  const e = entry.event;
  const id = `memory-${i}`;
  if (e.type === 'memorySaved')
    return { kind: 'memory', id, at: entry.at, status: 'saved', files: [e.file], detail: e.title };
  if (e.type === 'extractionDone')
    return {
      kind: 'memory',
      id,
      at: entry.at,
      status: 'extracted',
      files: e.saved.slice(),
      modelCalls: e.modelCalls,
      detail: e.reason,
    };
  if (e.type === 'extractionFailed')
    return { kind: 'memory', id, at: entry.at, status: 'failed', files: [], detail: e.error };
  return undefined;
}

export function compactionView(e: CompactionEvent, cwd?: string): Extract<TimelineView, { kind: 'compaction' }> {
  return {
    kind: 'compaction',
    id: e.id,
    at: e.at,
    stage: e.stage,
    trigger: e.trigger,
    tokensBefore: e.tokensBefore,
    tokensAfter: e.tokensAfter,
    durationMs: e.durationMs,
    modelCalls: e.modelCalls,
    replaced: e.replacedIds.length,
    trimmed: e.trimmedToolUseIds?.length ?? 0,
    ...(e.summaryText !== undefined ? { summary: e.summaryText } : {}),
    ...(e.focus ? { focus: e.focus } : {}),
    ...(e.summaryEdited ? { summaryEdited: true } : {}),
    ...(e.dropped ? { dropped: e.dropped } : {}),
    ...(e.pinsCarried ? { pinsCarried: { ...e.pinsCarried } } : {}),
    ...keptView(e.keptInstructions, cwd),
    undoable: false,
  };
}

/** The kept instruction files as the timeline lists them ("kept: CLAUDE.md, AGENTS.md"). */
function keptView(paths: readonly string[] | undefined, cwd: string | undefined): { keptInstructions?: string[] } {
  return paths ? { keptInstructions: paths.map((p) => instructionLabel(p, cwd)) } : {};
}

function factView(f: CompactionFact, cwd: string | undefined): Extract<TimelineView, { kind: 'compaction' }> {
  return {
    kind: 'compaction',
    id: f.id,
    at: f.at,
    stage: f.stage,
    trigger: f.trigger,
    tokensBefore: f.tokensBefore,
    tokensAfter: f.tokensAfter ?? 0,
    durationMs: f.durationMs ?? 0,
    modelCalls: f.modelCalls ?? (f.stage === 'full' ? 1 : 0),
    replaced: f.replacedLines,
    trimmed: f.trimmed,
    ...(f.summary !== undefined ? { summary: f.summary } : {}),
    ...(f.dropped ? { dropped: f.dropped } : {}),
    ...keptView(f.keptInstructions, cwd),
    undoable: false,
  };
}
