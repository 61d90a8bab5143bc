// One team-memory sync (DESIGN 4, issue 11): pull (server wins, local edits kept), push what differs in
// batches with If-Match on the last ETag, pull again on 412 (at most TEAM_MAX_CONFLICT_RETRIES times),
// learn the entry cap from a 413. If a PUT was applied but its reply lost (the server died in between),
// the retry meets a 412, the pull shows the checksums already equal, and nothing is sent twice. The
// report is the state file's lastSync; nothing here throws for a network or server failure.
import { addKnownSecret } from '../../security/secretScan';
import { TeamServerClient, type TeamReply } from './teamClient';
import { listTeamFiles, sha256Hex } from './teamFiles';
import { applyPull } from './teamPull';
import { etagOf, TEAM_MAX_CONFLICT_RETRIES, type TeamMemoryBody } from './teamProtocol';
import { planPush } from './teamPushPlan';
import { readTeamSyncState, writeTeamSyncState } from './syncStateFile';
import type { TeamFileStatus, TeamSyncReport, TeamSyncState } from './teamSyncTypes';

export interface TeamSyncOptions {
  teamDir: string;
  repo: string;
  serverUrl: string;
  token: string;
  signal?: AbortSignal;
  onProgress?(p: { phase: 'pull' | 'push'; done: number; total: number }): void;
  now?: () => Date;
  /** Backoff before each retry of a request that met a network error or a 5xx (default TEAM_RETRY_DELAYS_MS). */
  retryDelaysMs?: readonly number[];
}

/** A sync that cannot go on, with the reason in words for the report. */
class SyncFailure extends Error {}

/** Replans of one push (after a 413 or the server's own secret scan) before giving up: each learns something. */
const MAX_REPLANS = 8;

interface Working {
  etag: string | null;
  serverChecksums: Record<string, string>;
  maxEntries: number | null;
  serverMaxBodyBytes?: number;
  refused: Map<string, TeamSyncReport['blocked'][number]>;
  pulled: Map<string, TeamSyncReport['pulled'][number]>;
  /** sha256 of every file a PUT of this sync carried whose reply did not come back (yet). */
  unanswered: Map<string, string>;
}

export async function syncTeamMemory(opts: TeamSyncOptions): Promise<TeamSyncReport> {
  const now = opts.now ?? (() => new Date());
  const startedAt = now();
  const report: TeamSyncReport = {
    repo: opts.repo,
    server: opts.serverUrl,
    at: startedAt.toISOString(),
    ok: false,
    pulled: [],
    pushed: [],
    skipped: [],
    blocked: [],
    retries: 0,
  };
  const prev = await readTeamSyncState(opts.teamDir);
  const same = prev !== null && prev.repo === opts.repo && prev.server === opts.serverUrl;
  const work: Working = {
    etag: same ? prev.etag : null,
    serverChecksums: same ? { ...prev.serverChecksums } : {},
    maxEntries: same ? prev.serverMaxEntries : null,
    refused: new Map(),
    pulled: new Map(),
    unanswered: new Map(),
  };
  // The token is a credential like the API key: a memory quoting it is blocked, not uploaded.
  addKnownSecret(opts.token);
  const client = new TeamServerClient({
    serverUrl: opts.serverUrl,
    repo: opts.repo,
    token: opts.token,
    signal: opts.signal,
    retryDelaysMs: opts.retryDelaysMs,
  });
  try {
    await run(opts, client, work, report, startedAt);
    report.ok = true;
  } catch (err) {
    report.error =
      err instanceof SyncFailure
        ? err.message
        : `team memory sync failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  report.pulled = [...work.pulled.values()];
  report.at = now().toISOString();
  try {
    await writeTeamSyncState(opts.teamDir, await stateAfter(opts, work, report));
  } catch (err) {
    report.ok = false;
    const reason = err instanceof Error ? err.message : String(err);
    report.error = `${report.error ? `${report.error}; ` : ''}the sync state could not be saved: ${reason}`;
  }
  return report;
}

async function run(
  opts: TeamSyncOptions,
  client: TeamServerClient,
  work: Working,
  report: TeamSyncReport,
  startedAt: Date,
): Promise<void> {
  for (;;) {
    const pulled = expectOk(await client.pull(), opts, 'pull');
    if (pulled.body.repo !== opts.repo)
      throw new SyncFailure(`the team server answered for ${pulled.body.repo}, not ${opts.repo}`);
    await pullInto(opts, work, pulled.body, startedAt);
    work.etag = etagOf(pulled.version);
    report.version = pulled.version;
    creditLostReplies(work, report);
    if (await push(opts, client, work, report)) return;
    report.retries++;
    if (report.retries > TEAM_MAX_CONFLICT_RETRIES) {
      throw new SyncFailure(
        'the team memory on the server kept changing while this sync pushed ' +
          `(412 Precondition Failed after ${TEAM_MAX_CONFLICT_RETRIES} retries); sync again in a moment`,
      );
    }
  }
}

async function pullInto(opts: TeamSyncOptions, work: Working, body: TeamMemoryBody, at: Date): Promise<void> {
  const result = await applyPull({
    teamDir: opts.teamDir,
    body,
    previous: work.serverChecksums,
    at,
    onProgress: (done, total) => opts.onProgress?.({ phase: 'pull', done, total }),
  });
  work.serverChecksums = result.serverChecksums;
  // A path pulled twice (after a 412) keeps its conflict: the kept copy must stay visible.
  for (const p of result.pulled) if (work.pulled.get(p.path)?.reason !== 'conflict') work.pulled.set(p.path, p);
}

/**
 * A PUT whose reply was lost may have been applied: when the server now holds exactly what it carried,
 * those files were pushed by this sync (the retry's 412 and this pull are how we learn it).
 */
function creditLostReplies(work: Working, report: TeamSyncReport): void {
  for (const [p, sha] of work.unanswered) {
    if (work.serverChecksums[p] === sha && !report.pushed.some((x) => x.path === p)) report.pushed.push({ path: p });
  }
  work.unanswered.clear();
}

/** Sends what differs; true when done, false on a 412 (the caller pulls and comes back). */
async function push(
  opts: TeamSyncOptions,
  client: TeamServerClient,
  work: Working,
  report: TeamSyncReport,
): Promise<boolean> {
  for (let replans = 0; ; replans++) {
    if (replans > MAX_REPLANS)
      throw new SyncFailure('the team server kept refusing the push (413 or 422 again after every adjustment)');
    const plan = await planPush({ local: await listTeamFiles(opts.teamDir), ...work });
    report.skipped = plan.skipped;
    report.blocked = plan.blocked;
    const total = plan.batches.reduce((n, b) => n + Object.keys(b).length, 0);
    let done = 0;
    opts.onProgress?.({ phase: 'push', done, total });
    let replan = false;
    for (const entries of plan.batches) {
      for (const [p, content] of Object.entries(entries)) work.unanswered.set(p, sha256Hex(content));
      const reply = await client.put(entries, work.etag);
      if (reply.kind === 'ok') {
        for (const p of Object.keys(entries)) work.unanswered.delete(p);
        work.etag = etagOf(reply.version);
        work.serverChecksums = { ...reply.body.checksums };
        report.version = reply.version;
        for (const p of Object.keys(entries)) report.pushed.push({ path: p });
        done += Object.keys(entries).length;
        opts.onProgress?.({ phase: 'push', done, total });
        continue;
      }
      if (reply.kind === 'status' && reply.status === 412) return false;
      if (reply.kind === 'status' && reply.status === 413) learnLimit(work, reply.body);
      else if (reply.kind === 'status' && reply.status === 422 && reply.body?.findings?.length)
        learnRefusals(work, reply.body.findings, entries);
      else expectOk(reply, opts, 'push');
      replan = true;
      break;
    }
    if (!replan) return true;
  }
}

function learnLimit(work: Working, body: Extract<TeamReply<unknown>, { kind: 'status' }>['body']): void {
  if (body?.error === 'too_many_entries' && body.maxEntries !== undefined) {
    if (work.maxEntries === body.maxEntries)
      throw new SyncFailure(
        `the team server refused the push as over its ${body.maxEntries} entries although this sync kept to that`,
      );
    work.maxEntries = body.maxEntries;
    return;
  }
  const maxBytes = body?.maxBytes;
  if (body?.error !== 'payload_too_large' || maxBytes === undefined || maxBytes === work.serverMaxBodyBytes) {
    throw new SyncFailure(`the team server refused the push as too large (413): ${body?.message ?? 'no reason given'}`);
  }
  work.serverMaxBodyBytes = maxBytes; // the next plan sends smaller batches and skips what cannot fit alone
}

function learnRefusals(
  work: Working,
  findings: Array<{ path: string; rule: string; line: number }>,
  entries: Record<string, string>,
): void {
  const fresh = findings.filter((f) => f.path in entries && !work.refused.has(f.path));
  if (fresh.length === 0)
    throw new SyncFailure('the team server refused the push for a secret this sync could not place');
  for (const f of fresh)
    work.refused.set(f.path, { path: f.path, rule: f.rule, kind: 'found by the server', line: f.line });
}

/** The body of a 2xx, else a SyncFailure that says what to do about it. */
function expectOk<T>(reply: TeamReply<T>, opts: TeamSyncOptions, step: 'pull' | 'push'): { body: T; version: number } {
  if (reply.kind === 'ok') return reply;
  if (reply.kind === 'failed') throw new SyncFailure(`team memory ${step} failed: ${reply.message}`);
  const tokenHelp = 'set the token in ENGRAM_TEAM_TOKEN or with the command "Engram: Set Team Memory Token"';
  switch (reply.status) {
    case 401:
      throw new SyncFailure(`the team server did not accept the token (401: ${reply.message}); ${tokenHelp}`);
    case 403:
      throw new SyncFailure(
        `the token is not allowed for ${opts.repo} on the team server (403: ${reply.message}); ` +
          `${tokenHelp} with a token issued for this repository`,
      );
    case 404:
      throw new SyncFailure(`${opts.serverUrl} has no team-memory API (404); check the server URL`);
    default:
      throw new SyncFailure(`team memory ${step} failed: the server answered ${reply.status} (${reply.message})`);
  }
}

async function stateAfter(opts: TeamSyncOptions, work: Working, report: TeamSyncReport): Promise<TeamSyncState> {
  const files: Record<string, TeamFileStatus> = {};
  const local = await listTeamFiles(opts.teamDir).catch(() => new Map<string, string>());
  for (const [p, content] of local) {
    files[p] = sha256Hex(content) === work.serverChecksums[p] ? { state: 'synced' } : { state: 'local-change' };
  }
  for (const b of report.blocked)
    if (b.path in files) files[b.path] = { state: 'blocked', rule: b.rule, kind: b.kind, line: b.line };
  for (const s of report.skipped)
    if (s.path in files) files[s.path] = { state: 'skipped', reason: s.reason, detail: s.detail };
  for (const p of report.pulled)
    if (p.keptAt && p.path in files) files[p.path] = { state: 'conflict', keptAt: p.keptAt };
  return {
    repo: opts.repo,
    server: opts.serverUrl,
    etag: work.etag,
    serverChecksums: work.serverChecksums,
    serverMaxEntries: work.maxEntries,
    files,
    lastSync: report,
  };
}
