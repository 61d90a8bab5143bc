// What the background extraction agent is told about the memory folder's health (issue 32): entries
// whose references are gone from the workspace and pairs that repeat each other, so it edits those
// entries instead of adding a new file beside them. One full check (memoryHealth.ts) per extraction run,
// which runs in the background every few turns; the lists are capped to keep the prompt short.
import type { ExtractionHealth } from '../autoMemory/memoryPrompts';
import { type HealthScope, memoryHealth } from './memoryHealth';

/** At most this many stale entries and duplicate pairs are listed. */
const MAX_LISTED = 15;

/** The stale entries and duplicate pairs of `scope`, checked against the workspace at `cwd`. */
export async function extractionHealth(scope: HealthScope, cwd: string): Promise<ExtractionHealth> {
  const all = await memoryHealth(scope, cwd);
  const stale = all
    .filter((h) => h.stale.length > 0)
    .slice(0, MAX_LISTED)
    .map((h) => ({ file: h.file, refs: h.stale.map((s) => s.ref) }));
  const duplicates: Array<[string, string]> = [];
  for (const h of all) for (const other of h.duplicates) if (h.file < other) duplicates.push([h.file, other]);
  return { stale, duplicates: duplicates.slice(0, MAX_LISTED) };
}
