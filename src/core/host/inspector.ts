// The Memory Inspector's engine side, as the extension's inspector panel reaches it: the snapshot of a
// source (the live session, or a session or project on disk), the sources found on disk, what a
// compaction replaced, and the memory tree's actions (prune with undo, restore, rename, change type,
// merge, pending review). Those operations are core/inspection/inspectorService's, which was written as
// this host-facing service: the panel gets it as one namespace (`inspector.buildInspectorSnapshot(...)`)
// through the lazily loaded engine chunk, and names the types below.
import * as inspectorService from '../inspection/inspectorService';

export type {
  CompactionEvent,
  DiskSource,
  FileEvent,
  HealthResult,
  HealthState,
  LiveSession,
  McpInspection,
  WorkspaceHealth,
} from '../inspection/inspectorService';

/** Every operation of the inspector's engine side (see inspectorService.ts for each contract). */
export const inspector = inspectorService;
