// The diff views of checkpoints (issue 33): a turn's change (its before-snapshot against its after-snapshot)
// and a rewind's preview (the workspace now against what the rewind writes back), in VS Code's multi-file
// diff editor. Both sides are read-only documents served from the shadow repository.
import * as vscode from 'vscode';
import { workspaceCwd } from '../settings';
import type { CodeRewindPlan, RewindableSession, SessionTurn, TurnCheckpoint } from './checkpointApi';

export const CHECKPOINT_SCHEME = 'engram-checkpoint';

/** Serves `engram-checkpoint:/<path>?<commit>`: the file at that snapshot, empty where it did not exist. */
export class CheckpointDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly registration: vscode.Disposable;

  constructor(private readonly session: () => RewindableSession | undefined) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const checkpoints = this.session()?.checkpoints;
    if (!checkpoints?.available || !uri.query) return '';
    const content = await checkpoints.readFile(uri.query, uri.path.replace(/^\//, ''));
    return content?.toString('utf8') ?? '';
  }

  dispose(): void {
    this.registration.dispose();
  }
}

/** A file at a snapshot (no commit: a document with nothing in it, the side where the file did not exist). */
export function snapshotUri(commit: string | undefined, path: string): vscode.Uri {
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${path}`, query: commit ?? '' });
}

function workspaceUri(path: string): vscode.Uri {
  const cwd = workspaceCwd();
  return cwd ? vscode.Uri.joinPath(vscode.Uri.file(cwd), path) : vscode.Uri.file(path);
}

/** The turn's change: before the agent's first change in it against the workspace as it ended. */
export async function openTurnDiff(checkpoint: TurnCheckpoint, path?: string): Promise<void> {
  const files = checkpoint.files.filter((f) => path === undefined || f.path === path);
  if (files.length === 0) return;
  const title =
    files.length === 1
      ? vscode.l10n.t('{0}: turn {1}', files[0].path, checkpoint.turn)
      : vscode.l10n.t('Turn {0}: {1} files changed', checkpoint.turn, files.length);
  if (path !== undefined) {
    await vscode.commands.executeCommand(
      'vscode.diff',
      snapshotUri(checkpoint.before, path),
      snapshotUri(checkpoint.after, path),
      title,
      { preview: true },
    );
    return;
  }
  await vscode.commands.executeCommand(
    'vscode.changes',
    title,
    files.map((f) => [
      workspaceUri(f.path),
      snapshotUri(f.change === 'added' ? undefined : checkpoint.before, f.path),
      snapshotUri(f.change === 'deleted' ? undefined : checkpoint.after, f.path),
    ]),
  );
}

/**
 * The snapshot a rewind takes `path` back to: the workspace before the first undone turn that changed it
 * (every turn after `toTurn` is undone), undefined when the file did not exist then.
 */
export function targetCommit(turns: readonly SessionTurn[], toTurn: number, path: string): string | undefined {
  for (const t of turns) {
    const c = t.checkpoint;
    if (t.turn > toTurn && c?.before && c.files.some((f) => f.path === path))
      return c.files.find((f) => f.path === path)?.change === 'added' ? undefined : c.before;
  }
  return undefined;
}

/** The preview of a code rewind: each file it writes now against what it writes back ("now ↔ after turn N"). */
export async function openRewindPreview(plan: CodeRewindPlan, turns: readonly SessionTurn[]): Promise<void> {
  // A conflict is left as the person made it: it is named in the question, not shown as a change.
  const files = plan.files.filter((f) => !f.conflict);
  if (files.length === 0) return;
  await vscode.commands.executeCommand(
    'vscode.changes',
    vscode.l10n.t('Now ↔ after turn {0}', plan.toTurn),
    files.map((f) => [
      workspaceUri(f.path),
      snapshotUri(f.now === undefined ? undefined : plan.now, f.path),
      snapshotUri(f.action === 'delete' ? undefined : targetCommit(turns, plan.toTurn, f.path), f.path),
    ]),
  );
}
