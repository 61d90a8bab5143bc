// Who may touch the memory folder, and how. The background extractor works unattended, so its rule is
// fixed and narrow (DESIGN 4): Read, Grep and Glob anywhere; Bash only for commands the read-only
// classifier accepts; Write and Edit only on topic files or the index inside the memory folder, judged
// where the path really leads (symlinks and `..` resolved); everything else is denied with a reason the
// model can read. The main agent keeps its usual rule, except that saving memory needs no prompt: the
// user asked for it, and the folder holds nothing but memory.
import type { ToolDecision, ToolGate } from '../../agent/permissions';
import { isReadOnlyCommand } from '../../tools/bashReadOnly';
import type { Tool } from '../../tools/tool';
import { resolveToolPath } from '../../tools/toolSupport';
import { memoryWriteTarget } from './memoryPaths';

const READ_TOOLS = new Set(['Read', 'Grep', 'Glob']);
const WRITE_TOOLS = new Set(['Write', 'Edit']);

/** The memory file a Write/Edit call targets, or why it is not one; undefined for other tools. */
export function memoryWriteOf(memoryDir: string, cwd: string, toolName: string, input: Record<string, unknown>): { name: string } | { problem: string } | undefined {
  if (!WRITE_TOOLS.has(toolName)) return undefined;
  const filePath = input.file_path;
  if (typeof filePath !== 'string' || filePath === '') return { problem: 'no file_path given' };
  return memoryWriteTarget(memoryDir, resolveToolPath(filePath, cwd));
}

/** The background extractor's rule, for fork({canUseTool}). */
export function extractionCanUseTool(memoryDir: string, cwd: string): (tool: Tool, input: Record<string, unknown>) => ToolDecision {
  return (tool, input) => {
    if (READ_TOOLS.has(tool.name)) return { allow: true };
    if (tool.name === 'Bash') {
      const command = typeof input.command === 'string' ? input.command : '';
      const verdict = isReadOnlyCommand(command);
      return verdict.ok
        ? { allow: true }
        : { allow: false, reason: `Denied: the memory agent may run only read-only commands (ls, find, grep, cat, stat, wc, head, tail); ${verdict.reason}.` };
    }
    const target = memoryWriteOf(memoryDir, cwd, tool.name, input);
    if (target) {
      return 'name' in target
        ? { allow: true }
        : { allow: false, reason: `Denied: the memory agent may write only Markdown files inside ${memoryDir}; ${target.problem}.` };
    }
    return { allow: false, reason: `Denied: the memory agent may use only Read, Grep, Glob, read-only Bash, and Write/Edit inside ${memoryDir}.` };
  };
}

/**
 * The main agent's gate with memory writes let through without a prompt; any other call goes to
 * `fallback` (usually the session's own rule). Use as `AgentOptions.gate` / `SessionSetup.gate`, e.g.
 * `memoryWriteGate(dir, cwd, (t, i, c) => opened.agent.permissions.gate(t, i, c))`.
 */
export function memoryWriteGate(memoryDir: string, cwd: string, fallback: ToolGate): ToolGate {
  return async (tool, input, call) => {
    const target = memoryWriteOf(memoryDir, cwd, tool.name, input);
    if (target && 'name' in target) return { allow: true };
    return fallback(tool, input, call);
  };
}
