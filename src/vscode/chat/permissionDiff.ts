// The change an Edit or Write would make, worked out in the host from the tool input (and the file as it
// is now, when the host could read it), so that the permission prompt shows it before anything is
// approved. One hunk, whole lines, a few lines of context, capped in size.
import type { PermissionDiff } from '../../protocol/messages';

type DiffLine = PermissionDiff['lines'][number];

const CONTEXT = 3;
const MAX_LINES = 120;
const MAX_LINE_CHARS = 400;
/** Above this many cells the middle is shown as all removed then all added (still honest, just coarser). */
const MAX_LCS_CELLS = 250_000;

/** The diff for an Edit / MultiEdit / Write input, or undefined for other tools and unusable inputs. */
export function permissionDiff(
  toolName: string,
  input: Record<string, unknown>,
  current: string | undefined,
): PermissionDiff | undefined {
  const path = input.file_path;
  if (typeof path !== 'string') return undefined;
  if (toolName === 'Write' && typeof input.content === 'string') {
    return cap(
      path,
      1,
      current === undefined ? diffLines([], split(input.content)) : withContext(split(current), split(input.content)),
    );
  }
  if (toolName === 'Edit' && typeof input.old_string === 'string' && typeof input.new_string === 'string') {
    return editDiff(path, input.old_string, input.new_string, current);
  }
  if (toolName === 'MultiEdit' && Array.isArray(input.edits)) {
    // Applied in turn to the current text when there is one; otherwise each pair on its own.
    let text = current;
    const lines: DiffLine[] = [];
    for (const edit of input.edits as { old_string?: unknown; new_string?: unknown }[]) {
      if (typeof edit?.old_string !== 'string' || typeof edit.new_string !== 'string') return undefined;
      const one = editDiff(path, edit.old_string, edit.new_string, text);
      lines.push(...one.lines);
      if (text !== undefined && edit.old_string !== '' && text.includes(edit.old_string))
        text = text.replace(edit.old_string, edit.new_string);
    }
    return cap(path, undefined, lines);
  }
  return undefined;
}

function editDiff(path: string, oldString: string, newString: string, current: string | undefined): PermissionDiff {
  const at = current === undefined || oldString === '' ? -1 : current.indexOf(oldString);
  if (current === undefined || at < 0) return cap(path, undefined, diffLines(split(oldString), split(newString)));
  // Widened to whole lines of the file, with a little context either side.
  const lineStart = current.lastIndexOf('\n', at - 1) + 1;
  const endNl = current.indexOf('\n', at + oldString.length);
  const lineEnd = endNl < 0 ? current.length : endNl;
  const before = split(current.slice(0, lineStart)).slice(-CONTEXT);
  const after = endNl < 0 ? [] : split(current.slice(endNl + 1)).slice(0, CONTEXT);
  const oldBlock = current.slice(lineStart, lineEnd);
  const newBlock = current.slice(lineStart, at) + newString + current.slice(at + oldString.length, lineEnd);
  const firstLine = countLines(current.slice(0, lineStart)) + 1 - before.length;
  return cap(path, firstLine, [...before.map(ctx), ...diffLines(split(oldBlock), split(newBlock)), ...after.map(ctx)]);
}

/** A whole-file diff trimmed to the changed stretch plus context. */
function withContext(a: string[], b: string[]): DiffLine[] {
  const lines = diffLines(a, b);
  const first = lines.findIndex((l) => l.kind !== 'ctx');
  if (first < 0) return [];
  let last = lines.length - 1;
  while (lines[last].kind === 'ctx') last--;
  return lines.slice(Math.max(0, first - CONTEXT), last + 1 + CONTEXT);
}

/** Line diff: common ends kept as context, the middle by longest common subsequence. */
function diffLines(a: string[], b: string[]): DiffLine[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head = a.slice(0, start).map(ctx);
  const tail = a.slice(endA).map(ctx);
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if (midA.length * midB.length > MAX_LCS_CELLS) {
    return [...head, ...midA.map(del), ...midB.map(add), ...tail];
  }
  return [...head, ...lcsDiff(midA, midB), ...tail];
}

function lcsDiff(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  // suffix[i][j]: length of the LCS of a[i..] and b[j..].
  const suffix = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      suffix[i][j] = a[i] === b[j] ? suffix[i + 1][j + 1] + 1 : Math.max(suffix[i + 1][j], suffix[i][j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(ctx(a[i]));
      i++;
      j++;
    } else if (j < m && (i === n || suffix[i][j + 1] >= suffix[i + 1][j])) out.push(add(b[j++]));
    else out.push(del(a[i++]));
  }
  // Removals before additions within a run reads better: reorder each changed run.
  return groupRuns(out);
}

function groupRuns(lines: DiffLine[]): DiffLine[] {
  const out: DiffLine[] = [];
  let run: DiffLine[] = [];
  const flush = () => {
    out.push(...run.filter((l) => l.kind === 'del'), ...run.filter((l) => l.kind === 'add'));
    run = [];
  };
  for (const line of lines) {
    if (line.kind === 'ctx') {
      flush();
      out.push(line);
    } else run.push(line);
  }
  flush();
  return out;
}

function cap(path: string, startLine: number | undefined, lines: DiffLine[]): PermissionDiff {
  const kept = lines
    .slice(0, MAX_LINES)
    .map((l) => (l.text.length > MAX_LINE_CHARS ? { ...l, text: `${l.text.slice(0, MAX_LINE_CHARS)}…` } : l));
  return {
    path,
    ...(startLine === undefined ? {} : { startLine }),
    lines: kept,
    omitted: Math.max(0, lines.length - MAX_LINES),
  };
}

/** Lines of a text; a final newline ends the last line rather than starting an empty one. */
function split(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function ctx(text: string): DiffLine {
  return { kind: 'ctx', text };
}
function add(text: string): DiffLine {
  return { kind: 'add', text };
}
function del(text: string): DiffLine {
  return { kind: 'del', text };
}
