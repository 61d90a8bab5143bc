// Where permission rules come from, read in Claude Code's shape `{"permissions": {"allow": [], "deny": []}}`:
// the user's (Engram's settings and `<dataDir>/settings.json`), the project's committed
// `.engram/settings.json`, and its `.engram/settings.local.json`, which "Always allow" writes (with a
// `.engram/.gitignore` that keeps it out of commits). A project's allow rules apply only in a trusted
// workspace; deny rules always do, and any deny beats any allow. A file that cannot be read is reported
// with the reason and the others still load; a bad rule is reported and the rest of its file loads.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomicWrite';
import { isErrno } from '../fs/errno';
import { resolveReal } from '../fs/pathGuard';
import type { Tool } from '../tools/tool';
import {
  parseRule,
  PermissionRules,
  ruleNamesTool,
  type RuleSource,
  type RuleVerdict,
  type SourcedRule,
} from './permissionRules';

/** What the rules are read from. */
export interface RuleInputs {
  dataDir: string;
  /** The project folder: `.engram/` lives here, and relative path patterns are relative to it. */
  projectRoot: string;
  /** `engram.permissions` (VS Code's settings, or the CLI's --settings file). */
  settings: { readonly allow: readonly string[]; readonly deny: readonly string[] };
  /** Untrusted: the project's allow rules are left out (its deny rules still apply). */
  trusted: boolean;
  /** Rules given on a command line (`--allowed-tools`, `--disallowed-tools`), already sourced 'cli'. */
  extra?: readonly SourcedRule[];
}

/** A rule or a file that could not be used, and why. */
export interface RuleProblem {
  source: RuleSource;
  file?: string;
  message: string;
}

export interface LoadedRules {
  /** The rules in force, deny and allow, with where each came from. */
  rules: SourcedRule[];
  problems: RuleProblem[];
  /** The committed project file's rules (for the announcement), whether or not they apply. */
  project: SourcedRule[];
}

/** The three rule files of a project. */
export function ruleFiles(dataDir: string, projectRoot: string): { user: string; project: string; local: string } {
  return {
    user: path.join(dataDir, 'settings.json'),
    project: path.join(projectRoot, '.engram', 'settings.json'),
    local: path.join(projectRoot, '.engram', 'settings.local.json'),
  };
}

/** Reads every source; never throws for a missing or broken file (it becomes a problem). */
export async function loadRuleFiles(inputs: RuleInputs): Promise<LoadedRules> {
  const files = ruleFiles(inputs.dataDir, inputs.projectRoot);
  const problems: RuleProblem[] = [];
  const fromSettings = rulesOf(inputs.settings, 'user', undefined, problems);
  const user = rulesOf(await readPermissions(files.user, 'user', problems), 'user', files.user, problems);
  const project = rulesOf(
    await readPermissions(files.project, 'project', problems),
    'project',
    files.project,
    problems,
  );
  const local = rulesOf(await readPermissions(files.local, 'local', problems), 'local', files.local, problems);
  const rules: SourcedRule[] = [];
  for (const r of [...fromSettings, ...user, ...(inputs.extra ?? []), ...project, ...local]) {
    if (r.behavior === 'allow' && (r.source === 'project' || r.source === 'local') && !inputs.trusted) {
      problems.push({
        source: r.source,
        ...(r.file ? { file: r.file } : {}),
        message: `allow rule ${r.text} is ignored: the workspace is not trusted`,
      });
      continue;
    }
    rules.push(r);
  }
  return { rules, problems, project };
}

/** The `permissions` object of a settings file, or undefined when the file is missing or unusable. */
async function readPermissions(file: string, source: RuleSource, problems: RuleProblem[]): Promise<unknown> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    if (!isErrno(e, 'ENOENT', 'ENOTDIR')) problems.push({ source, file, message: `cannot be read: ${String(e)}` });
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    problems.push({ source, file, message: `is not valid JSON (${(e as Error).message}); its rules are not used` });
    return undefined;
  }
  if (!isObject(parsed)) {
    problems.push({ source, file, message: 'must hold a JSON object like {"permissions": {"allow": [], "deny": []}}' });
    return undefined;
  }
  if (parsed.permissions === undefined) return undefined;
  if (!isObject(parsed.permissions)) {
    problems.push({ source, file, message: '"permissions" must be an object with "allow" and "deny" lists' });
    return undefined;
  }
  return parsed.permissions;
}

/** The allow and deny lists of a `permissions` object, parsed; bad entries become problems. */
function rulesOf(permissions: unknown, source: RuleSource, file: string | undefined, problems: RuleProblem[]) {
  const rules: SourcedRule[] = [];
  if (!isObject(permissions)) return rules;
  const where = file ? { file } : {};
  for (const behavior of ['deny', 'allow'] as const) {
    const list = permissions[behavior];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      problems.push({ source, ...where, message: `"permissions.${behavior}" must be a list of rules` });
      continue;
    }
    for (const item of list) {
      const parsed = typeof item === 'string' ? parseRule(item) : { error: `${JSON.stringify(item)} is not a string` };
      if ('error' in parsed) problems.push({ source, ...where, message: `${behavior} rule skipped: ${parsed.error}` });
      else rules.push({ ...parsed, behavior, source, ...where });
    }
  }
  return rules;
}

/**
 * Adds `rule` to the allow list of the project's `.engram/settings.local.json` (kept atomic; other keys
 * and rules stay as they are), creating it and a `.engram/.gitignore` naming it when there is none.
 * A local file that is not valid JSON is left alone and the error says so. Returns the file written.
 */
export async function saveLocalAllowRule(projectRoot: string, rule: string): Promise<string> {
  const file = path.join(projectRoot, '.engram', 'settings.local.json');
  let content: Record<string, unknown> = {};
  let existed = true;
  try {
    const parsed: unknown = JSON.parse(await fsp.readFile(file, 'utf8'));
    if (!isObject(parsed)) throw new Error('it does not hold a JSON object');
    content = parsed;
  } catch (e) {
    if (isErrno(e, 'ENOENT')) existed = false;
    else throw new Error(`Could not add ${rule} to ${file}: ${(e as Error).message}. Fix or remove the file.`);
  }
  const permissions = isObject(content.permissions) ? { ...content.permissions } : {};
  const allow = Array.isArray(permissions.allow) ? [...permissions.allow] : [];
  if (!allow.includes(rule)) allow.push(rule);
  const next = { ...content, permissions: { ...permissions, allow } };
  await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
  if (!existed) await ignoreLocalFile(path.dirname(file));
  return file;
}

/** Writes `.engram/.gitignore` with `settings.local.json` unless the folder already has a .gitignore. */
async function ignoreLocalFile(dir: string): Promise<void> {
  const file = path.join(dir, '.gitignore');
  try {
    await fsp.lstat(file);
  } catch (e) {
    if (!isErrno(e, 'ENOENT')) throw e;
    await writeFileAtomic(file, 'settings.local.json\n');
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The rules in force for a host or the inspector: each with where it came from, the problems, and a decision. */
export interface RulesInForce {
  rules: SourcedRule[];
  problems: RuleProblem[];
  /** Rules that name none of the tools given (an MCP server whose tools have not joined yet, or a typo). */
  unmatched: SourcedRule[];
  /** What the rules say of one call (relative path patterns against the project root). */
  decide(tool: Tool, input: Record<string, unknown>): RuleVerdict;
}

/** Reads the rules of `inputs` once (a one-shot run, or the inspector's list); `tools` finds the unmatched. */
export async function permissionRulesInForce(inputs: RuleInputs, tools: readonly Tool[] = []): Promise<RulesInForce> {
  const loaded = await loadRuleFiles(inputs);
  const rules = new PermissionRules(loaded.rules, { realPath: (p) => resolveReal(p) });
  return {
    rules: loaded.rules,
    problems: loaded.problems,
    unmatched: loaded.rules.filter((r) => !tools.some((t) => ruleNamesTool(r.tool, t))),
    decide: (tool, input) => rules.decide(tool, input, inputs.projectRoot),
  };
}

/** Rules given as flags (`--allowed-tools`, `--disallowed-tools`), sourced 'cli'; the ones that do not parse. */
export function parseRuleTexts(
  texts: readonly string[],
  behavior: 'allow' | 'deny',
): { rules: SourcedRule[]; errors: string[] } {
  const rules: SourcedRule[] = [];
  const errors: string[] = [];
  for (const text of texts) {
    const parsed = parseRule(text);
    if ('error' in parsed) errors.push(parsed.error);
    else rules.push({ ...parsed, behavior, source: 'cli' });
  }
  return { rules, errors };
}
