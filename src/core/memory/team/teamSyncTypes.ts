// What a team-memory sync reports and what it leaves on disk for the inspector and the status bar
// (`<memory>/team/.sync/state.json`, written atomically after every sync, read by every host).

/** The sync state of one file in the team folder, as the inspector's tree shows it. */
export type TeamFileStatus =
  /** Local content equals the server's. */
  | { state: 'synced' }
  /** Changed here and not yet on the server (the next push sends it). */
  | { state: 'local-change' }
  /** Never uploaded: a secret was found. `rule` is the scanner's rule id, `line` 1-based. */
  | { state: 'blocked'; rule: string; kind: string; line: number }
  /** Never uploaded for another reason: `too_large` (over 250 KB), `server_max_entries` (the server's cap). */
  | { state: 'skipped'; reason: 'too_large' | 'server_max_entries'; detail: string }
  /** The server's version won over a local edit; the local one was kept at `keptAt` (relative to the team folder). */
  | { state: 'conflict'; keptAt: string };

export interface TeamSyncReport {
  repo: string;
  server: string;
  /** ISO time the sync finished. */
  at: string;
  ok: boolean;
  /** The server's version after the sync (its ETag), when it was reached. */
  version?: number;
  /**
   * Files written from the server: `new` (not here before), `updated` (replaced a local copy nobody
   * edited), `conflict` (replaced a local edit, kept in .conflicts).
   */
  pulled: Array<{ path: string; reason: 'new' | 'updated' | 'conflict'; keptAt?: string }>;
  pushed: Array<{ path: string }>;
  skipped: Array<{ path: string; reason: 'too_large' | 'server_max_entries'; detail: string }>;
  blocked: Array<{ path: string; rule: string; kind: string; line: number }>;
  /** 412s answered by a pull and a retry (at most 2). */
  retries: number;
  /** Why the sync failed (network, auth, server error), in words; absent when ok. */
  error?: string;
}

/** `<memory>/team/.sync/state.json`. */
export interface TeamSyncState {
  repo: string;
  server: string;
  /** The last ETag the server sent (If-Match of the next push). */
  etag: string | null;
  /** The server's sha256 per path at the last sync: what "changed here" is measured against. */
  serverChecksums: Record<string, string>;
  /** Learned from a 413 too_many_entries reply. */
  serverMaxEntries: number | null;
  files: Record<string, TeamFileStatus>;
  lastSync: TeamSyncReport | null;
}
