// The session's permission rules (agent/ruleBook.ts): the agent's own gate follows them, and the chat is
// told, in one line each, which rules a project's committed settings add (the first time, and again
// after they change), which rule an "Always allow" saved and where, and what is wrong with a rule file.
// A host with a gate of its own (engram -p) reads the same files itself (host/toolPolicy.ts).
import type { Agent } from '../agent/agent';
import { RuleBook } from '../agent/ruleBook';
import type { Logger } from '../ports';
import type { SettingsSource } from '../settings/settingsStore';
import { say } from './sessionEvents';
import type { SessionReporter } from './sessionReporter';
import type { EngramSessionSetup } from './sessionSetup';

/** What the link needs of the session being wired (sessionParts.ts). */
export interface RulesWiring {
  agent: Agent;
  setup: Pick<EngramSessionSetup, 'gate' | 'dataDir' | 'cwd' | 'trusted'>;
  store: SettingsSource;
  reporter: SessionReporter;
  logger: Logger;
}

/** Puts the rules in front of the agent's gate; returns what detaches the listeners. */
export function linkPermissionRules(w: RulesWiring): () => void {
  const { agent, setup, store, reporter, logger } = w;
  if (setup.gate) return () => undefined;
  const book = new RuleBook({
    dataDir: setup.dataDir,
    projectRoot: setup.cwd,
    trusted: setup.trusted,
    settings: () => store.settings.permissions,
  });
  agent.permissions.useRules(book);
  const told = new Set<string>();
  const beforeTurn = async (): Promise<void> => {
    if (!setup.trusted) return; // no tool runs: nothing to say
    const { loaded } = await book.current();
    for (const p of loaded.problems) {
      const line = `${p.file ?? 'engram.permissions'}: ${p.message}`;
      if (told.has(line)) continue;
      told.add(line);
      reporter.notice('warning', say('Permission rules: {0}', line));
    }
    const news = await book.projectNews().catch((e: unknown) => {
      logger.warn(`Could not record the project's permission rules as announced: ${String(e)}`);
      return undefined;
    });
    if (!news) return;
    const list = (behavior: 'allow' | 'deny') =>
      news.rules
        .filter((r) => r.behavior === behavior)
        .map((r) => r.text)
        .join(', ') || '-';
    reporter.notice(
      'info',
      say('The project settings add permission rules. Allow: {0}. Deny: {1}.', list('allow'), list('deny')),
      { label: '.engram/settings.json', path: news.file },
    );
  };
  const removeHook = agent.hooks.beforeTurn.add('permissionRules', beforeTurn);
  const stopSaved = agent.permissions.onRuleSaved((saved) => {
    if ('file' in saved)
      reporter.notice('info', say('Saved the permission rule {0}: such calls now run without asking.', saved.rule), {
        label: '.engram/settings.local.json',
        path: saved.file,
      });
    else
      reporter.notice(
        'warning',
        say('Could not save the permission rule {0} (the call ran this once): {1}', saved.rule, saved.error),
      );
  });
  return () => {
    removeHook();
    stopSaved();
    agent.permissions.useRules(undefined);
  };
}
