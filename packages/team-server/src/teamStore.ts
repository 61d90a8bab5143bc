// Where the reference team-memory server keeps repositories, entries and tokens: one interface, two
// backends (SQLite for one server, PostgreSQL for several behind a load balancer). Each PUT is one
// transaction that checks the version it was based on, so concurrent PUTs to a repository are
// serialised whichever instance or process takes them.
import crypto from 'node:crypto';

/** What a repository holds now. A repository nobody pushed to is version 0 with no entries. */
export interface TeamSnapshot {
  version: number;
  entries: Record<string, string>;
  checksums: Record<string, string>;
}

export type TeamPutResult =
  /** Stored; `checksums` covers every entry of the repository, not only those sent. */
  | { ok: true; version: number; checksums: Record<string, string> }
  /** The PUT was based on another version than the current one: nothing stored. */
  | { ok: false; reason: 'conflict'; version: number }
  /** The repository would hold more than `maxEntries` entries: nothing stored. */
  | { ok: false; reason: 'too_many_entries'; version: number; maxEntries: number };

export interface TeamTokenInfo {
  /** The first characters of the token's sha256: names the token in `list` and `revoke`, reveals nothing. */
  id: string;
  repo: string;
  createdAt: string;
}

export interface TeamStore {
  /** `sqlite /path/to.db` or `postgres host/db` (never a password): for the start-up line and logs. */
  readonly description: string;
  get(repo: string): Promise<TeamSnapshot>;
  /** The version alone, read without a lock (versions only grow, so a mismatch here is a conflict). */
  version(repo: string): Promise<number>;
  /**
   * Upserts `entries` if the repository is still at `ifMatchVersion` and would hold at most `maxEntries`
   * entries. Nothing is deleted. A PUT that changes no content keeps the version.
   */
  put(
    repo: string,
    ifMatchVersion: number,
    entries: Record<string, string>,
    maxEntries: number,
  ): Promise<TeamPutResult>;
  /** Stores the sha256 of a new random token for `repo` and returns the token (shown once, stored never). */
  addToken(repo: string): Promise<string>;
  /** The repository a token (given by its sha256 hex) opens, or null. */
  lookupToken(tokenHash: string): Promise<string | null>;
  listTokens(): Promise<TeamTokenInfo[]>;
  /** Removes the tokens whose id starts with `idPrefix`; returns them. */
  revokeTokens(idPrefix: string): Promise<TeamTokenInfo[]>;
  /** Throws if the storage cannot be reached (for /healthz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The tables, the same on both backends but for the names of two column types. */
export function teamSchema(types: { bigint: string; time: string }): string {
  return `
CREATE TABLE IF NOT EXISTS team_repos (repo TEXT PRIMARY KEY, version ${types.bigint} NOT NULL);
CREATE TABLE IF NOT EXISTS team_entries (
  repo TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, sha256 TEXT NOT NULL,
  PRIMARY KEY (repo, path)
);
CREATE TABLE IF NOT EXISTS team_tokens (token_hash TEXT PRIMARY KEY, repo TEXT NOT NULL, created_at ${types.time} NOT NULL);
`;
}

export function sha256Hex(text: string): string {
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

const TOKEN_PREFIX = 'engram_team_';
/** Characters of the token hash shown as its id. */
export const TOKEN_ID_LENGTH = 12;

/** A new bearer token: 256 random bits, prefixed so a scanner (and a person) can tell what it is. */
export function newToken(): { token: string; hash: string } {
  const token = TOKEN_PREFIX + crypto.randomBytes(32).toString('base64url');
  return { token, hash: sha256Hex(token) };
}

/** A token id prefix as `revoke` takes it: hex, long enough not to hit tokens by accident. */
export function checkTokenIdPrefix(idPrefix: string): string {
  const p = idPrefix.trim().toLowerCase();
  if (!/^[0-9a-f]{6,64}$/.test(p))
    throw new Error(`not a token id (6 or more hex characters, as "token list" shows): ${idPrefix}`);
  return p;
}

/** The changes a PUT makes, given the checksums stored for its paths: what to write, how many are new. */
export function planPut(
  existing: ReadonlyMap<string, string>,
  entries: Record<string, string>,
): { changed: Array<{ path: string; content: string; sha256: string }>; added: number } {
  const changed: Array<{ path: string; content: string; sha256: string }> = [];
  let added = 0;
  for (const [path, content] of Object.entries(entries)) {
    const sha256 = sha256Hex(content);
    const before = existing.get(path);
    if (before === undefined) added++;
    if (before !== sha256) changed.push({ path, content, sha256 });
  }
  return { changed, added };
}
