// Which tool results a trim should cut first and which it should leave whole (issue #19). A trim
// rewrites the prompt cache from its first cut anyway, so what matters is what the model keeps:
// - superseded: a Read of a file that was read again since (same range, a full new copy) or edited or
//   written since. The old copy is stale or said again later; cutting it loses nothing.
// - kept whole: the newest copy of each file read, and every copy a repeat note stands for
//   (repeatedResults.ts), until the file changes. A later Read of the same unchanged file can then go
//   as a note instead of a full copy beside a stale, cut one.
// Pure: the same messages give the same plan, so a replayed trim cuts what the live one cut.
import { isChangeNote, isRepeatNote, RepeatIndex, repeatedCallOf } from '../conversation/repeatedResults';
import type { ApiMessage, ToolUseBlock } from '../conversation/types';

export interface TrimPlan {
  /** Results never trimmed: the newest copies and the copies notes stand for. */
  keepWhole: Set<string>;
  /** Of those, the copies notes stand for (a stronger tier keeps only these whole). */
  noteOrigins: Set<string>;
  /** Results trimmed even among the newest ones microcompact would keep. */
  trimFirst: Set<string>;
}

const READ_TOOLS = new Set(['Read']);
const WRITE_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);

function filePath(call: ToolUseBlock): string | undefined {
  const p =
    (call.input as { file_path?: unknown; notebook_path?: unknown }).file_path ??
    (call.input as { notebook_path?: unknown }).notebook_path;
  return typeof p === 'string' && p !== '' ? p : undefined;
}

/** A Read's range: two reads of one range return the same lines when the file did not change. */
function rangeKey(call: ToolUseBlock, file: string): string {
  const input = call.input as { offset?: unknown; limit?: unknown };
  return `${file}\u0000${String(input.offset ?? '')}\u0000${String(input.limit ?? '')}`;
}

export function trimPlan(messages: readonly ApiMessage[]): TrimPlan {
  const calls = new Map<string, ToolUseBlock>();
  const noteOrigins = RepeatIndex.originsIn(messages);
  const keepWhole = new Set(noteOrigins);
  const trimFirst = new Set<string>();
  /** The newest full copy of each file range, and the ranges read of each file. */
  const newestCopy = new Map<string, string>();
  const rangesOf = new Map<string, Set<string>>();
  for (const m of messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type === 'tool_use') calls.set(b.id, b);
      if (b.type !== 'tool_result' || b.is_error) continue;
      const call = calls.get(b.tool_use_id);
      const file = call ? filePath(call) : undefined;
      if (!call || !file) continue;
      if (READ_TOOLS.has(call.name)) {
        const key = rangeKey(call, file);
        // A repeat note stands for an older copy, which stays the newest one. A change note makes the
        // copy it names current again: that copy and the diff are the file as it is now.
        if (isChangeNote(b)) {
          const base = repeatedCallOf(b.content as string);
          if (base !== undefined) {
            trimFirst.delete(base);
            newestCopy.set(key, base);
            addRange(rangesOf, file, key);
          }
          continue;
        }
        if (isRepeatNote(b)) continue;
        const before = newestCopy.get(key);
        if (before !== undefined) trimFirst.add(before);
        newestCopy.set(key, b.tool_use_id);
        addRange(rangesOf, file, key);
      } else if (WRITE_TOOLS.has(call.name)) {
        // Every copy read before the change is stale.
        for (const key of rangesOf.get(file) ?? []) {
          const copy = newestCopy.get(key);
          if (copy !== undefined) trimFirst.add(copy);
          newestCopy.delete(key);
        }
        rangesOf.delete(file);
      }
    }
  }
  for (const id of newestCopy.values()) keepWhole.add(id);
  // A copy a note stands for stays whole until its file changes; then it is stale like any other copy,
  // and the note already says what to do once its copy is cut: run the tool again.
  for (const id of trimFirst) {
    keepWhole.delete(id);
    noteOrigins.delete(id);
  }
  return { keepWhole, noteOrigins, trimFirst };
}

function addRange(rangesOf: Map<string, Set<string>>, file: string, key: string): void {
  let ranges = rangesOf.get(file);
  if (!ranges) rangesOf.set(file, (ranges = new Set()));
  ranges.add(key);
}
