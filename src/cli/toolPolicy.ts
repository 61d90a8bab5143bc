// Which tools a headless run may use. Nobody is there to answer a permission prompt, so the rule is
// fixed up front: with --allowed-tools, exactly the listed tools run; without it, only what cannot
// change anything runs (read-only tools, and Bash commands the strict read-only classifier accepts).
import type { Tool, ToolGate } from '../core/session/hostSession';
import { isReadOnlyCommand } from '../core/tools/bashReadOnly';

export function headlessToolGate(allowed: readonly string[] | undefined): ToolGate {
  if (allowed !== undefined) {
    const names = new Set(allowed.map((n) => n.toLowerCase()));
    return async (tool) =>
      names.has(tool.name.toLowerCase())
        ? { allow: true }
        : { allow: false, reason: `${tool.name} is not allowed in this headless run (allowed: ${allowed.join(', ') || 'none'}). Do without it, or say what you would need.` };
  }
  return async (tool, input) =>
    readOnlyCall(tool, input)
      ? { allow: true }
      : { allow: false, reason: `${tool.name} needs permission, and nobody can give it in this headless run (engram -p without --allowed-tools runs read-only tools only).` };
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
