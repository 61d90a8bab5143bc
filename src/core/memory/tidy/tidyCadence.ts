// The opt-in background tidy (`engram.memory.tidyCadence: "daily"`, default "off"): each new session is
// counted; at most once a day, after five new sessions since the last one, a host prepares a tidy
// proposal in the background and keeps it here for review (a notice says one is waiting). It is never
// applied without the person: applying goes through tidyApply.ts like any reviewed tidy. State lives in
// `memory/.tidy/cadence.json` and the waiting proposal in `memory/.tidy/pending.json`.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { readMemoryText, writeMemoryFile } from '../autoMemory/memoryFiles';
import { TIDY_DIR_NAME } from './tidyApply';
import type { TidyProposal } from './tidyTypes';

export type TidyCadence = 'off' | 'daily';
/** New sessions needed before a background tidy is prepared. */
export const TIDY_SESSIONS = 5;
const DAY_MS = 24 * 60 * 60_000;

interface CadenceState {
  /** Sessions started since the last prepared tidy. */
  sessions: number;
  lastPreparedAt?: string;
}

/**
 * Counts a new session; true when a background tidy is due now (cadence "daily", five sessions since the
 * last, and a day since it was prepared). The caller then prepares it and calls keepPendingTidy.
 */
export async function noteSessionForTidy(dir: string, cadence: TidyCadence, now = new Date()): Promise<boolean> {
  if (cadence !== 'daily') return false;
  const state = await readState(dir);
  state.sessions += 1;
  await writeState(dir, state);
  const last = state.lastPreparedAt ? Date.parse(state.lastPreparedAt) : 0;
  return state.sessions >= TIDY_SESSIONS && now.getTime() - last >= DAY_MS;
}

/** Keeps a prepared proposal for review (replacing an older one) and starts counting sessions again. */
export async function keepPendingTidy(dir: string, proposal: TidyProposal, now = new Date()): Promise<void> {
  await fsp.mkdir(path.join(dir, TIDY_DIR_NAME), { recursive: true });
  await writeMemoryFile(dir, pendingPath(dir), `${JSON.stringify(proposal, null, 2)}\n`);
  await writeState(dir, { sessions: 0, lastPreparedAt: now.toISOString() });
}

/** The proposal waiting for review, if any (one without changes is not kept as waiting). */
export async function pendingTidy(dir: string): Promise<TidyProposal | undefined> {
  try {
    const p = JSON.parse(await readMemoryText(dir, pendingPath(dir))) as TidyProposal;
    return Array.isArray(p.changes) && p.changes.length > 0 ? p : undefined;
  } catch {
    return undefined;
  }
}

/** Drops the waiting proposal (reviewed, applied or dismissed). */
export async function clearPendingTidy(dir: string): Promise<void> {
  await fsp.rm(pendingPath(dir), { force: true });
}

function pendingPath(dir: string): string {
  return path.join(dir, TIDY_DIR_NAME, 'pending.json');
}

async function readState(dir: string): Promise<CadenceState> {
  try {
    const s = JSON.parse(await readMemoryText(dir, path.join(dir, TIDY_DIR_NAME, 'cadence.json'))) as CadenceState;
    return { sessions: Number.isFinite(s.sessions) ? s.sessions : 0, lastPreparedAt: s.lastPreparedAt };
  } catch {
    return { sessions: 0 };
  }
}

async function writeState(dir: string, state: CadenceState): Promise<void> {
  await fsp.mkdir(path.join(dir, TIDY_DIR_NAME), { recursive: true });
  await writeMemoryFile(dir, path.join(dir, TIDY_DIR_NAME, 'cadence.json'), `${JSON.stringify(state)}\n`);
}
