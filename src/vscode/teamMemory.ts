// Team memory in VS Code: the access token in Secret Storage ("Engram: Set Team Memory Token"), and
// "Engram: Sync Team Memory": checks what a sync needs (a trusted workspace, the setting, a server, a
// token, a repository), runs it through the open session (so its scheduler and events stay in step)
// or on its own when no session is open, and says the result in words.
import * as vscode from 'vscode';
import type { Logger } from '../core/host/sessions';
import type { TeamSyncReport } from '../core/host/team';
import { loadEngine } from './loadEngine';
import { dataDir, settings, workspaceCwd, workspaceTrusted } from './settings';
import type { ContextStatusBar } from './statusBar';
import { describeTeamSync, teamSyncTooltip } from './teamSyncText';

/** The SecretStorage key of the team server's access token (never in settings or on disk). */
export const TEAM_TOKEN_SECRET = 'engram.teamMemoryToken';

/** The token a session syncs with: Secret Storage, else ENGRAM_TEAM_TOKEN (as the CLI reads it). */
export async function teamMemoryToken(secrets: vscode.SecretStorage): Promise<string | undefined> {
  return (await secrets.get(TEAM_TOKEN_SECRET)) || process.env.ENGRAM_TEAM_TOKEN || undefined;
}

/** What the commands need of the chat: its open session's sync, and being told of a new token or a sync. */
export interface TeamSyncChat {
  /** The open session's sync, or undefined when no session with team memory on is open. */
  sessionSync(): Promise<TeamSyncReport> | undefined;
  teamTokenChanged(): Promise<void>;
  /** A sync ran outside the session: what the inspector shows changed. */
  teamSynced(): void;
}

/** What a command run ended with, for tests and other extensions (the person sees a notification). */
export interface TeamSyncOutcome {
  ok: boolean;
  text: string;
  report?: TeamSyncReport;
}

type Action = { label: string; run: () => Thenable<unknown> };

export class TeamMemoryCommands {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly chat: () => TeamSyncChat,
    private readonly statusBar: ContextStatusBar,
    private readonly logger: Logger,
  ) {}

  register(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand('engram.syncTeamMemory', () => this.sync()),
      vscode.commands.registerCommand('engram.setTeamMemoryToken', (token?: unknown) =>
        this.setToken(typeof token === 'string' ? token : undefined),
      ),
    ];
  }

  /** A report (the command's, or the session's at start and after team writes): the tooltip follows. */
  announce(report: TeamSyncReport): void {
    this.statusBar.setTeamSync(teamSyncTooltip(report, vscode.l10n.t, localTime));
  }

  /**
   * At activation and when settings change: with team memory on, the tooltip tells the last sync recorded
   * in the team folder.
   */
  async showLastSync(): Promise<void> {
    if (!settings().teamMemory.enabled || !workspaceTrusted()) {
      this.statusBar.setTeamSync(undefined);
      return;
    }
    const state = await loadEngine().readTeamSyncState(await this.teamDir());
    this.statusBar.setTeamSync(teamSyncTooltip(state?.lastSync ?? null, vscode.l10n.t, localTime));
  }

  /** `engram.setTeamMemoryToken`: asks in a password box unless given; an empty value clears it. */
  async setToken(given?: string): Promise<boolean> {
    const token =
      given ??
      (await vscode.window.showInputBox({
        title: vscode.l10n.t('Engram: Team Memory Token'),
        prompt: vscode.l10n.t(
          "The access token of your team's memory server, kept in VS Code Secret Storage. Leave empty to remove it.",
        ),
        password: true,
        ignoreFocusOut: true,
        validateInput: (v) => (/\s/.test(v.trim()) ? vscode.l10n.t('A token has no spaces.') : undefined),
      }));
    if (token === undefined) return false;
    if (token.trim() && /\s/.test(token.trim())) {
      void vscode.window.showErrorMessage(vscode.l10n.t('A token has no spaces.'));
      return false;
    }
    if (token.trim()) {
      await this.context.secrets.store(TEAM_TOKEN_SECRET, token.trim());
      void vscode.window.showInformationMessage(vscode.l10n.t('Engram: team memory token saved in Secret Storage.'));
    } else {
      await this.context.secrets.delete(TEAM_TOKEN_SECRET);
      void vscode.window.showInformationMessage(vscode.l10n.t('Engram: team memory token removed.'));
    }
    await this.chat().teamTokenChanged();
    return true;
  }

  /** `engram.syncTeamMemory`. */
  async sync(): Promise<TeamSyncOutcome> {
    const blocked = await this.cannotSync();
    if (blocked) return this.tell({ ok: false, text: blocked.text }, 'warning', blocked.actions);
    const token = (await teamMemoryToken(this.context.secrets))!;
    let report: TeamSyncReport;
    try {
      report = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Engram: syncing team memory'),
        },
        (progress) =>
          this.chat().sessionSync() ??
          this.syncAlone(token, (p) => {
            progress.report({
              message:
                p.phase === 'pull'
                  ? vscode.l10n.t('pulling {0} of {1}', p.done, p.total)
                  : vscode.l10n.t('pushing {0} of {1}', p.done, p.total),
            });
          }),
      );
    } catch (error) {
      // Network and server trouble come back in the report; this is a local failure (a folder it cannot write, ...).
      this.logger.error('Team memory sync failed', error);
      const text = vscode.l10n.t(
        'Engram: the team memory sync failed: {0}',
        error instanceof Error ? error.message : String(error),
      );
      return this.tell({ ok: false, text }, 'error', [this.logAction()]);
    }
    this.logger.info(
      `Team memory sync of ${report.repo} with ${report.server}: ${report.ok ? 'ok' : `failed: ${report.error}`}; ` +
        `pulled ${report.pulled.length}, pushed ${report.pushed.length}, ` +
        `skipped ${report.skipped.length}, blocked ${report.blocked.length}`,
    );
    this.announce(report);
    const message = describeTeamSync(report, vscode.l10n.t);
    const actions =
      message.level === 'info'
        ? []
        : report.ok
          ? [this.inspectorAction()]
          : [this.tokenAction(), this.settingsAction(), this.logAction()];
    return this.tell({ ok: report.ok, text: message.text, report }, message.level, actions);
  }

  /** Why no sync can run here, with what to do about it; undefined when it can. */
  private async cannotSync(): Promise<{ text: string; actions: Action[] } | undefined> {
    if (!workspaceTrusted()) {
      return {
        text: vscode.l10n.t(
          'Engram: team memory never syncs in an untrusted workspace, since its files would be shared with your ' +
            'team. Trust the workspace first.',
        ),
        actions: [
          {
            label: vscode.l10n.t('Manage Workspace Trust'),
            run: () => vscode.commands.executeCommand('workbench.trust.manage'),
          },
        ],
      };
    }
    const s = settings().teamMemory;
    if (!s.enabled)
      return {
        text: vscode.l10n.t(
          'Engram: team memory is off. Turn on the "engram.teamMemory.enabled" setting and set ' +
            '"engram.teamMemory.serverUrl".',
        ),
        actions: [this.settingsAction()],
      };
    if (!s.serverUrl)
      return {
        text: vscode.l10n.t('Engram: no team memory server. Set "engram.teamMemory.serverUrl" to your team\'s server.'),
        actions: [this.settingsAction()],
      };
    if (!(await teamMemoryToken(this.context.secrets))) {
      return {
        text: vscode.l10n.t(
          'Engram: no team memory token. Run "Engram: Set Team Memory Token" with the token your team\'s server ' +
            'gave you.',
        ),
        actions: [this.tokenAction()],
      };
    }
    if (!(await loadEngine().repoSlugOf(workspaceCwd()))) {
      return {
        text: vscode.l10n.t(
          'Engram: this workspace is not a git repository with an "origin" remote; team memory is shared per ' +
            'repository (owner/repo).',
        ),
        actions: [],
      };
    }
    return undefined;
  }

  /** A sync with no session open: the same client the session uses, on the same folder. */
  private async syncAlone(
    token: string,
    onProgress: (p: { phase: 'pull' | 'push'; done: number; total: number }) => void,
  ): Promise<TeamSyncReport> {
    const engine = loadEngine();
    const repo = (await engine.repoSlugOf(workspaceCwd()))!;
    const report = await engine.syncTeamMemory({
      teamDir: await this.teamDir(),
      repo,
      serverUrl: settings().teamMemory.serverUrl,
      token,
      onProgress,
    });
    this.chat().teamSynced();
    return report;
  }

  private async teamDir(): Promise<string> {
    const engine = loadEngine();
    return engine.teamMemoryDir(await engine.autoMemoryDir(dataDir(), workspaceCwd()));
  }

  /** Shows the outcome (never awaited: tests run without notifications) and returns it. */
  private tell(outcome: TeamSyncOutcome, level: 'info' | 'warning' | 'error', actions: Action[]): TeamSyncOutcome {
    const show =
      level === 'info'
        ? vscode.window.showInformationMessage
        : level === 'warning'
          ? vscode.window.showWarningMessage
          : vscode.window.showErrorMessage;
    void Promise.resolve(show(outcome.text, ...actions.map((a) => a.label))).then((picked) =>
      actions.find((a) => a.label === picked)?.run(),
    );
    return outcome;
  }

  private tokenAction(): Action {
    return {
      label: vscode.l10n.t('Set Token'),
      run: () => vscode.commands.executeCommand('engram.setTeamMemoryToken'),
    };
  }

  private settingsAction(): Action {
    return {
      label: vscode.l10n.t('Open Settings'),
      run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'engram.teamMemory'),
    };
  }

  private inspectorAction(): Action {
    return {
      label: vscode.l10n.t('Open Memory Inspector'),
      run: () => vscode.commands.executeCommand('engram.openInspector'),
    };
  }

  private logAction(): Action {
    return { label: vscode.l10n.t('Show Log'), run: () => vscode.commands.executeCommand('engram.showLog') };
  }
}

function localTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toLocaleString(vscode.env.language);
}
