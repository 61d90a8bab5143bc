// The only place Engram reads VS Code's configuration. Every `engram.*` key declared in core's
// SETTING_KEYS is read here into one SettingsStore, which is refreshed (and fires its change event) when
// the user edits a setting, so the gauge, the orchestrator and the inspector all follow at once.
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import {
  SETTING_KEYS,
  SettingsStore,
  type EngramSettings,
  type RawSettings,
  type SettingId,
} from '../core/host/config';
import type { Logger } from '../core/host/sessions';

/**
 * A conversation with the offline demo stays a few thousand tokens long, so at the usual thresholds its
 * session notes would never be written: with the demo on, they start and update at the smallest sizes
 * the settings allow, unless the user set them.
 */
const DEMO_NOTES_THRESHOLDS: RawSettings = {
  'sessionNotes.initTokens': 1_000,
  'sessionNotes.updateGrowthTokens': 500,
  'sessionNotes.updateGrowthPercent': 0,
  'sessionNotes.updateToolCalls': 1,
};

function readRaw(): RawSettings {
  const config = vscode.workspace.getConfiguration('engram');
  const raw: RawSettings = {};
  for (const id of Object.keys(SETTING_KEYS) as SettingId[]) raw[id] = config.get(id);
  const demo = raw.offlineDemo === true || process.env.ENGRAM_OFFLINE_DEMO === '1';
  // No model chosen in the settings: Claude Code's ANTHROPIC_MODEL decides, as it does in `engram -p`.
  const envModel = process.env.ANTHROPIC_MODEL?.trim();
  if (envModel && !demo && !setInSettings(config, 'model')) raw.model = envModel;
  if (demo) {
    for (const [id, value] of Object.entries(DEMO_NOTES_THRESHOLDS) as Array<[SettingId, unknown]>) {
      if (!setInSettings(config, id)) raw[id] = value;
    }
  }
  return raw;
}

/** Whether the person set `id` in any settings scope (its default does not count). */
function setInSettings(config: vscode.WorkspaceConfiguration, id: string): boolean {
  const set = config.inspect(id);
  return [set?.globalValue, set?.workspaceValue, set?.workspaceFolderValue].some((v) => v !== undefined);
}

let store: SettingsStore | undefined;

/** The settings store of this extension host, created on first use and kept in step with the configuration. */
export function settingsStore(): SettingsStore {
  store ??= new SettingsStore(readRaw());
  return store;
}

/** The current settings. */
export function settings(): EngramSettings {
  return settingsStore().settings;
}

/** Follows configuration changes; problems (a value out of range, marks out of order) go to the log. */
export function watchSettings(logger: Logger): vscode.Disposable {
  const current = settingsStore();
  for (const problem of current.problems) logger.warn(`Settings: ${problem}`);
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration('engram')) return;
    current.update(readRaw());
    for (const problem of current.problems) logger.warn(`Settings: ${problem}`);
  });
}

/** Where transcripts, notes and memory live: the setting, else ENGRAM_DATA_DIR, else ~/.engram. */
export function dataDir(): string {
  const dir = settings().dataDir || process.env.ENGRAM_DATA_DIR || path.join(os.homedir(), '.engram');
  return dir.startsWith('~') ? path.join(os.homedir(), dir.slice(1)) : path.resolve(dir);
}

/** The folder the agent works in: the first workspace folder (the home folder when none is open). */
export function workspaceCwd(): string {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  return folder ? folder.uri.fsPath : os.homedir();
}

/** Whether the agent may use tools and read project instructions here. */
export function workspaceTrusted(): boolean {
  return vscode.workspace.isTrusted;
}
