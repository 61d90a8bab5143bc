// The team group's sync view: what `.sync/state.json` (written by every sync, core/memory/team) says of
// each team file and of the last sync, in the protocol's shapes. Pure: memoryView reads the state and
// the folder, this only maps them, so the inspector and `engram inspect` show the same states.
import path from 'node:path';
import type { TeamFileStatus, TeamSyncState } from '../memory/team/teamSyncTypes';
import type { TeamFileSyncView, TeamMemoryView, TeamSyncStateView } from '../../protocol/messages';

/** Where sync keeps the local copy of a file the server's version replaced (relative to the team folder). */
const CONFLICTS_DIR = '.conflicts';

export interface TeamSyncViews {
  /** Per team file (relative, forward slashes): its state, for the tree's entry rows. */
  byFile: Map<string, TeamFileSyncView>;
  team: TeamMemoryView;
}

/**
 * Maps a sync state onto the team folder's files. `listed` are the files the tree already has a row
 * for (index entries and topic files); a file the state names beyond those gets a row of its own
 * (the team MEMORY.md, a file the index does not point to), and a listed file the last sync did not
 * see is `unsynced`.
 */
export function teamSyncViews(teamDir: string, state: TeamSyncState, listed: readonly string[]): TeamSyncViews {
  const pulled = new Map((state.lastSync?.pulled ?? []).map((p) => [p.path, p.reason]));
  const byFile = new Map<string, TeamFileSyncView>();
  for (const [file, status] of Object.entries(state.files)) {
    const reason = pulled.get(file);
    byFile.set(file, { status: statusView(teamDir, status), ...(reason ? { pulled: reason } : {}) });
  }
  const shown = new Set(listed);
  const files = [...byFile.entries()]
    .filter(([file]) => !shown.has(file))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([file, sync]) => ({ file, path: path.join(teamDir, ...file.split('/')), sync }));
  for (const file of listed) if (!byFile.has(file)) byFile.set(file, { status: { state: 'unsynced' } });
  const last = state.lastSync;
  return {
    byFile,
    team: {
      repo: state.repo,
      server: state.server,
      ...(last
        ? {
            lastSync: {
              at: last.at,
              ok: last.ok,
              ...(last.error ? { error: last.error } : {}),
              ...(last.version !== undefined ? { version: last.version } : {}),
              pulled: last.pulled.length,
              pushed: last.pushed.length,
              skipped: last.skipped.length,
              blocked: last.blocked.length,
              conflicts: last.pulled.filter((p) => p.reason === 'conflict').length,
              retries: last.retries,
            },
          }
        : {}),
      serverMaxEntries: state.serverMaxEntries,
      files,
    },
  };
}

function statusView(teamDir: string, status: TeamFileStatus): TeamSyncStateView {
  if (status.state !== 'conflict') return status;
  return { state: 'conflict', keptAt: status.keptAt, keptPath: keptPath(teamDir, status.keptAt) };
}

/**
 * The kept copy's absolute path. The state file is data like any other: a `keptAt` that leaves the
 * conflicts folder (`../../x`, an absolute path) names the folder itself, so "open" never reaches out.
 */
function keptPath(teamDir: string, keptAt: string): string {
  const conflicts = path.join(teamDir, CONFLICTS_DIR);
  const resolved = path.resolve(teamDir, keptAt);
  const rel = path.relative(conflicts, resolved);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? resolved : conflicts;
}
