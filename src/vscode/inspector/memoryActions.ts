import { promises as fsp } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/host/sessions';
import type { MemoryEntryView, MemoryKind, TrashView } from '../../protocol/messages';
import { loadEngine } from '../loadEngine';
import type { InspectorPrompts } from './inspectorPrompts';

/** Where an action happens: the entry's memory folder, and whether that folder belongs to Claude Code. */
export interface ActionTarget {
  dir: string;
  readOnly: boolean;
}

export interface ActionResult {
  text: string;
  level: 'info' | 'warning' | 'error';
  /** A prune: the trash entry the inspector's own Undo button restores. */
  undo?: { trashId: string };
}

/**
 * The memory tree's actions. Pruning is never final: the index line and the file go to the trash inside
 * the memory folder, and Undo (in the notification, and in the inspector's trash list) puts back the same
 * bytes. Only "delete for good" loses data, and it asks a second time. In Claude Code's folder only
 * pruning is allowed, after a warning that Claude Code may be writing there too.
 */
export class MemoryActions {
  constructor(
    private readonly logger: Logger,
    private readonly changed: () => void,
    private readonly prompts: () => InspectorPrompts,
  ) {}

  /** Takes back a "not relevant": the entry may be recalled again for those words. */
  async undoNotRelevant(target: ActionTarget, entry: MemoryEntryView, words: string[]): Promise<ActionResult> {
    try {
      await loadEngine().inspector.setNotRelevant(target.dir, entry.file, words, true, this.logger);
      return {
        text: vscode.l10n.t('{0} may be recalled again for: {1}', entry.title, words.join(', ')),
        level: 'info',
      };
    } catch (e) {
      return { text: vscode.l10n.t('Could not undo: {0}', e instanceof Error ? e.message : String(e)), level: 'error' };
    }
  }

  async rename(target: ActionTarget, entry: MemoryEntryView): Promise<ActionResult | undefined> {
    if (target.readOnly) return readOnlyRefusal();
    const title = await vscode.window.showInputBox({
      title: vscode.l10n.t('Rename memory'),
      prompt: vscode.l10n.t('The title of its line in MEMORY.md'),
      value: entry.title,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('A title is needed.')),
    });
    if (title === undefined) return undefined;
    const file = await vscode.window.showInputBox({
      title: vscode.l10n.t('Rename memory'),
      prompt: vscode.l10n.t('The topic file, relative to the memory folder'),
      value: entry.file,
      valueSelection: [entry.file.lastIndexOf('/') + 1, entry.file.length - 3],
      ignoreFocusOut: true,
      validateInput: (v) => fileNameProblem(v),
    });
    if (file === undefined) return undefined;
    if (title.trim() === entry.title && file.trim() === entry.file) return undefined;
    return this.run(
      () => loadEngine().inspector.renameEntry(target.dir, entry.file, { title: title.trim(), file: file.trim() }),
      vscode.l10n.t('Renamed "{0}".', title.trim()),
    );
  }

  async changeType(target: ActionTarget, entry: MemoryEntryView): Promise<ActionResult | undefined> {
    if (target.readOnly) return readOnlyRefusal();
    const types = loadEngine().inspector.MEMORY_TYPES;
    const picked = await vscode.window.showQuickPick(
      types.map((t) => ({
        label: t,
        description: t === entry.type ? vscode.l10n.t('current') : typeDescription(t),
        value: t,
      })),
      { title: vscode.l10n.t('Type of "{0}"', entry.title) },
    );
    if (!picked || picked.value === entry.type) return undefined;
    return this.run(
      () => loadEngine().inspector.changeType(target.dir, entry.file, picked.value as MemoryKind),
      vscode.l10n.t('"{0}" is now a {1} memory.', entry.title, picked.value),
    );
  }

  /** `undone` hears how an Undo chosen in the notification went, so the inspector's status line follows. */
  async prune(
    target: ActionTarget,
    entry: MemoryEntryView,
    undone: (result: ActionResult) => void = () => undefined,
  ): Promise<ActionResult | undefined> {
    if (target.readOnly) {
      const go = await this.prompts().confirm(
        vscode.l10n.t('Prune "{0}" from Claude Code\'s memory?', entry.title),
        vscode.l10n.t(
          'Claude Code may be running and writing this folder at the same time. Its line leaves MEMORY.md ' +
            '(rewritten atomically) and the file moves to the trash inside the memory folder, where Undo can ' +
            'restore it.',
        ),
        vscode.l10n.t('Prune'),
      );
      if (!go) return undefined;
    }
    let id: string;
    try {
      id = (await loadEngine().inspector.pruneEntry(target.dir, entry.file)).id;
    } catch (error) {
      return this.failed(error);
    }
    this.changed();
    void this.prompts()
      .offerUndo(vscode.l10n.t('Pruned "{0}": its line left MEMORY.md and the file is in the trash.', entry.title))
      .then(async (undo) => {
        if (!undo) return;
        const result = await this.restore(target, { id, file: entry.file, title: entry.title });
        if (result.level === 'error') void vscode.window.showErrorMessage(result.text);
        undone(result);
      });
    // The status line promises only what always shows: VS Code in a browser (npm start) shows no notification here.
    return {
      text: vscode.l10n.t('Pruned "{0}". Undo puts it back (here, or later under Recently pruned).', entry.title),
      level: 'info',
      undo: { trashId: id },
    };
  }

  async restore(target: ActionTarget, item: Pick<TrashView, 'id' | 'file' | 'title'>): Promise<ActionResult> {
    const name = item.title ?? item.file;
    try {
      await loadEngine().inspector.restoreEntry(target.dir, item.id);
    } catch (error) {
      // A second Undo (the notification's after the inspector's, or the reverse) finds the trash empty.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.alreadyRestored(target, item.file, name);
      return this.failed(error);
    }
    this.changed();
    return { text: vscode.l10n.t('Restored "{0}".', name), level: 'info' };
  }

  /** The entry's trash is gone: restored already when its file is back, else deleted for good. */
  async alreadyRestored(target: ActionTarget, file: string, name: string): Promise<ActionResult> {
    this.changed();
    const back = await fsp.stat(path.join(target.dir, file)).then(
      (s) => s.isFile(),
      () => false,
    );
    return back
      ? { text: vscode.l10n.t('"{0}" was already restored.', name), level: 'info' }
      : { text: vscode.l10n.t('"{0}" is no longer in the trash (it was deleted for good).', name), level: 'warning' };
  }

  async deleteForGood(target: ActionTarget, item: TrashView): Promise<ActionResult | undefined> {
    const go = await this.prompts().confirm(
      vscode.l10n.t('Delete the pruned memory {0} for good?', item.file),
      vscode.l10n.t('It can no longer be restored afterwards.'),
      vscode.l10n.t('Delete for good'),
    );
    if (!go) return undefined;
    return this.run(
      () => loadEngine().inspector.deleteTrashEntry(target.dir, item.id),
      vscode.l10n.t('Deleted {0} for good.', item.file),
    );
  }

  private async run(action: () => Promise<unknown>, done: string): Promise<ActionResult> {
    try {
      await action();
    } catch (error) {
      return this.failed(error);
    }
    this.changed();
    return { text: done, level: 'info' };
  }

  private failed(error: unknown): ActionResult {
    this.logger.warn(`inspector: memory action failed: ${String(error)}`);
    this.changed();
    return { text: error instanceof Error ? error.message : String(error), level: 'error' };
  }
}

function readOnlyRefusal(): ActionResult {
  return { text: vscode.l10n.t("Claude Code's folder is read-only here; only pruning is allowed."), level: 'warning' };
}

function typeDescription(type: string): string {
  switch (type) {
    case 'user':
      return vscode.l10n.t('about the user: role, preferences, knowledge');
    case 'feedback':
      return vscode.l10n.t('how to work: corrections and confirmed approaches');
    case 'project':
      return vscode.l10n.t('the project: goals, decisions, deadlines');
    default:
      return vscode.l10n.t('where to find things outside the code');
  }
}

function fileNameProblem(value: string): string | undefined {
  const v = value.trim();
  if (!v.toLowerCase().endsWith('.md')) return vscode.l10n.t('A topic file is Markdown: its name ends in .md.');
  if (v.split(/[\\/]/).some((s) => s === '..' || s.startsWith('.')))
    return vscode.l10n.t('No ".." and no hidden folders.');
  if (v.startsWith('/') || /^[A-Za-z]:/.test(v)) return vscode.l10n.t('The name is relative to the memory folder.');
  return undefined;
}
