// What a host that answers for its own tools needs (engram -p, whose flags decide what the agent may do
// with nobody to ask): the folder a path must stay in, whether a shell command only reads, a tool's path
// as the tool itself resolves it, and the plain file checks of its flags and settings file. The rules
// are the engine's, so a host's gate agrees with what the tools themselves allow. Also the permission
// rules (Claude Code's syntax) from the user's and the project's settings files, for a host's gate and
// for the inspector's list of the rules in force.
import { isErrno as errnoIs } from '../fs/errno';
import { isDirectory as isFolder } from '../fs/fileKind';
import { confineTo as confine, resolveReal, type ConfineOptions, type PathGuard } from '../fs/pathGuard';
import { isReadOnlyCommand as readOnlyVerdict, type ReadOnlyVerdict } from '../tools/bashReadOnly';
import { resolveToolPath as toolPath } from '../tools/toolSupport';
import { parseRuleTexts, permissionRulesInForce, type RuleInputs, type RulesInForce } from '../agent/permissionFiles';
import { deniedByRule as deniedReason } from '../agent/permissions';
import { PermissionRules, type RuleVerdict, type SourcedRule } from '../agent/permissionRules';
import type { Tool } from '../tools/tool';

export type { ConfineOptions, PathGuard, ReadOnlyVerdict, RuleInputs, RulesInForce, RuleVerdict, SourcedRule };

/** A guard that refuses, with a reason, a write outside `rootDir` (and with `options.reads`, a read too). */
export function confineTo(rootDir: string, options: ConfineOptions = {}): PathGuard {
  return confine(rootDir, options);
}

/** Whether a shell command only reads (every part of a pipeline a known read-only command), and if not why. */
export function isReadOnlyCommand(command: string): ReadOnlyVerdict {
  return readOnlyVerdict(command);
}

/** The absolute path a tool works on for its `path` input `p`, resolved against `cwd` as the tool does. */
export function resolveToolPath(p: string, cwd: string): string {
  return toolPath(p, cwd);
}

/** Whether `p` is an existing folder (a flag that names one). */
export function isDirectory(p: string): Promise<boolean> {
  return isFolder(p);
}

/** Whether `err` is a file system error with one of `codes` (ENOENT: a settings file that is not there). */
export function isErrno(err: unknown, ...codes: string[]): boolean {
  return errnoIs(err, ...codes);
}

/**
 * The permission rules in force for a project: the user's (settings and `<dataDir>/settings.json`), the
 * project's `.engram/settings.json` and `.engram/settings.local.json` (allow rules only when trusted),
 * and `inputs.extra` (flags); each with its source and file, the problems of the files, and the rules that
 * name none of `tools`. For a host's own gate (engram -p) and for the inspector's list.
 */
export function loadPermissionRules(inputs: RuleInputs, tools: readonly Tool[] = []): Promise<RulesInForce> {
  return permissionRulesInForce(inputs, tools);
}

/** Rules given on a command line, as allow or deny rules sourced 'cli', and what could not be read. */
export function parseFlagRules(
  texts: readonly string[],
  behavior: 'allow' | 'deny',
): { rules: SourcedRule[]; errors: string[] } {
  return parseRuleTexts(texts, behavior);
}

/** A decision over `rules` alone (relative path patterns against `projectRoot`), without reading any file. */
export function decideByRules(
  rules: readonly SourcedRule[],
  projectRoot: string,
): (tool: Tool, input: Record<string, unknown>) => RuleVerdict {
  const book = new PermissionRules(rules, { realPath: (p) => resolveReal(p) });
  return (tool, input) => book.decide(tool, input, projectRoot);
}

/** What the model reads when a deny rule refuses a call: the rule and where it came from. */
export function deniedByRule(rule: SourcedRule): string {
  return deniedReason(rule);
}
