// The permission rules of one session, kept current: the rule files are stat'ed before each decision
// and read again only when one changed (or the settings did), so an edit of `.engram/settings.json` or
// an "Always allow" applies to the very next call. Also says, once per change, which rules a project's
// committed file adds (the fingerprint of what was last announced is kept per project under the data dir).
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { projectDir } from '../conversation/projectKey';
import { writeFileAtomic } from '../fs/atomicWrite';
import { resolveReal } from '../fs/pathGuard';
import type { Tool } from '../tools/tool';
import { loadRuleFiles, ruleFiles, saveLocalAllowRule, type LoadedRules, type RuleInputs } from './permissionFiles';
import { PermissionRules, suggestRule, type RuleVerdict, type SourcedRule } from './permissionRules';

export interface RuleBookOptions extends Omit<RuleInputs, 'settings'> {
  /** Read at each check, so a changed setting applies to the next call. */
  settings: () => RuleInputs['settings'];
  /** For tests: the home folder `~/` patterns mean. */
  home?: string;
}

/** Where the fingerprint of the project rules last announced is kept. */
const ANNOUNCED_FILE = 'permission-rules.json';

export class RuleBook {
  private cache: { key: string; loaded: LoadedRules; rules: PermissionRules } | undefined;

  constructor(private readonly opts: RuleBookOptions) {}

  /** The project folder relative path patterns are relative to. */
  get projectRoot(): string {
    return this.opts.projectRoot;
  }

  /** The rules in force now and the problems of their files (read again when a file or the settings changed). */
  async current(): Promise<{ loaded: LoadedRules; rules: PermissionRules }> {
    const key = await this.key();
    if (this.cache?.key !== key) {
      const loaded = await loadRuleFiles({ ...this.opts, settings: this.opts.settings() });
      const rules = new PermissionRules(loaded.rules, {
        realPath: (p) => resolveReal(p),
        ...(this.opts.home !== undefined ? { home: this.opts.home } : {}),
      });
      this.cache = { key, loaded, rules };
    }
    return this.cache;
  }

  async decide(tool: Tool, input: Record<string, unknown>): Promise<RuleVerdict> {
    return (await this.current()).rules.decide(tool, input, this.opts.projectRoot);
  }

  /** The rule "Always allow" would save for this call (none: no "Always allow" on its card). */
  suggest(tool: Tool, input: Record<string, unknown>): string | undefined {
    return suggestRule(tool, input, this.opts.projectRoot, this.opts.home);
  }

  /** Saves `rule` to the project's local file (see saveLocalAllowRule); the next decision sees it. */
  async allowAlways(rule: string): Promise<string> {
    const file = await saveLocalAllowRule(this.opts.projectRoot, rule);
    this.cache = undefined;
    return file;
  }

  /**
   * The committed project file's rules when they are new or changed since last announced for this
   * project (recorded now, so they are announced once), else undefined. Nothing is announced in an
   * untrusted workspace (nothing runs there), so the rules are announced once it is trusted.
   */
  async projectNews(): Promise<{ rules: SourcedRule[]; file: string } | undefined> {
    if (!this.opts.trusted) return undefined;
    const { project } = (await this.current()).loaded;
    const fingerprint = createHash('sha256')
      .update(JSON.stringify(project.map((r) => [r.behavior, r.text]).sort()))
      .digest('hex');
    const record = path.join(projectDir(this.opts.dataDir, this.opts.projectRoot), ANNOUNCED_FILE);
    let before: unknown;
    try {
      before = JSON.parse(await fsp.readFile(record, 'utf8'));
    } catch {
      before = undefined; // never announced, or unreadable: announce (again)
    }
    const empty = project.length === 0;
    const previous = (before as { fingerprint?: unknown } | undefined)?.fingerprint;
    if (previous === fingerprint || (empty && previous === undefined)) return undefined;
    await writeFileAtomic(record, `${JSON.stringify({ fingerprint })}\n`);
    return empty ? undefined : { rules: project, file: ruleFiles(this.opts.dataDir, this.opts.projectRoot).project };
  }

  /** What the files look like now: size and change time of each, the settings' rules and trust. */
  private async key(): Promise<string> {
    const files = ruleFiles(this.opts.dataDir, this.opts.projectRoot);
    const stats = await Promise.all(
      [files.user, files.project, files.local].map((f) =>
        fsp.stat(f).then(
          (s) => `${s.ino}:${s.size}:${s.mtimeMs}`,
          () => '-',
        ),
      ),
    );
    return JSON.stringify([stats, this.opts.settings(), this.opts.trusted]);
  }
}
