// What the Memory Inspector does, as the engine's side of it: turn a source (the live session, or a
// session or project under a data root) into the inputs of its snapshot and build it, find sources on
// disk, read back what a compaction replaced, and the memory tree's actions (prune with undo, restore,
// rename, change type, delete for good). Reached through the lazily loaded engine chunk; the VS Code
// side only asks the person, calls these and shows what they return.
import path from 'node:path';
import type { CompactionEvent } from '../compaction/events';
import { projectDir } from '../conversation/projectKey';
import { autoMemoryDir, MEMORY_DIR_NAME, TEAM_DIR_NAME } from '../memory/autoMemory/memoryPaths';
import type { SessionNotes } from '../memory/sessionNotes/updater';
import type { EngramSettings } from '../settings/engramSettings';
import type { GaugeState, InspectorSourceKind, ReplacedMessageView } from '../../protocol/messages';
import type { McpInspection } from './mcpView';
import type { PinStore } from './pinsView';
import { readReplacedMessages } from './replacedMessages';
import type { SnapshotInput } from './snapshotBuilder';
import { sessionPaths } from './sources';
import type { TimelineEntry } from './timeline';
import { transcriptFacts } from './transcriptFacts';

export { buildInspectorSnapshot } from './snapshotBuilder';
export { mcpTarget } from './mcpView';
export { WorkspaceHealth, type FileEvent, type HealthResult, type HealthState } from './healthView';
export { claudeConfigDir, isSessionId, lineOfMessage, listProjects, sessionPaths, sessionsOf } from './sources';
export { clipForWebview, replacedDocument } from './replacedMessages';
export { projectDir };
export { MEMORY_TYPES } from '../memory/autoMemory/topicFile';
export { pruneEntry, restoreEntry } from '../memory/autoMemory/memoryTrash';
export { setNotRelevant } from '../memory/autoMemory/usageCounts';
export { changeType, renameEntry } from '../memory/autoMemory/memoryWriter';
export { deleteTrashEntry } from '../memory/autoMemory/trashDelete';
export { acceptPending, rejectPending, restorePending } from '../memory/autoMemory/pendingQueue';
export { pruneCandidates } from '../memory/autoMemory/capWarning';
export { mergeEntries, undoMerge } from '../memory/autoMemory/mergeEntries';
export type { CompactionEvent, McpInspection, SnapshotInput };

/** What the live session tells the inspector (the "Current session" source). */
export interface LiveSession {
  sessionId: string | undefined;
  /** The project folder (transcripts and memory are keyed by it). */
  cwd: string;
  dataDir: string;
  transcriptPath: string | undefined;
  gauge: GaugeState;
  notes: SessionNotes | undefined;
  memoryDir: string | undefined;
  timeline: readonly TimelineEntry[];
  /** The session's pins, shown with their cost and removed from the inspector. */
  pins?: PinStore;
  /** The MCP servers of the project and the session's hub, read when a snapshot is built. */
  mcp?: () => Promise<McpInspection>;
}

/** A session or project read from disk, under Engram's data dir or Claude Code's. */
export interface DiskSource {
  kind: Exclude<InspectorSourceKind, 'current'>;
  root: string;
  projectKey: string;
  /** Undefined: the project's memory only. */
  sessionId: string | undefined;
  label: string;
  /** Claude Code's folder: only pruning changes anything there. */
  readOnly: boolean;
}

export interface LiveInputOptions {
  /** What the header calls the live session. */
  label: string;
  /** Whether project instructions are read (the workspace is trusted). */
  trusted: boolean;
  settings: EngramSettings;
  canUndoCompaction: boolean;
  now: number;
}

/** The live session's snapshot inputs: its gauge, notes state and timeline as data, its paths. */
export async function liveSessionInput(live: LiveSession, o: LiveInputOptions): Promise<SnapshotInput> {
  const project = projectDir(live.dataDir, live.cwd);
  const memoryDir =
    live.memoryDir ?? (o.settings.memory.enabled ? await autoMemoryDir(live.dataDir, live.cwd) : undefined);
  const paths = live.sessionId ? sessionPaths(project, live.sessionId) : undefined;
  const notes = live.notes;
  const state = notes?.state;
  return {
    source: {
      kind: 'current',
      label: o.label,
      readOnly: false,
      root: live.dataDir,
      projectKey: path.basename(project),
    },
    sessionId: live.sessionId,
    transcriptPath: live.transcriptPath,
    gauge: live.gauge,
    settings: o.settings,
    notes: {
      summaryPath: notes?.paths.summary ?? paths?.summary,
      statePath: notes?.paths.state ?? paths?.state,
      ...(notes ? { caps: notes.caps } : {}),
      ...(notes && state
        ? {
            live: {
              updating: notes.updating,
              ...(state.lastSummarizedMessageId ? { lastSummarizedMessageId: state.lastSummarizedMessageId } : {}),
              ...(state.updatedAt ? { updatedAt: state.updatedAt } : {}),
              ...(state.lastError ? { lastError: state.lastError } : {}),
            },
          }
        : {}),
    },
    memoryDir,
    instructions: { cwd: live.cwd, configDir: live.dataDir, trusted: o.trusted },
    timeline: live.timeline,
    ...(live.pins ? { pins: live.pins.list() } : {}),
    ...(live.mcp ? { mcp: await live.mcp() } : {}),
    rules: { dataDir: live.dataDir, projectRoot: live.cwd, settings: o.settings.permissions, trusted: o.trusted },
    canUndoCompaction: o.canUndoCompaction,
    now: o.now,
  };
}

/** A source on disk: no live gauge or events; the transcript and the files say it all. */
export function diskSourceInput(s: DiskSource, settings: EngramSettings, now: number): SnapshotInput {
  const dir = sourceProjectDir(s);
  const paths = s.sessionId ? sessionPaths(dir, s.sessionId) : undefined;
  return {
    source: { kind: s.kind, label: s.label, readOnly: s.readOnly, root: s.root, projectKey: s.projectKey },
    sessionId: s.sessionId,
    transcriptPath: paths?.transcript,
    settings,
    notes: { summaryPath: paths?.summary, statePath: paths?.state },
    memoryDir: path.join(dir, MEMORY_DIR_NAME),
    instructions: { cwd: undefined, configDir: s.root, trusted: true },
    canUndoCompaction: false,
    now,
  };
}

/** The folder of a source's project: `<root>/projects/<key>`. */
export function sourceProjectDir(s: Pick<DiskSource, 'root' | 'projectKey'>): string {
  return path.join(s.root, 'projects', s.projectKey);
}

/** The folder of a memory group: the project's memory folder, or its team folder. */
export function memoryGroupDir(memoryDir: string, group: 'private' | 'team'): string {
  return group === 'team' ? path.join(memoryDir, TEAM_DIR_NAME) : memoryDir;
}

/**
 * The messages a compaction replaced, as text (the transcript keeps them; the conversation no longer
 * does): by the ids its live event recorded, else by the line range of its boundary in the transcript.
 */
export async function replacedMessages(
  transcriptPath: string,
  compactionId: string,
  live?: CompactionEvent,
): Promise<ReplacedMessageView[]> {
  if (live) return readReplacedMessages(transcriptPath, { uuids: live.replacedIds });
  const facts = await transcriptFacts(transcriptPath);
  const fact = facts?.compactions.find((c) => c.id === compactionId);
  if (!fact) return [];
  // Engram's records name the replaced lines; Claude Code's only say where the boundary is.
  return readReplacedMessages(
    transcriptPath,
    fact.replacedUuids ? { uuids: fact.replacedUuids } : { lineRange: [fact.lineRange[0], fact.lineRange[1]] },
  );
}
