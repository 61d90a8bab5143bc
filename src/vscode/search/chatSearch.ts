// Grep and Glob in the chat (issue 35): the ripgrep this editor ships (or engram.search.ripgrepPath),
// checked to run before a session uses it, and the workspace's files.exclude / search.exclude as the
// globs every search leaves out, read at each search so an edited setting applies to the next one. The
// choice is said once per session in Engram's log ("Search: ripgrep 15.0.0 (VS Code's bundled copy at
// …)"), and in `/context` and the inspector's context pane through the gauge.
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { describeRipgrepChoice, pickRipgrep, type RipgrepChoice, searchBoundsOf } from '../../core/host/config';
import type { SearchEngine, SearchEngineOptions, SessionSearch } from '../../core/host/search';
import type { Logger } from '../../core/host/sessions';
import type { GaugeState, SearchEngineView } from '../../protocol/messages';
import { settings } from '../settings';
import { bundledRipgrepPaths, workspaceExcludes } from './bundledRipgrep';

const BUNDLED = "VS Code's bundled copy";
const SETTING = 'engram.search.ripgrepPath';

let picked: { setting: string; choice: Promise<RipgrepChoice> } | undefined;
let latest: RipgrepChoice | undefined;

/**
 * The ripgrep this window's sessions use: looked for on first use and again when engram.search.ripgrepPath
 * changes. A path set there is the only one tried (when it does not run, the reason names the setting).
 */
export function windowRipgrep(): Promise<RipgrepChoice> {
  const setting = settings().search.ripgrepPath;
  if (picked?.setting !== setting) {
    const candidates = setting
      ? [{ path: expandHome(setting), source: SETTING, required: true }]
      : bundledRipgrepPaths(vscode.env.appRoot, process.platform, process.arch).map((p) => ({
          path: p,
          source: BUNDLED,
        }));
    const choice = pickRipgrep(candidates).then((c) => {
      latest = c;
      return c;
    });
    picked = { setting, choice };
  }
  return picked.choice;
}

/**
 * What a session opening now searches with: the engine `create` makes for the ripgrep found (the engine
 * chunk's createSearchEngine: the JavaScript engine when there is none), said in the log, and the
 * bounds, read when each turn starts (time limit, size cap, the workspace's excludes).
 */
export async function sessionSearch(
  logger: Logger,
  create: (opts: SearchEngineOptions) => Promise<SearchEngine>,
): Promise<SessionSearch> {
  const ripgrep = await windowRipgrep();
  logger.info(`Search: ${describeRipgrepChoice(ripgrep)}`);
  const { conditional } = excludes();
  if (conditional.length > 0)
    logger.info(
      `Search: exclude entries with a "when" condition are searched anyway (a glob cannot say "beside a sibling"): ` +
        conditional.join(', '),
    );
  const engine = await create(
    ripgrep.found ? { rgPath: ripgrep.path, source: ripgrep.source, version: ripgrep.version } : {},
  );
  // The excludes are relative to the workspace folder: a search below it rebases them (hostExcludes.ts).
  return {
    engine,
    bounds: () => ({ ...searchBoundsOf(settings(), excludes().globs), excludesRoot: workspaceFolder()?.fsPath }),
  };
}

function workspaceFolder(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri;
}

/** files.exclude and search.exclude of the workspace folder sessions work in, as VS Code's own search reads them. */
function excludes(): ReturnType<typeof workspaceExcludes> {
  const folder = workspaceFolder();
  return workspaceExcludes(
    vscode.workspace.getConfiguration('files', folder).get<Record<string, unknown>>('exclude'),
    vscode.workspace.getConfiguration('search', folder).get<Record<string, unknown>>('exclude'),
  );
}

/** The gauge with the engine Grep and Glob run on (for `/context` and the inspector), once it was looked for. */
export function withSearchEngine(gauge: GaugeState): GaugeState {
  if (!latest) return gauge;
  const search: SearchEngineView = latest.found
    ? {
        engine: 'ripgrep',
        version: latest.version,
        source: latest.source === SETTING ? 'setting' : 'bundled',
        path: latest.path,
      }
    : { engine: 'javascript', reason: latest.reasons.join('; ') };
  return { ...gauge, search };
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : path.resolve(p);
}
