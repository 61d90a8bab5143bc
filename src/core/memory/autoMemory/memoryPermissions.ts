// Who may touch the memory folder, and how. The background extractor works unattended, so its rule is
// fixed and narrow (DESIGN 4): Read, Grep and Glob anywhere; Bash only for commands the read-only
// classifier accepts; Write and Edit only on topic files or the index inside the memory folder, judged
// where the path really leads (symlinks and `..` resolved); everything else is denied with a reason the
// model can read. The main agent keeps its usual rule, except that saving memory needs no prompt: the
// user asked for it, and the folder holds nothing but memory.
//
// The team folder (`<memory>/team`) is shared with everyone on the repository, so a write there is
// allowed only while team memory is on, and only after what the file would hold afterwards was scanned
// for secrets: a hit refuses the call (the agent reads the rule and line), so no secret ever lands in it.
import path from 'node:path';
import type { ToolDecision, ToolGate } from '../../agent/permissions';
import { isErrno } from '../../fs/errno';
import { isReadOnlyCommand } from '../../tools/bashReadOnly';
import type { Tool } from '../../tools/tool';
import { resolveToolPath } from '../../tools/toolSupport';
import { teamWriteProblem } from '../team/teamSecrets';
import { readMemoryText } from './memoryFiles';
import { memoryHome, memoryWriteTarget } from './memoryPaths';
import { withMemoryLock } from './memoryWriter';

const READ_TOOLS = new Set(['Read', 'Grep', 'Glob']);
const WRITE_TOOLS = new Set(['Write', 'Edit']);

/** Whether this session may write the team folder (team memory is on: setting, trust, a repository). */
export interface MemoryWriteOptions {
  team?: boolean;
}

/** The memory file a Write/Edit call targets, or why it is not one; undefined for other tools. */
export function memoryWriteOf(
  memoryDir: string,
  cwd: string,
  toolName: string,
  input: Record<string, unknown>,
): { name: string } | { problem: string } | undefined {
  if (!WRITE_TOOLS.has(toolName)) return undefined;
  const filePath = input.file_path;
  if (typeof filePath !== 'string' || filePath === '') return { problem: 'no file_path given' };
  return memoryWriteTarget(memoryDir, resolveToolPath(filePath, cwd));
}

/**
 * Why a Write/Edit of memory file `name` (relative to the memory folder) must not run, or null. Only
 * team files are ever refused: while team memory is off, and when the file would hold a secret.
 */
export async function memoryWriteRefusal(
  memoryDir: string,
  name: string,
  toolName: string,
  input: Record<string, unknown>,
  opts: MemoryWriteOptions = {},
): Promise<string | null> {
  const home = memoryHome(memoryDir, name);
  if (!home.team) return null;
  if (!opts.team)
    return (
      `team memory is off in this session, so nothing may be written to ${home.dir}; ` +
      `save the memory in the private memory folder ${memoryDir} instead`
    );
  const text = await textAfterWrite(path.join(home.dir, home.file), home.dir, toolName, input);
  const problem = await teamWriteProblem(text);
  return problem ? `${name} was not written: ${problem}` : null;
}

/**
 * What the file would hold after the call, as far as it can be told before it runs: Write's content, or
 * the file with Edit's replacement made. When the Edit would fail anyway (no match) its new text alone.
 */
async function textAfterWrite(
  abs: string,
  dir: string,
  toolName: string,
  input: Record<string, unknown>,
): Promise<string> {
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  if (toolName === 'Write') return str(input.content);
  const oldString = str(input.old_string);
  const newString = str(input.new_string);
  if (oldString === '') return newString;
  let current: string;
  try {
    current = await readMemoryText(dir, abs);
  } catch (e) {
    if (isErrno(e, 'ENOENT')) return newString;
    throw e;
  }
  if (!current.includes(oldString)) return newString;
  return input.replace_all === true
    ? current.split(oldString).join(newString)
    : current.replace(oldString, () => newString);
}

/** The background extractor's rule, for fork({canUseTool}). */
export function extractionCanUseTool(
  memoryDir: string,
  cwd: string,
  opts: MemoryWriteOptions = {},
): (tool: Tool, input: Record<string, unknown>) => Promise<ToolDecision> {
  return async (tool, input) => {
    if (READ_TOOLS.has(tool.name)) return { allow: true };
    if (tool.name === 'Bash') {
      const command = typeof input.command === 'string' ? input.command : '';
      const verdict = isReadOnlyCommand(command);
      return verdict.ok
        ? { allow: true }
        : {
            allow: false,
            reason:
              'Denied: the memory agent may run only read-only commands (ls, find, grep, cat, stat, wc, head, tail); ' +
              `${verdict.reason}.`,
          };
    }
    const target = memoryWriteOf(memoryDir, cwd, tool.name, input);
    if (target) {
      if (!('name' in target))
        return {
          allow: false,
          reason: `Denied: the memory agent may write only Markdown files inside ${memoryDir}; ${target.problem}.`,
        };
      const refused = await memoryWriteRefusal(memoryDir, target.name, tool.name, input, opts);
      return refused ? { allow: false, reason: `Denied: ${refused}.` } : { allow: true };
    }
    return {
      allow: false,
      reason:
        'Denied: the memory agent may use only Read, Grep, Glob, read-only Bash, ' +
        `and Write/Edit inside ${memoryDir}.`,
    };
  };
}

/**
 * The main agent's gate with memory writes let through without a prompt; any other call goes to
 * `fallback` (usually the session's own rule). Use as `AgentOptions.gate` / `SessionSetup.gate`, e.g.
 * `memoryWriteGate(dir, cwd, (t, i, c) => opened.agent.permissions.gate(t, i, c))`. With `needsTool`
 * memory writes go to `fallback` too (the CLI's --allowed-tools decide); the team folder's refusals
 * (team memory off, a secret) apply either way.
 */
export function memoryWriteGate(
  memoryDir: string,
  cwd: string,
  fallback: ToolGate,
  opts: MemoryWriteOptions & { needsTool?: boolean } = {},
): ToolGate {
  return async (tool, input, call) => {
    const target = memoryWriteOf(memoryDir, cwd, tool.name, input);
    if (target && 'name' in target) {
      // The previous memory write is recorded (provenance, index line) before this one runs, so the
      // two never edit MEMORY.md at once.
      await withMemoryLock(memoryHome(memoryDir, target.name).dir, async () => undefined);
      const refused = await memoryWriteRefusal(memoryDir, target.name, tool.name, input, opts);
      if (refused) return { allow: false, reason: `Refused: ${refused}.` };
      if (!opts.needsTool) return { allow: true };
    }
    return fallback(tool, input, call);
  };
}
