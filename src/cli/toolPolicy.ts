// Which tools a headless run may use. Nobody is there to answer a permission prompt, so the rule is
// fixed up front: with --allowed-tools, exactly the listed tools run; without it, only what cannot
// change anything runs (read-only tools, and Bash commands the strict read-only classifier accepts),
// plus Write/Edit of Markdown files in the project's private memory folder, so `engram -p "remember
// ..."` saves what it was asked to, as the editor does without a prompt (the folder holds nothing but
// memory; the shared team folder is not included). With a list, memory writes obey it too (the session
// lets them through only when this gate does), and Write/Edit land only in the workspace, the --add-dir
// folders and, when memory is on, the memory folder, judged where the path really leads (symlinks and
// `..` resolved), as Claude Code does.
import { confineTo, isReadOnlyCommand, resolveToolPath } from '../core/host/toolPolicy';
import { memoryHome, memoryWriteTarget } from '../core/host/memory';
import type { Tool, ToolGate } from '../core/host/sessions';

/** The tools that write the file named by their `file_path`. */
const FILE_WRITERS = new Set(['write', 'edit']);

export interface WriteScope {
  /** Tool paths resolve against it; it is writable. */
  cwd: string;
  /** --add-dir folders, absolute. */
  addDirs: readonly string[];
  /** The project's memory folder, when memory is on. */
  memoryDir?: string;
}

export function headlessToolGate(allowed: readonly string[] | undefined, scope?: WriteScope): ToolGate {
  if (allowed !== undefined) {
    const names = new Set(allowed.map((n) => n.toLowerCase()));
    const outside = scope ? writeOutsideScope(scope) : () => null;
    return async (tool, input) => {
      if (!names.has(tool.name.toLowerCase())) {
        return {
          allow: false,
          reason:
            `${tool.name} is not allowed in this headless run (allowed: ${allowed.join(', ') || 'none'}). ` +
            'Do without it, or say what you would need.',
        };
      }
      const denied = FILE_WRITERS.has(tool.name.toLowerCase()) ? outside(input) : null;
      return denied ? { allow: false, reason: denied } : { allow: true };
    };
  }
  return async (tool, input) =>
    readOnlyCall(tool, input) || privateMemoryWrite(tool, input, scope)
      ? { allow: true }
      : {
          allow: false,
          reason:
            `${tool.name} needs permission, and nobody can give it in this headless run ` +
            '(engram -p without --allowed-tools runs read-only tools and memory writes only).',
        };
}

/** A Write/Edit of a Markdown file in the private memory folder (not the team folder), links resolved. */
function privateMemoryWrite(tool: Tool, input: Record<string, unknown>, scope: WriteScope | undefined): boolean {
  const dir = scope?.memoryDir;
  if (
    !scope ||
    dir === undefined ||
    !FILE_WRITERS.has(tool.name.toLowerCase()) ||
    typeof input.file_path !== 'string' ||
    input.file_path === ''
  )
    return false;
  const target = memoryWriteTarget(dir, resolveToolPath(input.file_path, scope.cwd));
  return 'name' in target && !memoryHome(dir, target.name).team;
}

/** Why a Write/Edit input leads outside the writable folders, or null. */
function writeOutsideScope(scope: WriteScope): (input: Record<string, unknown>) => string | null {
  const guards = [scope.cwd, ...scope.addDirs].map((dir) => confineTo(dir));
  return (input) => {
    // A missing or odd path is the tool's to report.
    if (typeof input.file_path !== 'string' || input.file_path === '') return null;
    const abs = resolveToolPath(input.file_path, scope.cwd);
    if (guards.some((guard) => guard(abs, 'write') === null)) return null;
    if (scope.memoryDir !== undefined && 'name' in memoryWriteTarget(scope.memoryDir, abs)) return null;
    return (
      `${abs} is outside the folders this headless run may write (${[scope.cwd, ...scope.addDirs].join(', ')}). ` +
      'Writing there needs --add-dir with that folder.'
    );
  };
}

function readOnlyCall(tool: Tool, input: Record<string, unknown>): boolean {
  if (tool.readOnly) return true;
  return tool.name === 'Bash' && typeof input.command === 'string' && isReadOnlyCommand(input.command).ok;
}

/** Names in the list that are not tools, to fail early on a typo instead of silently denying. */
export function unknownToolNames(allowed: readonly string[], tools: readonly Tool[]): string[] {
  const known = new Set(tools.map((t) => t.name.toLowerCase()));
  return allowed.filter((n) => !known.has(n.toLowerCase()));
}
