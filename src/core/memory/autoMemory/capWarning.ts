// Warns before MEMORY.md reaches its cap, not after: at 80% of either limit (200 lines / 25 KB) the
// inspector shows a banner and the chat says it once, each offering to prune or merge. Pruning starts
// with the entries used least (recalled or read; usageCounts.ts), and this module picks them: the
// order, and how many it takes to get back under the warning mark.
import path from 'node:path';
import { isErrno } from '../../fs/errno';
import { MEMORY_INDEX_CAP_WARN_RATIO, MEMORY_INDEX_MAX_BYTES, MEMORY_INDEX_MAX_LINES } from '../../thresholds';
import { readMemoryText } from './memoryFiles';
import { parseIndexLine } from './memoryIndex';
import { MEMORY_INDEX_FILE, normaliseName } from './memoryPaths';
import { readUsage, usesOf, type EntryUsage } from './usageCounts';

export type CapLevel = 'ok' | 'near' | 'over';

export interface CapStatus {
  lines: number;
  maxLines: number;
  bytes: number;
  maxBytes: number;
  /** The larger share of the two caps, 0..1 and beyond. */
  ratio: number;
  /** near: at or past the warning mark; over: past a cap (lines are being cut). */
  level: CapLevel;
}

export interface CapLimits {
  maxLines?: number;
  maxBytes?: number;
  warnRatio?: number;
}

/** Where an index of `lines` lines and `bytes` bytes stands against its caps. */
export function capStatus(totals: { lines: number; bytes: number }, limits: CapLimits = {}): CapStatus {
  const maxLines = limits.maxLines ?? MEMORY_INDEX_MAX_LINES;
  const maxBytes = limits.maxBytes ?? MEMORY_INDEX_MAX_BYTES;
  const warn = limits.warnRatio ?? MEMORY_INDEX_CAP_WARN_RATIO;
  const ratio = Math.max(totals.lines / maxLines, totals.bytes / maxBytes);
  const level: CapLevel = totals.lines > maxLines || totals.bytes > maxBytes ? 'over' : ratio >= warn ? 'near' : 'ok';
  return { lines: totals.lines, maxLines, bytes: totals.bytes, maxBytes, ratio, level };
}

/**
 * `21.3` for 21,300 bytes, `25` for 25,000: the figures the banner and the chat show (1 KB = 1,000
 * bytes, as the cap).
 */
export function kbText(bytes: number): string {
  const kb = bytes / 1000;
  return Number.isInteger(kb) ? String(kb) : kb.toFixed(1);
}

/** The status of a memory folder's MEMORY.md as it is on disk now (absent: 0 lines). */
export async function readCapStatus(dir: string, limits: CapLimits = {}): Promise<CapStatus> {
  const text = await readIndexText(dir);
  return capStatus(measure(text), limits);
}

export interface PruneCandidate {
  /** Relative to the memory folder. */
  file: string;
  title: string;
  /** The index lines that link to it (pruning removes all of them), and their bytes with line ends. */
  lines: number;
  bytes: number;
  /** 1-based line of its first index line. */
  line: number;
  uses: number;
  lastUsed?: string;
  /** Among the fewest (in this order) whose pruning brings the index back under the warning mark. */
  suggested: boolean;
}

/**
 * The index's entries, least used first: fewest uses, then used longest ago (never used first), then
 * the later line (the cut takes those first anyway). The first ones whose pruning gets both figures
 * under the warning mark are `suggested`.
 */
export async function pruneCandidates(
  dir: string,
  limits: CapLimits = {},
  usage?: Record<string, EntryUsage>,
): Promise<PruneCandidate[]> {
  const text = await readIndexText(dir);
  const counts = usage ?? (await readUsage(dir));
  return orderCandidates(text, counts, limits);
}

/** pruneCandidates on an index text and counts already read (unit-tested as is). */
export function orderCandidates(
  text: string,
  usage: Record<string, EntryUsage>,
  limits: CapLimits = {},
): PruneCandidate[] {
  const byFile = new Map<string, Omit<PruneCandidate, 'suggested'>>();
  splitLines(text).forEach((raw, i) => {
    const entry = parseIndexLine(raw.replace(/\r?\n$/, ''));
    if (!entry) return;
    const file = normaliseName(entry.file);
    const size = Buffer.byteLength(raw, 'utf8');
    const seen = byFile.get(file);
    if (seen) {
      seen.lines++;
      seen.bytes += size;
      return;
    }
    const u = usage[file];
    byFile.set(file, {
      file,
      title: entry.title,
      lines: 1,
      bytes: size,
      line: i + 1,
      uses: usesOf(u),
      ...(u ? { lastUsed: u.lastUsed } : {}),
    });
  });
  const ordered = [...byFile.values()].sort(
    (a, b) => a.uses - b.uses || (a.lastUsed ?? '').localeCompare(b.lastUsed ?? '') || b.line - a.line,
  );
  let { lines, bytes } = measure(text);
  const under = () => capStatus({ lines, bytes }, limits).level === 'ok';
  return ordered.map((c) => {
    const suggested = !under();
    if (suggested) {
      lines -= c.lines;
      bytes -= c.bytes;
    }
    return { ...c, suggested };
  });
}

function measure(text: string): { lines: number; bytes: number } {
  const lines = text === '' ? 0 : text.replace(/\r?\n$/, '').split(/\r?\n/).length;
  return { lines, bytes: Buffer.byteLength(text, 'utf8') };
}

function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

async function readIndexText(dir: string): Promise<string> {
  try {
    return (await readMemoryText(dir, path.join(dir, MEMORY_INDEX_FILE))).replace(/^\ufeff/, '');
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return '';
    throw e;
  }
}
