import * as vscode from 'vscode';
import type { MergeResult } from '../../core/host/memory';
import type { Logger } from '../../core/host/sessions';
import { showHiddenChars } from '../../protocol/hiddenChars';
import type { EntryGroup, MemoryEntryView } from '../../protocol/messages';
import { loadEngine } from '../loadEngine';
import type { InspectorPrompts } from './inspectorPrompts';
import type { ActionResult, ActionTarget } from './memoryActions';

/** What one Undo of the cap banner takes back: several prunes, or a merge. */
type Batch =
  | { kind: 'prune'; dir: string; trashIds: string[]; count: number }
  | { kind: 'merge'; dir: string; file: string; trashIds: string[]; title: string };

/**
 * The cap banner's actions. "Prune least used…" lists the index's entries least used first, with the
 * fewest that bring MEMORY.md back under the warning mark already checked; "Merge…" combines entries of
 * one type into the first one's file (no model call) and opens it. Both go through the engine's prune
 * path, so one Undo (in the notification or in the inspector's status line) puts every file and line back.
 */
export class CapActions {
  private readonly batches = new Map<string, Batch>();
  private next = 0;

  constructor(
    private readonly logger: Logger,
    private readonly changed: () => void,
    private readonly prompts: () => InspectorPrompts,
  ) {}

  /** The id is one of this panel's batch Undos (not a trash id). */
  owns(id: string): boolean {
    return this.batches.has(id);
  }

  async pruneLeastUsed(
    target: ActionTarget,
    undone: (result: ActionResult) => void,
  ): Promise<ActionResult | undefined> {
    const engine = loadEngine().inspector;
    const candidates = await engine.pruneCandidates(target.dir);
    if (candidates.length === 0) return { text: vscode.l10n.t('MEMORY.md has no entries to prune.'), level: 'info' };
    const picked = await vscode.window.showQuickPick(
      candidates.map((c) => ({
        label: showHiddenChars(c.title),
        description: c.uses === 0 ? vscode.l10n.t('never used') : vscode.l10n.t('used {0}×', c.uses),
        detail: c.lastUsed
          ? vscode.l10n.t(
              '{0} · line {1} · last used {2}',
              c.file,
              c.line,
              new Date(c.lastUsed).toLocaleString(vscode.env.language),
            )
          : vscode.l10n.t('{0} · line {1}', c.file, c.line),
        picked: c.suggested,
        file: c.file,
      })),
      {
        title: vscode.l10n.t('Prune least used memories'),
        placeHolder: vscode.l10n.t(
          'Least used first; checked: the fewest that bring MEMORY.md back under 80% of its cap',
        ),
        canPickMany: true,
        matchOnDetail: true,
        ignoreFocusOut: true,
      },
    );
    if (!picked || picked.length === 0) return undefined;
    if (
      target.readOnly &&
      !(await this.prompts().confirm(
        vscode.l10n.t("Prune {0} memories from Claude Code's memory?", picked.length),
        vscode.l10n.t(
          'Claude Code may be running and writing this folder at the same time. Their lines leave MEMORY.md and ' +
            'the files move to the trash, where Undo can restore them.',
        ),
        vscode.l10n.t('Prune'),
      ))
    )
      return undefined;
    const trashIds: string[] = [];
    let failure: unknown;
    for (const p of picked) {
      try {
        trashIds.push((await engine.pruneEntry(target.dir, p.file)).id);
      } catch (error) {
        failure = error;
        break;
      }
    }
    this.changed();
    if (trashIds.length === 0) return this.failed(failure);
    const id = this.remember({ kind: 'prune', dir: target.dir, trashIds, count: trashIds.length });
    this.offerUndo(
      id,
      vscode.l10n.t('Pruned {0} memories: their lines left MEMORY.md and the files are in the trash.', trashIds.length),
      undone,
    );
    if (failure) this.logger.warn(`inspector: pruning stopped after ${trashIds.length}: ${String(failure)}`);
    return failure
      ? {
          text: vscode.l10n.t('Pruned {0} memories, then stopped: {1}', trashIds.length, errorText(failure)),
          level: 'warning',
          undo: { trashId: id },
        }
      : {
          text: vscode.l10n.t('Pruned {0} memories, least used first. Undo puts them back.', trashIds.length),
          level: 'info',
          undo: { trashId: id },
        };
  }

  async merge(
    target: ActionTarget,
    group: EntryGroup,
    entries: readonly MemoryEntryView[],
    undone: (result: ActionResult) => void,
  ): Promise<ActionResult | undefined> {
    if (target.readOnly) return readOnlyRefusal();
    const mergeable = entries
      .filter((e) => e.group === group && e.indexed && !e.missing && e.line !== null)
      .sort((a, b) => (a.type ?? '~').localeCompare(b.type ?? '~') || (a.line ?? 0) - (b.line ?? 0));
    const picked = await vscode.window.showQuickPick(
      mergeable.map((e) => ({
        label: showHiddenChars(e.title),
        description: `${e.type ?? vscode.l10n.t('no type')} · ${usesText(e.uses ?? 0)}`,
        detail: vscode.l10n.t('{0} · line {1}', e.file, e.line ?? 0),
        entry: e,
      })),
      {
        title: vscode.l10n.t('Merge memories'),
        placeHolder: vscode.l10n.t(
          'Pick two or more memories of one type; the first (in MEMORY.md order) keeps its name and front matter',
        ),
        canPickMany: true,
        matchOnDescription: true,
        ignoreFocusOut: true,
      },
    );
    if (!picked) return undefined;
    return this.mergeChosen(
      target,
      picked.map((p) => p.entry),
      undone,
    );
  }

  /**
   * Merges `entries` (two or more of one type, in one group; the Health view's Merge of a duplicate pair)
   * into the first one in MEMORY.md order, with the same Undo as the banner's Merge.
   */
  async mergeChosen(
    target: ActionTarget,
    entries: readonly MemoryEntryView[],
    undone: (result: ActionResult) => void,
  ): Promise<ActionResult | undefined> {
    if (target.readOnly) return readOnlyRefusal();
    const chosen = [...entries].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    if (chosen.length < 2) return { text: vscode.l10n.t('Pick two or more memories to merge.'), level: 'warning' };
    if (new Set(chosen.map((e) => e.type)).size > 1)
      return { text: vscode.l10n.t('Only memories of one type can be merged.'), level: 'warning' };
    let result: MergeResult;
    try {
      result = await loadEngine().inspector.mergeEntries(
        target.dir,
        chosen.map((e) => e.file),
        { logger: this.logger },
      );
    } catch (error) {
      return this.failed(error);
    }
    this.changed();
    const id = this.remember({
      kind: 'merge',
      dir: target.dir,
      file: result.file,
      trashIds: result.trashIds,
      title: result.title,
    });
    // Beside the inspector, whose status line keeps the Undo in view.
    void vscode.window.showTextDocument(vscode.Uri.file(result.path), {
      preview: false,
      viewColumn: vscode.ViewColumn.Beside,
    });
    this.offerUndo(
      id,
      vscode.l10n.t('Merged {0} memories into "{1}"; the originals are in the trash.', chosen.length, result.title),
      undone,
    );
    return {
      text: vscode.l10n.t('Merged {0} memories into "{1}". Undo puts the originals back.', chosen.length, result.title),
      level: 'info',
      undo: { trashId: id },
    };
  }

  /** Takes a batch back; a second Undo of the same batch says it was done already. */
  async undo(id: string): Promise<ActionResult> {
    const batch = this.batches.get(id);
    if (!batch) return { text: vscode.l10n.t('Already undone.'), level: 'info' };
    this.batches.delete(id);
    const engine = loadEngine().inspector;
    try {
      if (batch.kind === 'merge') {
        await engine.undoMerge(batch.dir, batch);
      } else {
        // Backwards: each record's line positions are those of the index it was pruned from.
        for (const trashId of [...batch.trashIds].reverse()) await engine.restoreEntry(batch.dir, trashId);
      }
    } catch (error) {
      return this.failed(error);
    }
    this.changed();
    return batch.kind === 'merge'
      ? { text: vscode.l10n.t('The merge into "{0}" was undone.', batch.title), level: 'info' }
      : { text: vscode.l10n.t('Restored {0} memories.', batch.count), level: 'info' };
  }

  private remember(batch: Batch): string {
    const id = `batch-${++this.next}`;
    this.batches.set(id, batch);
    return id;
  }

  private offerUndo(id: string, message: string, undone: (result: ActionResult) => void): void {
    void this.prompts()
      .offerUndo(message)
      .then(async (undo) => {
        if (!undo || !this.batches.has(id)) return;
        const result = await this.undo(id);
        if (result.level === 'error') void vscode.window.showErrorMessage(result.text);
        undone(result);
      });
  }

  private failed(error: unknown): ActionResult {
    this.logger.warn(`inspector: cap action failed: ${String(error)}`);
    this.changed();
    return { text: errorText(error), level: 'error' };
  }
}

function readOnlyRefusal(): ActionResult {
  return { text: vscode.l10n.t("Claude Code's folder is read-only here; only pruning is allowed."), level: 'warning' };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** How often an entry was recalled, as the merge picker says it. */
function usesText(uses: number): string {
  return uses === 0 ? vscode.l10n.t('never used') : vscode.l10n.t('used {0}×', uses);
}
