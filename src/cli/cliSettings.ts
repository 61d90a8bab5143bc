// The command line's share of the settings: flags are mapped onto the same keys VS Code's settings use
// and resolved by the same rules, so `--context-window 0` is refused as `engram.contextWindow: 0` would
// be, and no default is written here. A flag's value that the rules reject is a usage error (exit 2): on
// the command line it was typed just now, so falling back silently would hide the typo. The same holds
// for a `--settings FILE`: it was named for this run, so a key or value the rules reject stops it.
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDirectory, isErrno } from '../core/host/toolPolicy';
import {
  type Env,
  resolveSettings,
  SETTING_KEYS,
  type EngramSettings,
  type RawSettings,
  type SettingId,
} from '../core/host/config';
import { UsageError, type OptionSpec } from './args';

/** `--context-window N` and friends: flag name -> setting id. */
export type FlagMap = Partial<Record<SettingId, { flag: string; value: string | boolean | undefined }>>;

/** Where the base settings came from, for their errors (e.g. "--settings cost.json"); none: defaults. */
export interface SettingsBase {
  raw: RawSettings;
  from: string;
}

export function settingsFromFlags(flags: FlagMap, base?: SettingsBase): EngramSettings {
  const raw: RawSettings = { ...base?.raw };
  const given = Object.entries(flags).filter(([, f]) => f.value !== undefined) as Array<
    [SettingId, { flag: string; value: string | boolean }]
  >;
  for (const [id, f] of given) {
    const key = SETTING_KEYS[id];
    if (key.kind === 'number') {
      const n = typeof f.value === 'string' && f.value.trim() !== '' ? Number(f.value) : Number.NaN;
      if (!Number.isFinite(n)) throw new UsageError(`${f.flag} must be a number, not ${JSON.stringify(f.value)}`);
      raw[id] = n;
    } else {
      raw[id] = f.value;
    }
  }
  const { settings, problems } = resolveSettings(raw);
  for (const [id, f] of given) {
    const problem = problems.find((p) => keysOfProblem(p).includes(id));
    if (problem) throw new UsageError(`${f.flag}: ${withoutFallback(problem.slice(problem.indexOf(':') + 1))}`);
  }
  // What is left and names a key of the base was set there. A problem of a key nobody set (the default
  // output limit capped to a small --context-window) is the rules' own fix, as in VS Code.
  const fromBase = problems.filter(
    (p) => base !== undefined && keysOfProblem(p).some((id) => base.raw[id] !== undefined),
  );
  if (base && fromBase.length > 0) throw new UsageError(`${base.from}: ${fromBase.map(withoutFallback).join('; ')}`);
  return settings;
}

/** Problems that resolveSettings words about keys together, by how they start, and the keys behind them. */
const JOINT_PROBLEMS: Array<[string, SettingId[]]> = [
  [
    'engram.compaction marks ',
    ['compaction.microcompactPercent', 'compaction.sessionMemoryPercent', 'compaction.fullPercent'],
  ],
  ['engram.compaction.keepMaxTokens (', ['compaction.keepMaxTokens', 'compaction.keepMinTokens']],
];

/** The settings a problem line is about: the key it starts with, or all keys of a joint rule. */
function keysOfProblem(problem: string): SettingId[] {
  const joint = JOINT_PROBLEMS.find(([start]) => problem.startsWith(start));
  if (joint) return joint[1];
  return (Object.keys(SETTING_KEYS) as SettingId[]).filter(
    (id) => problem.startsWith(`engram.${id}:`) || problem.startsWith(`engram.${id} `),
  );
}

/** A problem without its "; using DEFAULT." tail: on the command line nothing falls back. */
function withoutFallback(problem: string): string {
  return problem.trim().replace(/; using .*$/, '');
}

/**
 * `--settings FILE`: a JSON object of settings as VS Code's settings.json spells them
 * ("engram.compaction.auto"), or without the "engram." prefix. Only the keys are checked here; their
 * values go through the same rules as the flags' in settingsFromFlags.
 */
export async function readSettingsFile(file: string, shown = file): Promise<SettingsBase> {
  const from = `--settings ${shown}`;
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    if (isErrno(e, 'ENOENT', 'ENOTDIR')) throw new UsageError(`${from}: no such file`);
    if (isErrno(e, 'EISDIR')) throw new UsageError(`${from}: is a folder, not a file`);
    throw new UsageError(`${from}: cannot be read (${e instanceof Error ? e.message : String(e)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${from}: not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new UsageError(`${from}: must hold a JSON object of settings, like {"engram.contextWindow": 100000}`);
  }
  const raw: RawSettings = {};
  for (const [key, value] of Object.entries(parsed)) {
    const id = settingIdOf(key);
    if (id === undefined)
      throw new UsageError(`${from}: unknown setting "${key}"; it must be one of the engram.* settings: ${allKeys()}`);
    // "engram.x" and "x" in one file: which one wins would be an accident of key order.
    if (id in raw) throw new UsageError(`${from}: engram.${id} is set twice (with and without the "engram." prefix)`);
    raw[id] = value;
  }
  return { raw, from };
}

function settingIdOf(key: string): SettingId | undefined {
  const id = key.startsWith('engram.') ? key.slice('engram.'.length) : key;
  return Object.hasOwn(SETTING_KEYS, id) ? (id as SettingId) : undefined;
}

function allKeys(): string {
  return Object.keys(SETTING_KEYS)
    .map((id) => `engram.${id}`)
    .join(', ');
}

/** "(default: N)" for a flag's help line, from the setting's declared default. */
export function defaultOf(id: SettingId): string {
  return String(SETTING_KEYS[id].default);
}

/**
 * Engram's data folder as every command finds it: `--data-dir`, else engram.dataDir (from `--settings`;
 * as in VS Code it beats the environment), else $ENGRAM_DATA_DIR, else ~/.engram; relative to `io.cwd`.
 */
export function dataDirOf(io: { cwd: string; env: Env }, flag: string | undefined, setting?: string): string {
  return path.resolve(
    io.cwd,
    flag ?? (setting || io.env.ENGRAM_DATA_DIR?.trim() || path.join(os.homedir(), '.engram')),
  );
}

/** `~` and `~/…` as the home folder, anything else relative to `cwd`. */
export function expandHome(p: string, cwd: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
  return path.resolve(cwd, p);
}

/** The `--cwd DIR` and `--data-dir DIR` options of the commands that work on one project's files. */
export function projectOptions(dataDirHelp: string): { cwd: OptionSpec; 'data-dir': OptionSpec } {
  return {
    cwd: { type: 'string', valueName: 'DIR', help: 'A folder of the project (default: the current folder).' },
    'data-dir': { type: 'string', valueName: 'DIR', help: dataDirHelp },
  };
}

/** The project folder (`--cwd`, checked to be a folder) and the data folder (`--data-dir`, as dataDirOf). */
export async function projectFolders(
  io: { cwd: string; env: Env },
  options: { cwd?: string | undefined; 'data-dir'?: string | undefined },
): Promise<{ cwd: string; dataDir: string }> {
  const cwd = expandHome(options.cwd ?? '.', io.cwd);
  if (!(await isDirectory(cwd))) throw new UsageError(`--cwd ${cwd} is not a folder`);
  const flag = options['data-dir'];
  return { cwd, dataDir: dataDirOf(io, flag === undefined ? undefined : expandHome(flag, io.cwd)) };
}
