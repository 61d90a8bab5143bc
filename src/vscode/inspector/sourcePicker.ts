import path from 'node:path';
import * as vscode from 'vscode';
import type { DiskSource } from '../../core/host/inspector';
import { showHiddenChars } from '../../protocol/hiddenChars';
import { loadEngine } from '../loadEngine';

/** What the inspector reads: the live session, or a project (and one of its sessions) under a data root. */
export type InspectorSourceState = { kind: 'current' } | DiskSource;

interface Pick<T> extends vscode.QuickPickItem {
  value: T;
}

/**
 * The sources picker: the current session, another session of this project, another project, or
 * Claude Code's folder (read-only except for pruning). Resolves undefined when the user cancels.
 */
// The picker has up to three steps, and the inspector may refresh (and take focus) while one is open:
// ignoreFocusOut keeps a step open until the user answers or presses Escape.
export async function pickInspectorSource(dataDir: string, cwd: string): Promise<InspectorSourceState | undefined> {
  const engine = loadEngine().inspector;
  const claudeDir = engine.claudeConfigDir();
  const choice = await vscode.window.showQuickPick<Pick<'current' | 'session' | 'project' | 'claude'>>(
    [
      {
        label: `$(comment-discussion) ${vscode.l10n.t('Current session')}`,
        description: vscode.l10n.t('What the chat is working with now'),
        value: 'current',
      },
      { label: `$(history) ${vscode.l10n.t('Another session of this project…')}`, value: 'session' },
      { label: `$(folder) ${vscode.l10n.t('Another project…')}`, description: dataDir, value: 'project' },
      {
        label: `$(folder-library) ${vscode.l10n.t("Claude Code's folder…")}`,
        description: claudeDir,
        detail: vscode.l10n.t(
          'Read-only, except pruning (Claude Code may be running: pruning asks first and writes atomically)',
        ),
        value: 'claude',
      },
    ],
    {
      title: vscode.l10n.t('Memory Inspector: show'),
      placeHolder: vscode.l10n.t('What should the inspector show?'),
      ignoreFocusOut: true,
    },
  );
  if (!choice) return undefined;
  if (choice.value === 'current') return { kind: 'current' };
  if (choice.value === 'session') {
    const projectDir = engine.projectDir(dataDir, cwd);
    const key = path.basename(projectDir);
    const sessionId = await pickSession(projectDir, false);
    if (!sessionId) return undefined;
    return {
      kind: 'session',
      root: dataDir,
      projectKey: key,
      sessionId,
      label: vscode.l10n.t('Session {0}', sessionId),
      readOnly: false,
    };
  }
  const root = choice.value === 'claude' ? claudeDir : dataDir;
  const projects = await engine.listProjects(root);
  if (projects.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No projects under {0}.', path.join(root, 'projects')));
    return undefined;
  }
  const project = await vscode.window.showQuickPick(
    projects.map(
      (p): Pick<string> => ({
        label: p.key,
        description:
          p.sessions === 1
            ? vscode.l10n.t('1 session{0}', p.hasMemory ? vscode.l10n.t(', memory') : '')
            : vscode.l10n.t('{0} sessions{1}', p.sessions, p.hasMemory ? vscode.l10n.t(', memory') : ''),
        detail: p.modified ? new Date(p.modified).toLocaleString() : undefined,
        value: p.key,
      }),
    ),
    { title: vscode.l10n.t('Memory Inspector: pick a project'), matchOnDescription: true, ignoreFocusOut: true },
  );
  if (!project) return undefined;
  const projectDir = path.join(root, 'projects', project.value);
  const sessionId = await pickSession(projectDir, true);
  if (sessionId === undefined) return undefined;
  const where = choice.value === 'claude' ? vscode.l10n.t('Claude Code ({0})', claudeDir) : vscode.l10n.t('Project');
  return {
    kind: choice.value,
    root,
    projectKey: project.value,
    sessionId: sessionId || undefined,
    label: `${where} · ${project.value}${sessionId ? ` · ${sessionId}` : ''}`,
    readOnly: choice.value === 'claude',
  };
}

/** '' stands for "memory only" (no session) when `allowNone`. */
async function pickSession(projectDir: string, allowNone: boolean): Promise<string | undefined> {
  const sessions = await loadEngine().inspector.sessionsOf(projectDir);
  const items: Array<Pick<string>> = sessions.map((s) => ({
    label: s.firstPrompt
      ? showHiddenChars(s.firstPrompt.replace(/\s+/g, ' ').slice(0, 80))
      : vscode.l10n.t('(no prompt)'),
    description: (s.lastMessageAt ?? s.mtime).toLocaleString(),
    detail: s.sessionId,
    value: s.sessionId,
  }));
  if (allowNone) items.push({ label: `$(database) ${vscode.l10n.t('No session: memory only')}`, value: '' });
  if (items.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('This project has no sessions yet.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Memory Inspector: pick a session'),
    matchOnDetail: true,
    ignoreFocusOut: true,
  });
  return picked?.value;
}
