// Team memory as a host drives it: which repository a workspace shares memory by, a sync with the
// team's server, and the last sync recorded in the team folder (for a status line). The session syncs on
// its own while it is open; these are for a host's sync command and for a window without a session.
import { repoSlugOf as slugOf } from '../memory/team/repoSlug';
import { readTeamSyncState as readState } from '../memory/team/syncStateFile';
import { syncTeamMemory as sync, type TeamSyncOptions } from '../memory/team/teamSync';
import type { TeamSyncReport, TeamSyncState } from '../memory/team/teamSyncTypes';

export type { TeamSyncOptions, TeamSyncReport, TeamSyncState };

/** The shape of a repository name (owner/repo) a server accepts, for a host that takes one from its flags. */
export { RepoSlug } from '../memory/team/teamProtocol';

/** The repository (owner/repo) of `cwd`'s "origin" remote, or null when it has none. */
export function repoSlugOf(cwd: string): Promise<string | null> {
  return slugOf(cwd);
}

/** Syncs a team memory folder with the team's server; the report says what moved and what was held back. */
export function syncTeamMemory(opts: TeamSyncOptions): Promise<TeamSyncReport> {
  return sync(opts);
}

/** The last sync recorded in the team folder `teamDir`, or null when it never synced. */
export function readTeamSyncState(teamDir: string): Promise<TeamSyncState | null> {
  return readState(teamDir);
}
