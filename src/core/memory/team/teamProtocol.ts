// The team-memory wire format (DESIGN 4), shared by the client (core/memory/team) and the reference
// server (packages/team-server): one definition, checked with zod on both sides, since each reads what the
// other sent over the network.
//
//   GET  /api/team_memory?repo=owner/repo          Authorization: Bearer <token>
//        200 TeamMemoryBody, ETag: "<version>"   (a repository nobody pushed to yet: version 0, no entries)
//        304 when If-None-Match names the current version
//   PUT  /api/team_memory?repo=owner/repo          Authorization, If-Match: "<version>", TeamPutBody
//        200 TeamPutReply, ETag: "<new version>"  entries are upserted; nothing is ever deleted by a PUT
//        412 TeamErrorBody (code precondition_failed, version = the current one): pull and retry
//        413 TeamErrorBody (code too_many_entries with maxEntries, or payload_too_large with maxBytes)
//        428 TeamErrorBody (code precondition_required) when If-Match is missing
//   errors: 400 bad_request, 401 unauthorized (no or unknown token), 403 forbidden (token of another
//   repository), 404 not_found, 422 secret_detected (the server's own scan, naming paths and rules),
//   500 internal. Every error body is TeamErrorBody.
import { z } from 'zod';

export const TEAM_MEMORY_ROUTE = '/api/team_memory';

/** A file over this size is never uploaded (reported as skipped, reason too_large). */
export const TEAM_MAX_FILE_BYTES = 250 * 1024;
/** One PUT carries at most this many bytes of JSON body; more files go in further batches. */
export const TEAM_MAX_BATCH_BYTES = 200 * 1024;
/** On 412 the client pulls and retries at most this many times. */
export const TEAM_MAX_CONFLICT_RETRIES = 2;

/** `owner/repo`: the repository a team memory belongs to. */
export const RepoSlug = z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'repo must be owner/repo');

/** A path inside the team folder: relative, forward slashes, Markdown, no hidden or `..` segments. */
export const EntryPath = z
  .string()
  .min(1)
  .max(200)
  .refine(
    (p) =>
      !p.startsWith('/') &&
      !p.includes('\\') &&
      p.toLowerCase().endsWith('.md') &&
      p.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && !s.startsWith('.')) &&
      // eslint-disable-next-line no-control-regex
      !/[\u0000-\u001f\u007f]/.test(p),
    'entry paths are relative Markdown paths without hidden or ".." segments',
  );

/** sha256 of the UTF-8 content, lowercase hex. */
export const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

export const TeamMemoryBody = z.object({
  repo: RepoSlug,
  version: z.number().int().nonnegative(),
  entries: z.record(EntryPath, z.string()),
  checksums: z.record(EntryPath, Sha256Hex),
});
export type TeamMemoryBody = z.infer<typeof TeamMemoryBody>;

export const TeamPutBody = z.object({ entries: z.record(EntryPath, z.string()) });
export type TeamPutBody = z.infer<typeof TeamPutBody>;

export const TeamPutReply = z.object({
  repo: RepoSlug,
  version: z.number().int().nonnegative(),
  /** Every entry's checksum after the PUT, not only the ones sent. */
  checksums: z.record(EntryPath, Sha256Hex),
});
export type TeamPutReply = z.infer<typeof TeamPutReply>;

export const TeamErrorCode = z.enum([
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'precondition_failed',
  'precondition_required',
  'too_many_entries',
  'payload_too_large',
  'secret_detected',
  'internal',
]);
export type TeamErrorCode = z.infer<typeof TeamErrorCode>;

export const TeamErrorBody = z
  .object({
    error: TeamErrorCode,
    message: z.string(),
    /** 412: the repository's current version. */
    version: z.number().int().nonnegative().optional(),
    /** 413 too_many_entries: how many entries a repository may hold on this server. */
    maxEntries: z.number().int().positive().optional(),
    /** 413 payload_too_large: the largest body this server accepts. */
    maxBytes: z.number().int().positive().optional(),
    /** 422: what the server's own scan found. */
    findings: z.array(z.object({ path: z.string(), rule: z.string(), line: z.number().int().positive() })).optional(),
  })
  .loose();
export type TeamErrorBody = z.infer<typeof TeamErrorBody>;

/** `"12"` for version 12: the ETag is the version, quoted as RFC 9110 asks. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/** The version an ETag / If-Match value names (weak `W/` prefix allowed), or null. */
export function versionOfEtag(etag: string | null | undefined): number | null {
  const m = /^(?:W\/)?"(\d+)"$/.exec((etag ?? '').trim());
  return m ? Number(m[1]) : null;
}
