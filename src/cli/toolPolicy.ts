// Which tools a headless run may use. Nobody is there to answer a permission prompt, so the rule is
// fixed up front: with --allowed-tools, exactly the listed tools run; without it, only what cannot
// change anything runs (read-only tools, and Bash commands the strict read-only classifier accepts),
// plus Write/Edit of Markdown files in the project's private memory folder, so `engram -p "remember
// ..."` saves what it was asked to, as the editor does without a prompt (the folder holds nothing but
// memory; the shared team folder is not included). With a list, memory writes obey it too (the session
// lets them through only when this gate does), and Write/Edit land only in the workspace, the --add-dir
// folders and, when memory is on, the memory folder, judged where the path really leads (symlinks and
// `..` resolved), as Claude Code does. Permission rules come first: the same files the editor reads
// (the user's, the project's `.engram/settings.json` and `.engram/settings.local.json`) and the flags,
// whose entries are rules too (`Bash(npm test:*)`, `mcp__github`); a deny rule wins even over a listed
// tool, and an allow rule lets its calls run.
import {
  confineTo,
  decideByRules,
  deniedByRule,
  isReadOnlyCommand,
  loadPermissionRules,
  parseFlagRules,
  resolveToolPath,
  type RuleVerdict,
} from '../core/host/toolPolicy';
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
  /** Every permission rule in force (headlessRules); default: the --allowed-tools entries alone. */
  rules?: HeadlessRules;
}

/** What the permission rules say of a call (host/toolPolicy.ts loadPermissionRules). */
export interface HeadlessRules {
  decide(tool: Tool, input: Record<string, unknown>): RuleVerdict;
}

/**
 * The gate of a headless run. `allowed`: the --allowed-tools entries (then only what a rule allows runs);
 * `scope.rules`: every rule in force, the flags' included (default: `allowed` alone).
 */
export function headlessToolGate(allowed: readonly string[] | undefined, scope?: WriteScope): ToolGate {
  const rules = scope?.rules ?? flagRules(allowed ?? [], scope?.cwd ?? '.');
  const outside = scope ? writeOutsideScope(scope) : () => null;
  return async (tool, input) => {
    const verdict = rules.decide(tool, input);
    if (verdict.behavior === 'deny' && verdict.rule) return { allow: false, reason: deniedByRule(verdict.rule) };
    if (verdict.behavior === 'allow') {
      const denied = FILE_WRITERS.has(tool.name.toLowerCase()) ? outside(input) : null;
      return denied ? { allow: false, reason: denied } : { allow: true };
    }
    if (allowed !== undefined)
      return {
        allow: false,
        reason:
          `${tool.name} is not allowed in this headless run (allowed: ${allowed.join(', ') || 'none'}). ` +
          'Do without it, or say what you would need.',
      };
    return readOnlyCall(tool, input) || privateMemoryWrite(tool, input, scope)
      ? { allow: true }
      : {
          allow: false,
          reason:
            `${tool.name} needs permission, and nobody can give it in this headless run ` +
            '(engram -p without --allowed-tools runs read-only tools, memory writes and what allow rules allow).',
        };
  };
}

/** The --allowed-tools entries alone as rules (a test's gate, or a run without rule files). */
function flagRules(allowed: readonly string[], projectRoot: string): HeadlessRules {
  return { decide: decideByRules(parseFlagRules(allowed, 'allow').rules, projectRoot) };
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

/**
 * Entries of a tool list that are neither a rule for a known tool nor an MCP name (`mcp__server`, whose
 * tools join once the server is up), to fail early on a typo instead of silently denying.
 */
export function unknownToolNames(allowed: readonly string[], tools: readonly Tool[]): string[] {
  const known = new Set(tools.map((t) => t.name.toLowerCase()));
  return allowed.filter((entry) => {
    const name = entry.split('(')[0].trim();
    return !name.startsWith('mcp__') && !known.has(name.toLowerCase());
  });
}

/** Splits a flag's list at commas and spaces outside parentheses: `Bash(npm test:*),Read` is two rules. */
export function splitRuleList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of value) {
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (c === ',' || /\s/.test(c))) {
      if (current.trim()) out.push(current.trim());
      current = '';
    } else current += c;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** What is wrong with --allowed-tools / --disallowed-tools (a rule that does not parse, an unknown tool), or undefined. */
export function ruleFlagProblem(
  lists: Record<string, readonly string[] | undefined>,
  tools: readonly Tool[],
): string | undefined {
  for (const [flag, entries] of Object.entries(lists)) {
    if (!entries) continue;
    const { errors } = parseFlagRules(entries, 'allow');
    if (errors.length > 0) return `Bad rule(s) in ${flag}: ${errors.join('; ')}`;
    const unknown = unknownToolNames(entries, tools);
    if (unknown.length > 0)
      return `Unknown tool(s) in ${flag}: ${unknown.join(', ')} (tools: ${tools.map((t) => t.name).join(', ')})`;
  }
  return undefined;
}

/**
 * Every rule a headless run follows: the user's and the project's files (the person chose the folder, so
 * its rules apply), the settings' `permissions`, and the flags; each problem of a file is said on stderr.
 */
export async function headlessRules(opts: {
  dataDir: string;
  cwd: string;
  settings: { allow: readonly string[]; deny: readonly string[] };
  allowed: readonly string[] | undefined;
  disallowed: readonly string[] | undefined;
  tools: readonly Tool[];
  io: { stderr: (text: string) => void };
}): Promise<HeadlessRules> {
  const extra = [
    ...parseFlagRules(opts.allowed ?? [], 'allow').rules,
    ...parseFlagRules(opts.disallowed ?? [], 'deny').rules,
  ];
  const loaded = await loadPermissionRules(
    { dataDir: opts.dataDir, projectRoot: opts.cwd, settings: opts.settings, trusted: true, extra },
    opts.tools,
  );
  for (const p of loaded.problems) opts.io.stderr(`engram: permission rules: ${p.file ?? 'settings'}: ${p.message}\n`);
  return loaded;
}
