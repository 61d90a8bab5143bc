// What the compaction under review would drop, shown in its preview editor as code lenses above the text:
// "Not carried: 3 paths, 1 command, 2 of your messages", then one "Add to the summary" lens per item.
// The list is computed by the core on the text as it is now (cheap, no model call), so it follows each
// edit: an item added to the summary, or written into it by hand, leaves the list. Adding appends a line
// naming the item at the end of the summary, which the Apply then carries.
import * as vscode from 'vscode';
import { previewText } from '../../core/host/conversationDisplay';
import type { EngramSession } from '../../core/host/sessions';

type Compaction = EngramSession['compaction'];
type Prepared = Awaited<ReturnType<Compaction['prepareCompaction']>>;
type Dropped = NonNullable<Prepared['dropped']>;
type Kind = keyof Dropped;

export const ADD_DROPPED_COMMAND = 'engram.addDroppedToSummary';
/** More items than this are reached through the first lens's picker. */
const MAX_ITEM_LENSES = 12;
const KINDS: readonly Kind[] = ['paths', 'commands', 'errors', 'userMessages'];

export interface ReviewedPreview {
  compaction: Compaction;
  prepared: Prepared;
  document: vscode.TextDocument;
}

export function registerDroppedLens(current: () => ReviewedPreview | undefined): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  const droppedNow = (open: ReviewedPreview): Dropped | undefined =>
    open.compaction.droppedWith(open.prepared, previewText(open.document.getText())) ?? open.prepared.dropped;
  const provider: vscode.CodeLensProvider = {
    onDidChangeCodeLenses: changed.event,
    provideCodeLenses(document) {
      const open = current();
      if (!open || document.uri.toString() !== open.document.uri.toString()) return [];
      const dropped = droppedNow(open);
      if (!dropped) return [];
      const at = new vscode.Range(0, 0, 0, 0);
      const items = KINDS.flatMap((kind) => dropped[kind].map((text) => ({ kind, text })));
      if (items.length === 0)
        return [new vscode.CodeLens(at, { title: vscode.l10n.t('Everything it replaces is carried'), command: '' })];
      const head = new vscode.CodeLens(at, {
        title: `$(fold) ${vscode.l10n.t('Not carried: {0}', countsText(dropped))}`,
        tooltip: vscode.l10n.t('Pick an item to add to the summary'),
        command: ADD_DROPPED_COMMAND,
      });
      const lenses = items.slice(0, MAX_ITEM_LENSES).map(
        (item) =>
          new vscode.CodeLens(at, {
            title: `$(add) ${vscode.l10n.t('Add to the summary')}: ${clip(item.text, 40)}`,
            tooltip: `${kindLabel(item.kind)}: ${item.text}`,
            command: ADD_DROPPED_COMMAND,
            arguments: [item.kind, item.text],
          }),
      );
      return [head, ...lenses];
    },
  };
  const add = async (kind?: Kind, text?: string): Promise<boolean> => {
    const open = current();
    if (!open) return false;
    let chosen = kind && text ? { kind, text } : undefined;
    if (!chosen) {
      const dropped = droppedNow(open);
      const picks = KINDS.flatMap((k) =>
        (dropped?.[k] ?? []).map((t) => ({ label: clip(t, 100), description: kindLabel(k), fact: k, text: t })),
      );
      const pick = await vscode.window.showQuickPick(picks, {
        title: vscode.l10n.t('Add to the summary'),
        placeHolder: vscode.l10n.t('What the compaction would not carry'),
      });
      if (!pick) return false;
      chosen = { kind: pick.fact, text: pick.text };
    }
    const doc = open.document;
    const end = doc.lineAt(doc.lineCount - 1).range.end;
    const edit = new vscode.WorkspaceEdit();
    const gap = doc.lineAt(doc.lineCount - 1).text.trim() === '' ? '' : '\n';
    edit.insert(doc.uri, end, `${gap}${lineFor(chosen.kind, chosen.text)}\n`);
    return vscode.workspace.applyEdit(edit);
  };
  return vscode.Disposable.from(
    changed,
    vscode.languages.registerCodeLensProvider({ scheme: 'untitled', language: 'markdown' }, provider),
    vscode.languages.registerCodeLensProvider({ scheme: 'untitled', language: 'plaintext' }, provider),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.toString() === current()?.document.uri.toString()) changed.fire();
    }),
    vscode.commands.registerCommand(ADD_DROPPED_COMMAND, add),
  );
}

/** "3 paths, 1 command, 2 of your messages" (only the kinds there are). */
function countsText(d: Dropped): string {
  const parts: string[] = [];
  const n = (count: number, one: string, many: string) => parts.push(count === 1 ? one : many);
  if (d.paths.length) n(d.paths.length, vscode.l10n.t('1 path'), vscode.l10n.t('{0} paths', d.paths.length));
  if (d.commands.length)
    n(d.commands.length, vscode.l10n.t('1 command'), vscode.l10n.t('{0} commands', d.commands.length));
  if (d.errors.length) n(d.errors.length, vscode.l10n.t('1 error'), vscode.l10n.t('{0} errors', d.errors.length));
  if (d.userMessages.length) parts.push(vscode.l10n.t('{0} of your messages', d.userMessages.length));
  return parts.reduce((list, part) => vscode.l10n.t('{0}, {1}', list, part));
}

function kindLabel(kind: Kind): string {
  switch (kind) {
    case 'paths':
      return vscode.l10n.t('File');
    case 'commands':
      return vscode.l10n.t('Command run');
    case 'errors':
      return vscode.l10n.t('Error seen');
    case 'userMessages':
      return vscode.l10n.t('The user said');
  }
}

/** The line added to the summary: the item's kind, then its text as it was (so it counts as carried). */
function lineFor(kind: Kind, text: string): string {
  return `- ${kindLabel(kind)}: ${text}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
