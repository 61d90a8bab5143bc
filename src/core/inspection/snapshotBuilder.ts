// Builds what the Memory Inspector shows from a source's inputs and the files on disk: the gauge (live,
// or measured from the transcript for a session read from disk), the notes, the memory tree and the
// timeline. Plain Node (no `vscode`): the VS Code side gathers the inputs, this assembles them, and unit
// tests drive it on fixture folders.
import { promises as fsp } from 'node:fs';
import { activePins, type Pin } from '../conversation/pinLines';
import type { NotesCaps } from '../memory/sessionNotes/template';
import type { EngramSettings } from '../settings/engramSettings';
import { defaultTokenCounter, type TokenCounter } from '../tokens/accounting';
import type { GaugeState, InspectorSnapshot, InspectorSourceInfo } from '../../protocol/messages';
import { gaugeFrame } from './contextSnapshot';
import type { TimelineEntry } from './timeline';
import type { RuleInputs } from '../agent/permissionFiles';
import { buildHealthView, type HealthState } from './healthView';
import { buildMcpView, type McpInspection } from './mcpView';
import { buildRulesView } from './rulesView';
import { buildMemoryView } from './memoryView';
import { buildNotesView } from './notesView';
import { buildPinsView } from './pinsView';
import { buildReviewQueueView } from './pendingView';
import { buildTimeline } from './timelineView';
import { transcriptFacts } from './transcriptFacts';
import { measureTranscript } from './transcriptInspection';

export interface SnapshotInput {
  source: InspectorSourceInfo;
  sessionId: string | undefined;
  transcriptPath: string | undefined;
  /** The live session's gauge (gaugeState of its ContextGauge); absent for a session read from disk. */
  gauge?: GaugeState;
  /** The window, reserve and marks a session read from disk is measured against. */
  settings: EngramSettings;
  notes: {
    summaryPath: string | undefined;
    statePath: string | undefined;
    caps?: NotesCaps;
    live?: { lastSummarizedMessageId?: string; updatedAt?: string; lastError?: string; updating: boolean };
  };
  memoryDir: string | undefined;
  instructions?: { cwd: string | undefined; configDir: string; trusted: boolean };
  /** The live session's events; absent for a session read from disk. */
  timeline?: readonly TimelineEntry[];
  /** The live session's pins; absent for a source on disk (its transcript's pin lines are read instead). */
  pins?: readonly Pin[];
  /** The live session's MCP servers; absent for a source on disk. */
  mcp?: McpInspection;
  /** Where the live session's permission rules are read; absent for a source on disk. */
  rules?: RuleInputs;
  canUndoCompaction: boolean;
  /** The host's memory health check of the workspace (the Health view); absent: no Health view. */
  health?: HealthState;
  now: number;
  countTokens?: TokenCounter;
}

export async function buildInspectorSnapshot(input: SnapshotInput): Promise<InspectorSnapshot> {
  const count = input.countTokens ?? defaultTokenCounter;
  const facts = input.transcriptPath ? await transcriptFacts(input.transcriptPath) : undefined;
  const [notes, memory, gauge, mcp, rules] = await Promise.all([
    buildNotesView({ ...input.notes, ...(facts ? { facts } : {}), countTokens: count }),
    buildMemoryView({
      dir: input.memoryDir,
      ...(input.instructions
        ? { instructions: { ...input.instructions, cwd: input.instructions.cwd ?? facts?.cwd } }
        : {}),
      countTokens: count,
    }),
    input.gauge ? Promise.resolve(input.gauge) : diskGauge(input.transcriptPath, input.settings, count),
    input.mcp ? buildMcpView(input.mcp) : undefined,
    input.rules ? buildRulesView(input.rules) : undefined,
  ]);
  if (input.memoryDir)
    memory.review = await buildReviewQueueView(input.memoryDir, input.settings.memory.extraction.review);
  const timeline = buildTimeline({
    ...(input.timeline ? { live: input.timeline } : {}),
    ...(facts ? { facts } : {}),
    ...(input.sessionId ? { sessionId: input.sessionId } : {}),
    memories: [...memory.entries, ...memory.unindexed],
    ...(notes.updatedAt !== undefined && !input.timeline
      ? { notesUpdatedAt: notes.updatedAt, notesTokens: notes.tokens }
      : {}),
    canUndo: input.canUndoCompaction,
    ...((input.instructions?.cwd ?? facts?.cwd) ? { cwd: input.instructions?.cwd ?? facts?.cwd } : {}),
  });
  // A session read from disk: the pins its transcript records, shown read-only.
  const pinList = input.pins ?? (facts && facts.pinLines.length > 0 ? activePins(facts.pinLines) : undefined);
  const pins = pinList ? buildPinsView(pinList, input.settings.compaction.pinBudgetTokens, count) : undefined;
  const { source, sessionId, now } = input;
  return {
    source,
    sessionId,
    gauge,
    notes,
    memory,
    timeline,
    ...(pins ? { pins } : {}),
    ...(mcp ? { mcp } : {}),
    ...(rules ? { rules } : {}),
    ...(input.health ? { health: buildHealthView(input.health, memory) } : {}),
    now,
  };
}

const gaugeCache = new Map<string, { size: number; mtimeMs: number; gauge: GaugeState }>();

/**
 * The gauge of a transcript on disk: the live gauge replayed on it (the last usage report plus what
 * came after), in the same model the live session shows. Cached by file size and mtime.
 */
export async function diskGauge(
  transcriptPath: string | undefined,
  settings: EngramSettings,
  count: TokenCounter,
): Promise<GaugeState | undefined> {
  if (!transcriptPath) return undefined;
  let st;
  try {
    st = await fsp.stat(transcriptPath);
  } catch {
    return undefined;
  }
  const hit = gaugeCache.get(transcriptPath);
  // The measure does not depend on the settings: a changed window or mark only reframes it.
  if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs) return { ...hit.gauge, ...gaugeFrame(settings) };
  try {
    const { gauge } = await measureTranscript(transcriptPath, settings, count);
    gaugeCache.set(transcriptPath, { size: st.size, mtimeMs: st.mtimeMs, gauge });
    if (gaugeCache.size > 20) gaugeCache.delete(gaugeCache.keys().next().value as string);
    return gauge;
  } catch {
    return undefined;
  }
}
