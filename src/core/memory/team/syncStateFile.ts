// `<team>/.sync/state.json`: what the last sync learned (the server's ETag and checksums, its entry
// cap) and what it reported per file. Every host reads it (inspector, status bar, CLI), and anyone may
// have edited or truncated it, so it is checked with zod and a bad file reads as "never synced".
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../fs/atomicWrite';
import type { TeamFileStatus, TeamSyncReport, TeamSyncState } from './teamSyncTypes';

export const SYNC_DIR_NAME = '.sync';
const STATE_FILE_NAME = 'state.json';

const SkipReason = z.enum(['too_large', 'server_max_entries']);

const FileStatus: z.ZodType<TeamFileStatus> = z.discriminatedUnion('state', [
  z.object({ state: z.literal('synced') }),
  z.object({ state: z.literal('local-change') }),
  z.object({ state: z.literal('blocked'), rule: z.string(), kind: z.string(), line: z.number().int() }),
  z.object({ state: z.literal('skipped'), reason: SkipReason, detail: z.string() }),
  z.object({ state: z.literal('conflict'), keptAt: z.string() }),
]);

const Report: z.ZodType<TeamSyncReport> = z.object({
  repo: z.string(),
  server: z.string(),
  at: z.string(),
  ok: z.boolean(),
  version: z.number().int().nonnegative().optional(),
  pulled: z.array(
    z.object({ path: z.string(), reason: z.enum(['new', 'updated', 'conflict']), keptAt: z.string().optional() }),
  ),
  pushed: z.array(z.object({ path: z.string() })),
  skipped: z.array(z.object({ path: z.string(), reason: SkipReason, detail: z.string() })),
  blocked: z.array(z.object({ path: z.string(), rule: z.string(), kind: z.string(), line: z.number().int() })),
  retries: z.number().int().nonnegative(),
  error: z.string().optional(),
});

const State: z.ZodType<TeamSyncState> = z.object({
  repo: z.string(),
  server: z.string(),
  etag: z.string().nullable(),
  serverChecksums: z.record(z.string(), z.string()),
  serverMaxEntries: z.number().int().positive().nullable(),
  files: z.record(z.string(), FileStatus),
  lastSync: Report.nullable(),
});

export function teamSyncStatePath(teamDir: string): string {
  return path.join(teamDir, SYNC_DIR_NAME, STATE_FILE_NAME);
}

/** The state of the last sync, or null when there was none or the file is unreadable or malformed. */
export async function readTeamSyncState(teamDir: string): Promise<TeamSyncState | null> {
  let text: string;
  try {
    text = await fsp.readFile(teamSyncStatePath(teamDir), 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = State.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // not JSON (a torn or hand-edited file)
  }
}

export async function writeTeamSyncState(teamDir: string, state: TeamSyncState): Promise<void> {
  await writeFileAtomic(teamSyncStatePath(teamDir), `${JSON.stringify(state, null, 2)}\n`, { within: teamDir });
}
