// The command line's share of the settings: flags are mapped onto the same keys VS Code's settings use
// and resolved by the same rules, so `--context-window 0` is refused as `engram.contextWindow: 0` would
// be, and no default is written here. A flag's value that the rules reject is a usage error (exit 2): on
// the command line it was typed just now, so falling back silently would hide the typo.
import { resolveSettings, SETTING_KEYS, type EngramSettings, type RawSettings, type SettingId } from '../core/settings/engramSettings';
import { UsageError } from './args';

/** `--context-window N` and friends: flag name -> setting id. */
export type FlagMap = Partial<Record<SettingId, { flag: string; value: string | boolean | undefined }>>;

export function settingsFromFlags(flags: FlagMap, base: RawSettings = {}): EngramSettings {
  const raw: RawSettings = { ...base };
  for (const [id, given] of Object.entries(flags) as Array<[SettingId, { flag: string; value: string | boolean | undefined }]>) {
    if (given.value === undefined) continue;
    const key = SETTING_KEYS[id];
    if (key.kind === 'number') {
      const n = typeof given.value === 'string' && given.value.trim() !== '' ? Number(given.value) : Number.NaN;
      if (!Number.isFinite(n)) throw new UsageError(`${given.flag} must be a number, not ${JSON.stringify(given.value)}`);
      raw[id] = n;
    } else {
      raw[id] = given.value;
    }
  }
  const { settings, problems } = resolveSettings(raw);
  for (const [id, given] of Object.entries(flags) as Array<[SettingId, { flag: string; value: unknown }]>) {
    if (given.value === undefined) continue;
    const problem = problems.find((p) => p.startsWith(`engram.${id}:`) || p.startsWith(`engram.${id} `));
    if (problem) throw new UsageError(`${given.flag}: ${problem.slice(problem.indexOf(':') + 1).trim().replace(/; using .*$/, '')}`);
  }
  return settings;
}

/** "(default: N)" for a flag's help line, from the setting's declared default. */
export function defaultOf(id: SettingId): string {
  return String(SETTING_KEYS[id].default);
}
