// Where a new MEMORY.md line goes. Only the first 200 lines / 25 KB of the index are loaded into the
// system prompt (loadMemoryIndex cuts the rest, with a warning), so a line appended to an index already
// past its cap is a memory that is never seen, while the chat says it was saved. A new line therefore
// goes at the end while that still loads, and otherwise at the bottom of the part that loads (after the
// last entry line there): it loads, and the line it pushes past the cut is the loaded line nearest the
// cut anyway, which the cap warning then names, as it names everything cut.
import { MEMORY_INDEX_MAX_BYTES, MEMORY_INDEX_MAX_LINES } from '../../thresholds';
import { parseIndexLine } from './memoryIndex';

export interface IndexCaps {
  maxLines?: number;
  maxBytes?: number;
}

/** `lines` (without line ends) with `line` added where it loads. */
export function insertWhereLoaded(lines: readonly string[], line: string, caps: IndexCaps = {}): string[] {
  const at = loadingSlot(lines, line, caps);
  return [...lines.slice(0, at), line, ...lines.slice(at)];
}

/** Whether line `index` of `lines` is inside the part of the index that loads. */
export function loadsAt(lines: readonly string[], index: number, caps: IndexCaps = {}): boolean {
  const { maxLines, maxBytes } = capsOf(caps);
  return index < maxLines && bytesBefore(lines, index + 1) <= maxBytes;
}

/**
 * The position for `line`: the end when it loads there, else the lowest one that loads, after an entry
 * line if one is above it.
 */
function loadingSlot(lines: readonly string[], line: string, caps: IndexCaps): number {
  const { maxLines, maxBytes } = capsOf(caps);
  const size = lineBytes(line);
  if (lines.length < maxLines && bytesBefore(lines, lines.length) + size <= maxBytes) return lines.length;
  let lowest = 0;
  let bytes = 0;
  while (lowest < lines.length && lowest + 1 < maxLines && bytes + lineBytes(lines[lowest]) + size <= maxBytes) {
    bytes += lineBytes(lines[lowest]);
    lowest++;
  }
  // Between two entries, not under a heading or inside prose that the entries above belong to.
  for (let at = lowest; at > 0; at--) if (parseIndexLine(lines[at - 1])) return at;
  return lowest;
}

function capsOf(caps: IndexCaps): { maxLines: number; maxBytes: number } {
  return { maxLines: caps.maxLines ?? MEMORY_INDEX_MAX_LINES, maxBytes: caps.maxBytes ?? MEMORY_INDEX_MAX_BYTES };
}

/** Bytes of the first `count` lines with their line ends, as the loader counts them. */
function bytesBefore(lines: readonly string[], count: number): number {
  let bytes = 0;
  for (let i = 0; i < count && i < lines.length; i++) bytes += lineBytes(lines[i]);
  return bytes;
}

function lineBytes(line: string): number {
  return Buffer.byteLength(line, 'utf8') + 1;
}
