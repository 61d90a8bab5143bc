// Team memory in one session (DESIGN 4, issue 11): whether it is on, and its syncs. It is on only when
// the setting asks for it, the workspace is trusted, auto memory is on, and the project is a git
// repository with an `origin` remote (the repository names the team memory on the server). It syncs
// only with a server URL (the host's, e.g. ENGRAM_TEAM_SERVER, else the setting) and an access token
// (the host's: Secret Storage, ENGRAM_TEAM_TOKEN): once as the session opens (waited for a short while
// so the first prompt sees what was pulled), after each write into the team folder (debounced), and on
// demand. Every report reaches the listener; reports from before a listener was there are handed to the
// first one, after the opening code has had its turn to subscribe.
import { confinedTeamDir } from '../memory/autoMemory/memoryPaths';
import type { SessionPaths } from '../memory/sessionPaths';
import { repoSlugAtRoot } from '../memory/team/repoSlug';
import { TeamSyncScheduler } from '../memory/team/syncScheduler';
import { syncTeamMemory } from '../memory/team/teamSync';
import type { TeamSyncReport } from '../memory/team/teamSyncTypes';
import type { EngramSettings } from '../settings/engramSettings';
import { say, type NoticeWords } from './sessionEvents';

/** How long opening a session waits for its first sync before composing the prompt without it. */
export const TEAM_START_SYNC_WAIT_MS = 2_000;

/** What the host brings for team memory: the credentials the settings do not hold. */
export interface TeamMemoryHostOptions {
  /** The access token (VS Code: Secret Storage; the CLI: ENGRAM_TEAM_TOKEN). Without one nothing syncs. */
  token?: string;
  /** Overrides engram.teamMemory.serverUrl (the CLI: ENGRAM_TEAM_SERVER). */
  serverUrl?: string;
  /** Tests: the debounce after a team write (default TEAM_SYNC_DEBOUNCE_MS). */
  debounceMs?: number;
}

/** Team memory as a host shows it. */
export type TeamMemoryState =
  | { on: false; reason: string }
  | {
      on: true;
      repo: string;
      /** `<memory>/team`. */
      dir: string;
      /** Null when no server URL is known. */
      serverUrl: string | null;
      /** A server URL and a token are known, so the session syncs. */
      canSync: boolean;
      /** Why it does not sync, when canSync is false. */
      syncOffReason?: string;
      lastReport: TeamSyncReport | null;
    };

export interface TeamMemoryDecision {
  state: TeamMemoryState;
  /** A line for the session's warnings when the setting asked for team memory and it is off. */
  warning?: string;
}

/** Whether team memory is on for the session at `paths`, and where. Never throws. */
export async function decideTeamMemory(opts: {
  settings: EngramSettings;
  trusted: boolean;
  paths: SessionPaths;
  host?: TeamMemoryHostOptions;
}): Promise<TeamMemoryDecision> {
  const { paths } = opts;
  const s = opts.settings;
  if (!s.teamMemory.enabled) return { state: { on: false, reason: 'engram.teamMemory.enabled is off' } };
  if (!opts.trusted) return { state: { on: false, reason: 'the workspace is not trusted' } };
  if (!s.memory.enabled) return off('auto memory (engram.memory.enabled) is off');
  const repo = await repoSlugAtRoot(paths.gitRoot);
  if (!repo)
    return off(
      `${paths.cwd} is not in a git repository with an origin remote (owner/repo), which names the team memory`,
    );
  let dir: string;
  try {
    dir = confinedTeamDir(paths.memoryDir, paths.teamDir);
  } catch (e) {
    return off(e instanceof Error ? e.message : String(e));
  }
  const serverUrl = opts.host?.serverUrl?.trim().replace(/\/+$/, '') || s.teamMemory.serverUrl || null;
  const token = opts.host?.token?.trim() || undefined;
  const syncOffReason = !serverUrl
    ? 'no team server URL (engram.teamMemory.serverUrl or ENGRAM_TEAM_SERVER)'
    : !token
      ? 'no access token (Engram: Set Team Memory Token, or ENGRAM_TEAM_TOKEN)'
      : undefined;
  return {
    state: {
      on: true,
      repo,
      dir,
      serverUrl,
      canSync: syncOffReason === undefined,
      ...(syncOffReason ? { syncOffReason } : {}),
      lastReport: null,
    },
  };
}

function off(reason: string): TeamMemoryDecision {
  return { state: { on: false, reason }, warning: `Team memory is off for this session: ${reason}.` };
}

/** The syncs of one session's team memory. */
export class TeamMemoryLink {
  private scheduler: TeamSyncScheduler | undefined;
  private readonly controller = new AbortController();
  private listener: ((report: TeamSyncReport) => void) | undefined;
  private readonly unheard: TeamSyncReport[] = [];
  private soonPending = false;
  private token: string | undefined;
  private disposed = false;

  constructor(
    private current: TeamMemoryState,
    private readonly host: TeamMemoryHostOptions = {},
  ) {
    this.token = host.token?.trim() || undefined;
    this.ensureScheduler();
  }

  get state(): TeamMemoryState {
    return this.current;
  }

  /** The first sync; resolves when it is done or after `waitMs`, whichever is first (it goes on after). */
  async startSync(waitMs = TEAM_START_SYNC_WAIT_MS): Promise<void> {
    if (!this.scheduler) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    await Promise.race([
      this.scheduler.request().then(
        () => undefined,
        () => undefined,
      ),
      waited,
    ]);
    clearTimeout(timer);
  }

  /** Syncs now (the "Sync Team Memory" command). Rejects, saying why, when this session cannot sync. */
  sync(): Promise<TeamSyncReport> {
    if (!this.current.on) return Promise.reject(new Error(`Team memory is off: ${this.current.reason}.`));
    if (!this.scheduler || !this.current.canSync)
      return Promise.reject(new Error(`Team memory cannot sync: ${this.current.syncOffReason ?? 'no server'}.`));
    return this.scheduler.request();
  }

  /** A memory was written into the team folder: sync once the writes settle. */
  wrote(): void {
    if (!this.scheduler || !this.current.on || !this.current.canSync) return;
    this.soonPending = true;
    this.scheduler.requestSoon();
  }

  /** A new token from the host (the user set it); takes effect from the next sync. */
  setToken(token: string | undefined): void {
    this.token = token?.trim() || undefined;
    if (!this.current.on || !this.current.serverUrl) return;
    const { syncOffReason: _dropped, ...rest } = this.current;
    this.current = this.token
      ? { ...rest, canSync: true }
      : {
          ...rest,
          canSync: false,
          syncOffReason: 'no access token (Engram: Set Team Memory Token, or ENGRAM_TEAM_TOKEN)',
        };
    this.ensureScheduler();
  }

  /** Runs a sync the debounce is still holding back, so a write just before the end is not left behind. */
  async flush(): Promise<void> {
    if (this.scheduler && this.soonPending) await this.scheduler.request().catch(() => undefined);
  }

  /** Hears every report; those that came before it are handed over on the next tick. */
  listen(listener: (report: TeamSyncReport) => void): void {
    this.listener = listener;
    if (this.unheard.length === 0) return;
    setTimeout(() => {
      for (const r of this.unheard.splice(0)) this.listener?.(r);
    }, 0);
  }

  dispose(): void {
    this.disposed = true;
    this.scheduler?.dispose();
    this.controller.abort();
    this.listener = undefined;
    this.unheard.length = 0;
  }

  private ensureScheduler(): void {
    const on = this.current;
    if (this.scheduler || this.disposed || !on.on || !on.serverUrl || !this.token) return;
    const serverUrl = on.serverUrl;
    this.scheduler = new TeamSyncScheduler(
      () => {
        this.soonPending = false;
        return syncTeamMemory({
          teamDir: on.dir,
          repo: on.repo,
          serverUrl,
          token: this.token ?? '',
          signal: this.controller.signal,
        });
      },
      {
        ...(this.host.debounceMs !== undefined ? { debounceMs: this.host.debounceMs } : {}),
        onReport: (r) => this.report(r),
      },
    );
  }

  private report(report: TeamSyncReport): void {
    if (this.current.on) this.current = { ...this.current, lastReport: report };
    if (this.listener && this.unheard.length === 0) this.listener(report);
    else this.unheard.push(report);
  }
}

/** What a person is told about a sync, in words; undefined when nothing worth a line happened. */
export function teamSyncNotice(
  report: TeamSyncReport,
): { level: 'info' | 'warning'; text: string; words: NoticeWords } | undefined {
  if (!report.ok)
    return { level: 'warning', ...say('Team memory sync failed: {0}.', report.error ?? 'no reason given') };
  if (report.blocked.length > 0) {
    const files = report.blocked.map((b) => `${b.path} (${b.kind}, rule ${b.rule}, line ${b.line})`).join(', ');
    return {
      level: 'warning',
      ...(report.blocked.length === 1
        ? say('Team memory: 1 file was not uploaded because it holds a secret: {0}.', files)
        : say(
            'Team memory: {0} files were not uploaded because they hold a secret: {1}.',
            report.blocked.length,
            files,
          )),
    };
  }
  const conflicts = report.pulled.filter((p) => p.reason === 'conflict');
  if (conflicts.length > 0) {
    const kept = conflicts.map((c) => `${c.path}${c.keptAt ? ` (yours is kept at ${c.keptAt})` : ''}`).join(', ');
    return { level: 'warning', ...say("Team memory: the server's version won over your local edit of {0}.", kept) };
  }
  if (report.pulled.length + report.pushed.length + report.skipped.length === 0) return undefined;
  const counts = [report.server, report.pulled.length, report.pushed.length] as const;
  if (report.skipped.length === 0)
    return { level: 'info', ...say('Team memory synced with {0}: {1} pulled, {2} pushed.', ...counts) };
  const skipped = report.skipped.map((s) => `${s.path}: ${s.detail}`).join('; ');
  return {
    level: 'info',
    ...say(
      'Team memory synced with {0}: {1} pulled, {2} pushed, {3} skipped ({4}).',
      ...counts,
      report.skipped.length,
      skipped,
    ),
  };
}
