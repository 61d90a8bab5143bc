// The VS Code profile Engram is shown in by `npm start`, the integration tests and the .vsix check: a
// newcomer's settings, minus what would cover Engram (VS Code's own chat, walkthroughs, tips) or reach
// the network (update checks, telemetry).
import fs from 'node:fs';
import path from 'node:path';

export const NEWCOMER_SETTINGS = {
  'chat.disableAIFeatures': true,
  'workbench.startupEditor': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
};

/** Writes `settings.json` at `file` (its folder made): the newcomer's settings with `extra` on top. */
export function writeProfileSettings(file, extra = {}) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...NEWCOMER_SETTINGS, ...extra }, null, 2));
}
