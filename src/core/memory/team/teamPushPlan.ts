// Step 2 of a sync, the planning half: which local files go to the server and in which PUTs. A file
// goes when its sha256 differs from the server's, it is not over the size limit, the secret scan finds
// nothing in it, and (for a path the server does not hold yet) the server's entry cap leaves room.
// Batches keep each PUT's JSON body under the batch limit.
import { MEMORY_INDEX_FILE } from '../autoMemory/memoryPaths';
import { TEAM_MAX_BATCH_BYTES, TEAM_MAX_FILE_BYTES } from './teamProtocol';
import { findTeamSecret } from './teamSecrets';
import { sha256Hex } from './teamFiles';
import type { TeamSyncReport } from './teamSyncTypes';

export interface PushPlanInput {
  local: Map<string, string>;
  serverChecksums: Record<string, string>;
  /** How many entries the server holds at most, when known (learned from a 413). */
  maxEntries: number | null;
  /** The largest request body the server accepts, when it said so (a 413 payload_too_large). */
  serverMaxBodyBytes?: number;
  /** Paths the server itself refused (its own secret scan), with what it found. */
  refused?: Map<string, TeamSyncReport['blocked'][number]>;
}

export interface PushPlan {
  batches: Array<Record<string, string>>;
  skipped: TeamSyncReport['skipped'];
  blocked: TeamSyncReport['blocked'];
}

/** `{"entries":{}}`: what every PUT body has around its entries. */
const BODY_OVERHEAD = Buffer.byteLength(JSON.stringify({ entries: {} }));

export async function planPush(input: PushPlanInput): Promise<PushPlan> {
  const plan: PushPlan = { batches: [], skipped: [], blocked: [] };
  const sendable: Array<[string, string]> = [];
  for (const [p, content] of [...input.local].sort(([a], [b]) => indexFirst(a, b))) {
    if (sha256Hex(content) === input.serverChecksums[p]) continue;
    const size = Buffer.byteLength(content, 'utf8');
    if (size > TEAM_MAX_FILE_BYTES) {
      plan.skipped.push({
        path: p,
        reason: 'too_large',
        detail: `${kb(size)} is over the ${kb(TEAM_MAX_FILE_BYTES)} limit for a team memory file`,
      });
      continue;
    }
    if (input.serverMaxBodyBytes !== undefined && BODY_OVERHEAD + entryBytes(p, content) > input.serverMaxBodyBytes) {
      plan.skipped.push({
        path: p,
        reason: 'too_large',
        detail: `the team server accepts at most ${input.serverMaxBodyBytes} bytes per request`,
      });
      continue;
    }
    const refused = input.refused?.get(p);
    const hit = refused ?? (await findTeamSecret(content));
    if (hit) {
      plan.blocked.push({ path: p, rule: hit.rule, kind: hit.kind, line: hit.line });
      continue;
    }
    sendable.push([p, content]);
  }
  plan.batches = batch(
    capNewEntries(sendable, input, plan.skipped),
    Math.min(TEAM_MAX_BATCH_BYTES, input.serverMaxBodyBytes ?? Number.POSITIVE_INFINITY),
  );
  return plan;
}

/** New paths beyond the server's cap are skipped (the index first, then by name, keeps the choice stable). */
function capNewEntries(
  sendable: Array<[string, string]>,
  input: PushPlanInput,
  skipped: PushPlan['skipped'],
): Array<[string, string]> {
  if (input.maxEntries === null) return sendable;
  let room = input.maxEntries - Object.keys(input.serverChecksums).length;
  return sendable.filter(([p]) => {
    if (p in input.serverChecksums) return true;
    if (room > 0) {
      room--;
      return true;
    }
    skipped.push({
      path: p,
      reason: 'server_max_entries',
      detail: `the server keeps at most ${input.maxEntries} entries per repository`,
    });
    return false;
  });
}

/** Greedy, in order; an entry bigger than a batch on its own goes alone (it is under the file limit). */
function batch(entries: Array<[string, string]>, maxBytes: number): Array<Record<string, string>> {
  const out: Array<Record<string, string>> = [];
  let current: Record<string, string> = {};
  let bytes = BODY_OVERHEAD;
  let count = 0;
  for (const [p, content] of entries) {
    const size = entryBytes(p, content);
    if (count > 0 && bytes + 1 + size > maxBytes) {
      out.push(current);
      current = {};
      bytes = BODY_OVERHEAD;
      count = 0;
    }
    current[p] = content;
    bytes += (count > 0 ? 1 : 0) + size; // the comma before every entry but the first
    count++;
  }
  if (count > 0) out.push(current);
  return out;
}

/** `"path":"content"` as JSON bytes. */
function entryBytes(p: string, content: string): number {
  return Buffer.byteLength(JSON.stringify(p)) + 1 + Buffer.byteLength(JSON.stringify(content));
}

function indexFirst(a: string, b: string): number {
  if (a === b) return 0;
  if (a === MEMORY_INDEX_FILE) return -1;
  if (b === MEMORY_INDEX_FILE) return 1;
  return a < b ? -1 : 1;
}

function kb(bytes: number): string {
  return `${Math.round(bytes / 1024)} KB`;
}
