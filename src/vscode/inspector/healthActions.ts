// The Health view's own actions (issue 32): Update opens a memory's topic file for editing at its first
// stale reference, and Merge combines a memory with its duplicate through the cap banner's merge (one
// Undo puts both back). Open and Prune are the memory tree's (openFile, pruneEntry).
import * as vscode from 'vscode';
import type { EntryGroup, Handlers, InspectorSnapshot, MemoryEntryView } from '../../protocol/messages';
import type { HealthState } from '../../core/host/inspector';
import type { MemoryHealthWatch } from '../memoryHealthWatch';
import type { CapActions } from './capActions';
import type { InspectorRequest } from './inspectorPanel';
import type { ActionResult, ActionTarget } from './memoryActions';

/** What the Health view shows: the open workspace's check, for the current session only (its memories). */
export function healthInput(watch: MemoryHealthWatch, current: boolean): HealthState {
  return current ? watch.state() : { checking: false, unavailable: 'otherSource' };
}

export interface HealthActionDeps {
  last(): InspectorSnapshot | undefined;
  entry(group: EntryGroup, file: string): { entry: MemoryEntryView; target: ActionTarget } | undefined;
  cap: CapActions;
  report(result: ActionResult | undefined, group?: EntryGroup): void;
}

export function healthHandlers(
  deps: HealthActionDeps,
): Pick<Handlers<InspectorRequest>, 'updateMemory' | 'mergePair' | 'tidyMemory'> {
  return {
    tidyMemory: async () => {
      await vscode.commands.executeCommand('engram.tidyMemory');
    },
    updateMemory: async (m) => {
      const health = deps.last()?.health?.entries.find((e) => e.group === m.group && e.entryFile === m.file);
      if (!health) return;
      const line = Math.max(0, (health.stale.find((s) => s.line !== undefined)?.line ?? 1) - 1);
      const at = new vscode.Range(line, 0, line, 0);
      // Beside the inspector, which stays in view to show the check once the file is saved.
      await vscode.window.showTextDocument(vscode.Uri.file(health.path), {
        preview: false,
        selection: at,
        viewColumn: vscode.ViewColumn.Beside,
      });
    },
    mergePair: async (m) => {
      const first = deps.entry(m.group, m.file);
      const second = deps.entry(m.group, m.other);
      if (!first || !second) {
        deps.report({ text: vscode.l10n.t('Only two memories of one folder can be merged here.'), level: 'warning' });
        return;
      }
      const result = await deps.cap.mergeChosen(first.target, [first.entry, second.entry], (undone) =>
        deps.report(undone),
      );
      deps.report(result, m.group);
    },
  };
}
