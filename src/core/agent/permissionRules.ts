// Permission rules in Claude Code's syntax, parsed and matched against one tool call (pure: no files).
// A rule names a whole tool (`Bash`, `mcp__github`) or a tool with a specifier: a shell command for
// Bash (`Bash(npm test)` exact, `Bash(npm test:*)` or `Bash(npm test *)` as a prefix), a gitignore-style
// path pattern for the file tools (`Edit(src/**)` project-relative, `Read(~/.ssh/**)` home-relative,
// `Read(//etc/**)` absolute). Edit rules cover every tool that edits files, Read rules the searches too.
// Any deny rule that matches wins; an allow rule lets the call run without asking; else the host asks.
// A compound shell command is allowed only when every part is (by a rule, or by only reading).
import os from 'node:os';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isReadOnlyCommand } from '../tools/bashReadOnly';
import type { Tool } from '../tools/tool';
import { redirectsToFile, shellParts, stripPrefixes } from './shellParts';

/** One rule as written: `Bash(npm test:*)` is tool `Bash`, specifier `npm test:*`. */
export interface PermissionRule {
  text: string;
  tool: string;
  specifier?: string;
}

/** Where a rule came from: settings and `<dataDir>/settings.json`, the project's files, a flag, or a click. */
export type RuleSource = 'user' | 'project' | 'local' | 'cli' | 'session';

export interface SourcedRule extends PermissionRule {
  behavior: 'allow' | 'deny';
  source: RuleSource;
  /** The file the rule was read from (absent for settings and flags). */
  file?: string;
}

export interface RuleVerdict {
  behavior: 'allow' | 'deny' | 'ask';
  /** The rule that decided (absent for 'ask', and for an allow earned by read-only parts alone). */
  rule?: SourcedRule;
}

/** Tools an `Edit(...)` rule covers. */
const EDITORS = new Set(['edit', 'write', 'multiedit', 'notebookedit']);
/** Tools a `Read(...)` rule covers. */
const READERS = new Set(['read', 'glob', 'grep']);
/** Tools whose specifier is a path pattern. */
const PATH_TOOLS = new Set([...EDITORS, ...READERS]);

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const MCP_NAME = /^mcp__[A-Za-z0-9_.-]+?(__(\*|[A-Za-z0-9_.-]+))?$/;

/** Reads one rule; a rule that cannot mean anything comes back as an error a person can act on. */
export function parseRule(text: string): PermissionRule | { error: string } {
  const t = text.trim();
  if (t === '') return { error: 'an empty rule' };
  const open = t.indexOf('(');
  if (open === -1) {
    if (t.includes(')')) return { error: `"${t}" has ")" without "("` };
    if (t.startsWith('mcp__') ? !MCP_NAME.test(t) : !TOOL_NAME.test(t))
      return { error: `"${t}" is not a tool name (e.g. Bash, Edit, mcp__github)` };
    return { text: t, tool: t };
  }
  const tool = t.slice(0, open).trim();
  if (!t.endsWith(')')) return { error: `"${t}" must end with ")" (e.g. Bash(npm test:*))` };
  if (!TOOL_NAME.test(tool)) return { error: `"${tool}" in "${t}" is not a tool name` };
  if (tool.startsWith('mcp__'))
    return { error: `"${t}": MCP rules name a server or a tool, without (...) (e.g. mcp__github__create_issue)` };
  const specifier = t.slice(open + 1, -1).trim();
  if (specifier === '') return { error: `"${t}" has an empty (...): write "${tool}" for the whole tool` };
  // `Bash(*)` is the whole tool.
  if (specifier === '*' || specifier === ':*') return { text: t, tool };
  return { text: t, tool, specifier };
}

/** A rule's source in words, for reasons and lists: "project settings (/p/.engram/settings.json)". */
export function describeSource(rule: Pick<SourcedRule, 'source' | 'file'>): string {
  const where = {
    user: 'user settings',
    project: 'project settings',
    local: 'local project settings',
    cli: 'command line',
    session: 'this session',
  }[rule.source];
  return rule.file ? `${where}, ${rule.file}` : where;
}

/**
 * Whether the rule's tool name stands for `tool`. With `family`, an Edit rule stands for every tool that
 * edits files and a Read rule for the searches too (path rules, and deny rules); a whole-tool allow rule
 * (`--allowed-tools Read`) names that tool alone.
 */
export function ruleNamesTool(ruleTool: string, tool: Pick<Tool, 'name' | 'mcp'>, family = true): boolean {
  const r = ruleTool.toLowerCase();
  const name = tool.name.toLowerCase();
  if (r.startsWith('mcp__')) return mcpMatches(ruleTool, tool);
  if (r === name) return true;
  return family && ((r === 'edit' && EDITORS.has(name)) || (r === 'read' && READERS.has(name)));
}

function mcpMatches(ruleTool: string, tool: Pick<Tool, 'name' | 'mcp'>): boolean {
  if (ruleTool === tool.name) return true;
  const rest = ruleTool.slice('mcp__'.length);
  const sep = rest.indexOf('__');
  const server = sep === -1 ? rest : rest.slice(0, sep);
  const toolPart = sep === -1 ? '*' : rest.slice(sep + 2);
  const onServer = tool.mcp?.server === server || tool.name.startsWith(`mcp__${server}__`);
  if (!onServer) return false;
  return toolPart === '*' || tool.mcp?.tool === toolPart;
}

export interface RulesOptions {
  /** The folder `~/` patterns mean (default: the user's home). */
  home?: string;
  realPath?: (abs: string) => string | null;
}

/** The rules in force for one session or run, allow and deny together. */
export class PermissionRules {
  private readonly rules: readonly SourcedRule[];
  private readonly home: string;
  private readonly realPath: ((abs: string) => string | null) | undefined;
  private readonly patterns = new Map<string, Ignore>();

  /**
   * `realPath`: where a path really leads (symlinks resolved; null on a loop). With it a deny rule
   * matches a path that leads into what it denies, and an allow rule must match where the path leads
   * as well as how it is written (a link in src/ that points elsewhere is not under `Edit(src/**)`).
   */
  constructor(rules: readonly SourcedRule[], opts: RulesOptions = {}) {
    this.rules = rules;
    this.home = opts.home ?? os.homedir();
    this.realPath = opts.realPath;
  }

  list(): SourcedRule[] {
    return [...this.rules];
  }

  /** What the rules say of one call: deny when any deny rule matches, allow when an allow rule does, else ask. */
  decide(tool: Tool, input: Record<string, unknown>, cwd: string): RuleVerdict {
    const applicable = this.rules.filter((r) =>
      ruleNamesTool(r.tool, tool, r.specifier !== undefined || r.behavior === 'deny'),
    );
    const deny = applicable.filter((r) => r.behavior === 'deny');
    const allow = applicable.filter((r) => r.behavior === 'allow');
    if (tool.name === 'Bash') return this.decideBash(input.command, deny, allow);
    const targets = PATH_TOOLS.has(tool.name.toLowerCase()) ? this.targets(tool, input, cwd) : undefined;
    const matches = (r: SourcedRule): boolean =>
      r.specifier === undefined ||
      (targets !== undefined && targets.length > 0 && targets.every((t) => this.targetMatches(r, t, cwd)));
    const denied = deny.find(matches);
    if (denied) return { behavior: 'deny', rule: denied };
    const allowed = allow.find(matches);
    return allowed ? { behavior: 'allow', rule: allowed } : { behavior: 'ask' };
  }

  private decideBash(command: unknown, deny: SourcedRule[], allow: SourcedRule[]): RuleVerdict {
    const whole = (rs: SourcedRule[]) => rs.find((r) => r.specifier === undefined);
    const wholeDeny = whole(deny);
    if (wholeDeny) return { behavior: 'deny', rule: wholeDeny };
    if (typeof command !== 'string') {
      const wholeAllow = whole(allow);
      return wholeAllow ? { behavior: 'allow', rule: wholeAllow } : { behavior: 'ask' };
    }
    const line = command.trim();
    const { parts, substitution } = shellParts(line);
    const candidates = [line, ...parts.flatMap(denyCandidates)];
    const denied = deny.find((r) => candidates.some((c) => commandMatches(r.specifier ?? '', c)));
    if (denied) return { behavior: 'deny', rule: denied };
    const wholeAllow = whole(allow) ?? allow.find((r) => r.specifier === line);
    if (wholeAllow) return { behavior: 'allow', rule: wholeAllow };
    if (substitution || parts.length === 0) return { behavior: 'ask' };
    let decided: SourcedRule | undefined;
    for (const part of parts) {
      const spec = (r: SourcedRule) => r.specifier ?? '';
      // A prefix rule runs the command; writing a file by redirection is not part of that.
      const rule = allow.find((r) => commandMatches(spec(r), part) && (spec(r) === part || !redirectsToFile(part)));
      if (rule) decided ??= rule;
      else if (!isReadOnlyCommand(part).ok) return { behavior: 'ask' };
    }
    return decided ? { behavior: 'allow', rule: decided } : { behavior: 'ask' };
  }

  /** The paths a file tool's call touches, absolute; `dir` for a search's root (its contents count). */
  private targets(tool: Tool, input: Record<string, unknown>, cwd: string): Array<{ abs: string; dir: boolean }> {
    const name = tool.name.toLowerCase();
    const raw: string[] =
      name === 'glob' || name === 'grep'
        ? [typeof input.path === 'string' && input.path !== '' ? input.path : '.']
        : (tool.readPaths?.(input) ??
          [input.file_path, input.notebook_path].filter((p): p is string => typeof p === 'string' && p !== ''));
    const dir = name === 'glob' || name === 'grep';
    const abs = raw.map((p) => this.resolve(p, cwd));
    // A Glob pattern's fixed folders (`secrets/*.pem`) move its root: that is where it lists.
    if (name === 'glob' && typeof input.pattern === 'string') return [{ abs: globRoot(abs[0], input.pattern), dir }];
    return abs.map((a) => ({ abs: a, dir }));
  }

  private resolve(p: string, cwd: string): string {
    if (p === '~') return this.home;
    if (p.startsWith('~/')) return path.join(this.home, p.slice(2));
    return path.resolve(cwd, p);
  }

  /** The rule's pattern against the path as written and, with `realPath`, where it leads. */
  private targetMatches(rule: SourcedRule, t: { abs: string; dir: boolean }, cwd: string): boolean {
    const written = this.pathMatches(rule, t.abs, t.dir, cwd, this.home);
    if (!this.realPath) return written;
    const real = this.realPath(t.abs);
    if (real === null) return rule.behavior === 'deny'; // a link loop: never allowed by a rule
    if (real === t.abs) return written;
    const base = this.realPath(cwd) ?? cwd;
    const led = this.pathMatches(rule, real, t.dir, base, this.realPath(this.home) ?? this.home);
    return rule.behavior === 'deny' ? written || led : written && led;
  }

  /**
   * Whether the rule's path pattern takes in `abs`. A search root is taken in when what lies under it is
   * (a search of ~/.ssh reads what Read(~/.ssh/**) forbids).
   */
  private pathMatches(rule: SourcedRule, abs: string, dir: boolean, cwd: string, home: string): boolean {
    const spec = rule.specifier ?? '';
    let base = cwd;
    let pattern = spec;
    if (spec.startsWith('//')) [base, pattern] = [path.parse(abs).root || '/', `/${spec.slice(2)}`];
    else if (spec === '~' || spec.startsWith('~/')) [base, pattern] = [home, `/${spec.slice(2) || '**'}`];
    const rel = path.relative(base, abs);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return false;
    const posix = rel.split(path.sep).join('/');
    const matcher = this.matcher(pattern);
    if (posix !== '' && matcher.ignores(posix)) return true;
    return dir && matcher.ignores(posix === '' ? 'x' : `${posix}/x`);
  }

  private matcher(pattern: string): Ignore {
    let m = this.patterns.get(pattern);
    if (!m) {
      m = ignore().add(pattern);
      this.patterns.set(pattern, m);
    }
    return m;
  }
}

/** What a deny rule is checked against for one part: as written, without prefixes, and a `sh -c` script's commands. */
function denyCandidates(part: string, depth = 0): string[] {
  const bare = stripPrefixes(part);
  const script = /^(?:\S*\/)?(?:ba|z|da|k)?sh\s+-c\s+(?:'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+))/.exec(bare);
  const inner = script && depth < 3 ? shellParts(script[1] ?? script[2] ?? script[3] ?? '').parts : [];
  return [part, bare, ...inner.flatMap((p) => denyCandidates(p, depth + 1))];
}

/** The folder a glob pattern lists from: `root` and the pattern's leading segments without wildcards. */
function globRoot(root: string, pattern: string): string {
  const segs = pattern.split('/');
  let i = 0;
  while (i < segs.length - 1 && !/[*?[\]{}]/.test(segs[i])) i++;
  const fixed = segs.slice(0, i).join('/');
  if (fixed === '' && !pattern.startsWith('/')) return root;
  return path.isAbsolute(pattern) ? fixed || '/' : path.resolve(root, fixed);
}

/** Whether a Bash specifier takes in one command: exact, or a prefix with `:*`, ` *` or a trailing `*`. */
export function commandMatches(spec: string, command: string): boolean {
  const c = command.trim();
  const wordPrefix = spec.endsWith(':*') ? spec.slice(0, -2) : spec.endsWith(' *') ? spec.slice(0, -2) : undefined;
  if (wordPrefix !== undefined) {
    const p = wordPrefix.trim();
    return c === p || (c.startsWith(p) && /\s/.test(c[p.length] ?? ''));
  }
  if (spec.endsWith('*')) return c.startsWith(spec.slice(0, -1));
  return c === spec.trim();
}

/** Commands whose second word is a subcommand worth a prefix rule (`npm test`, `git status`). */
const SUBCOMMAND_TOOLS = new Set(
  'npm npx pnpm yarn bun deno node git cargo go make docker kubectl pip pip3 poetry uv mvn gradle dotnet gh terraform bundle rake composer swift'.split(
    ' ',
  ),
);

/**
 * The rule "Always allow" saves for this call, shown on the card before the click: a prefix for a shell
 * command with a stable one (`Bash(npm test:*)`), else the exact command; the folder of an edited file
 * (`Edit(src/lib/**)`, project-relative); an MCP tool by its full name; any other tool whole. None
 * when no rule would say just this (a command that ends in `*`).
 */
export function suggestRule(
  tool: Tool,
  input: Record<string, unknown>,
  cwd: string,
  home = os.homedir(),
): string | undefined {
  const name = tool.name.toLowerCase();
  if (tool.mcp) return tool.name;
  if (tool.name === 'Bash' && typeof input.command === 'string') {
    const command = input.command.trim();
    const { parts, substitution } = shellParts(command);
    const words = command.split(/\s+/);
    if (
      parts.length === 1 &&
      !substitution &&
      SUBCOMMAND_TOOLS.has(words[0]) &&
      /^[a-z][a-z0-9:_-]*$/.test(words[1] ?? '')
    )
      return `Bash(${words[0]} ${words[1]}:*)`;
    // A command ending in * would read as a prefix rule (`rm -rf *` would allow every `rm -rf`): no rule.
    return command === '' || command.endsWith('*') ? undefined : `Bash(${command})`;
  }
  const file = typeof input.file_path === 'string' ? input.file_path : typeof input.path === 'string' ? input.path : '';
  if (PATH_TOOLS.has(name) && file !== '') {
    const abs = file === '~' ? home : file.startsWith('~/') ? path.join(home, file.slice(2)) : path.resolve(cwd, file);
    const folder = name === 'glob' || name === 'grep' ? abs : path.dirname(abs);
    const ruleTool = EDITORS.has(name) ? 'Edit' : 'Read';
    return `${ruleTool}(${pathPattern(folder, cwd, home)})`;
  }
  return tool.name;
}

/** `folder` as a rule's pattern for everything under it: project-relative, home-relative or absolute. */
function pathPattern(folder: string, cwd: string, home: string): string {
  const inside = (base: string): string | undefined => {
    const rel = path.relative(base, folder);
    return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel.split(path.sep).join('/');
  };
  const project = inside(cwd);
  if (project !== undefined) return project === '' ? '/**' : `${project}/**`;
  const fromHome = inside(home);
  if (fromHome !== undefined) return fromHome === '' ? '~/**' : `~/${fromHome}/**`;
  return `/${folder.split(path.sep).join('/')}/**`.replace(/^\/+/, '//');
}
