// Step 1 of a sync: the server's entries written into the team folder. The server wins, but nothing
// written here is lost: a local edit the server also changed (or, before any sync, any local copy that
// differs) is kept in `.conflicts/` first. A local edit of a file the server did not change since the
// last sync stays, to be pushed. Every write is atomic and confined to the team folder.
import { writeFileAtomic } from '../../fs/atomicWrite';
import { isErrno } from '../../fs/errno';
import type { TeamMemoryBody } from './teamProtocol';
import { readTeamFile, sha256Hex, teamFilePath } from './teamFiles';
import type { TeamSyncReport } from './teamSyncTypes';

export const CONFLICTS_DIR_NAME = '.conflicts';

type Pulled = TeamSyncReport['pulled'][number];

export interface PullResult {
  pulled: Pulled[];
  /** sha256 per path of what the server holds now (computed from the content, not taken on trust). */
  serverChecksums: Record<string, string>;
}

export interface ApplyPullOptions {
  teamDir: string;
  body: TeamMemoryBody;
  /** The server's checksums at the last sync: a local file equal to its entry here was not edited since. */
  previous: Record<string, string>;
  /** When this sync started, for the names of kept copies. */
  at: Date;
  onProgress?(done: number, total: number): void;
}

export async function applyPull(opts: ApplyPullOptions): Promise<PullResult> {
  const paths = Object.keys(opts.body.entries).sort();
  const result: PullResult = { pulled: [], serverChecksums: {} };
  let done = 0;
  for (const p of paths) {
    const content = opts.body.entries[p];
    const serverSha = sha256Hex(content);
    result.serverChecksums[p] = serverSha;
    const outcome = await applyEntry(opts, p, content, serverSha);
    if (outcome) result.pulled.push(outcome);
    opts.onProgress?.(++done, paths.length);
  }
  return result;
}

async function applyEntry(
  opts: ApplyPullOptions,
  p: string,
  content: string,
  serverSha: string,
): Promise<Pulled | null> {
  const local = await readTeamFile(opts.teamDir, p);
  if (local === null) return (await writeEntry(opts.teamDir, p, content)) ? { path: p, reason: 'new' } : null;
  const localSha = sha256Hex(local);
  if (localSha === serverSha) return null;
  const base = opts.previous[p];
  if (base === localSha) return (await writeEntry(opts.teamDir, p, content)) ? { path: p, reason: 'updated' } : null;
  if (base === serverSha) return null; // edited here only: the push sends it
  const keptAt = `${CONFLICTS_DIR_NAME}/${p.slice(0, -'.md'.length)}.${stampOf(opts.at)}.md`;
  await writeFileAtomic(teamFilePath(opts.teamDir, keptAt), local, { within: opts.teamDir });
  return (await writeEntry(opts.teamDir, p, content)) ? { path: p, reason: 'conflict', keptAt } : null;
}

/**
 * Writes one entry; false when its path here is a symlink out of the folder (or a folder): that path
 * is left alone rather than followed, and the push never reads it either.
 */
async function writeEntry(teamDir: string, p: string, content: string): Promise<boolean> {
  try {
    await writeFileAtomic(teamFilePath(teamDir, p), content, { within: teamDir });
    return true;
  } catch (err) {
    if (isErrno(err, 'EOUTSIDE', 'EISDIR', 'ENOTDIR')) return false;
    throw err;
  }
}

/** `2026-12-02T01-05-17-123Z`: an ISO time that is a valid file name everywhere. */
function stampOf(at: Date): string {
  return at.toISOString().replace(/[:.]/g, '-');
}
