// The notes updater's permission rule: Edit on the one notes file, nothing else. The fork shares the main
// conversation, which may carry prompt-injected text from tool output, so the rule is checked on the path
// the kernel would reach (after `..` and symlinks), not on the string the model typed.
import path from 'node:path';
import type { ToolDecision } from '../../agent/permissions';
import { resolveReal } from '../../fs/pathGuard';
import type { ReadFileState } from '../../tools/readFileState';
import type { Tool } from '../../tools/tool';
import { resolveToolPath } from '../../tools/toolSupport';

export interface NotesGateOptions {
  notesPath: string;
  /** The fork's working directory: relative paths resolve against it, as in the Edit tool. */
  cwd: string;
  /** The fork's read state, where the notes file is marked as read. */
  readFiles: ReadFileState;
}

export function notesOnlyGate(opts: NotesGateOptions): (tool: Tool, input: Record<string, unknown>) => ToolDecision {
  const { notesPath, cwd, readFiles } = opts;
  const spellings = new Set<string>([path.resolve(notesPath)]);
  return (tool, input) => {
    if (tool.name !== 'Edit') {
      return deny(
        `The session notes updater may only use Edit on ${notesPath}; ${tool.name} is not allowed here. ` +
          'Make your changes with Edit on that file.',
      );
    }
    const given = typeof input.file_path === 'string' ? input.file_path : '';
    const abs = resolveToolPath(given, cwd);
    if (!sameFile(abs, notesPath)) {
      return deny(
        `The session notes updater may only edit ${notesPath}; ${given || '(no path)'} is a different file. ` +
          'Nothing was changed.',
      );
    }
    spellings.add(path.resolve(abs));
    shareReadRecord(readFiles, spellings);
    return { allow: true };
  };
}

/** True when both paths reach the same file once `..` and symlinks are resolved. */
export function sameFile(a: string, b: string): boolean {
  const ra = resolveReal(a);
  const rb = resolveReal(b);
  if (ra === null || rb === null) return false; // a symlink loop reaches nothing
  const norm = (p: string): string =>
    process.platform === 'win32' ? path.normalize(p).toLowerCase() : path.normalize(p);
  return norm(ra) === norm(rb);
}

/**
 * Edit keys its "was this read?" record by the path it was given. The notes file is marked as read under
 * its own path; when the model names it other ways too (a symlink, a relative path), every spelling gets
 * the newest record, so the staleness check compares against what the updater itself last wrote.
 */
function shareReadRecord(readFiles: ReadFileState, spellings: ReadonlySet<string>): void {
  if (spellings.size < 2) return;
  let newest: ReturnType<ReadFileState['get']>;
  for (const p of spellings) {
    const r = readFiles.get(p);
    if (r && (!newest || r.touchedAt > newest.touchedAt)) newest = r;
  }
  if (newest) for (const p of spellings) readFiles.set(p, newest);
}

function deny(reason: string): ToolDecision {
  return { allow: false, reason };
}
