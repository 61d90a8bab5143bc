// The inspector's "Permission rules" list: the rules in force for the project, read from the same
// places the session's gate reads them (Engram's settings, `<dataDir>/settings.json`, the project's
// `.engram/settings.json` and `.engram/settings.local.json`), each with where it came from; deny rules
// first, since they win. Rules that could not be used are left to the chat's warning.
import { loadRuleFiles, type RuleInputs } from '../agent/permissionFiles';
import type { PermissionRuleView } from '../../protocol/messages';

export async function buildRulesView(inputs: RuleInputs): Promise<PermissionRuleView[]> {
  const { rules } = await loadRuleFiles(inputs);
  return [...rules]
    .sort((a, b) => (a.behavior === b.behavior ? 0 : a.behavior === 'deny' ? -1 : 1))
    .map((r) => ({ text: r.text, behavior: r.behavior, source: r.source, ...(r.file ? { file: r.file } : {}) }));
}
