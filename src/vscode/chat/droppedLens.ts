// What the compaction under review would drop, shown in its preview editor. The note at the top of the
// document lists each item on a line of its own (droppedNoteLines, written when the preview opens), and a
// code lens above each line says "Add to the summary" (a lens per line, so a narrow editor shows them all);
// the first line's lens gives the counts ("Not carried: 3 paths, 1 command, 2 of your messages") and a
// picker. The list is computed by the core on the text as it is now (cheap, no model call), so it follows
// each edit: an item added to the summary, or written into it by hand, turns to "carried"; an item the
// edit drops (a line deleted from the summary) gets its lens where its text was (droppedPlaces.ts), and
// several dropped from one place share one lens that lists them all. Adding appends a line naming the
// item at the end of the summary, which the Apply then carries.
import * as vscode from 'vscode';
import { previewText } from '../../core/host/conversationDisplay';
import type { EngramSession } from '../../core/host/sessions';
import { linesWhereItemsWere } from './droppedPlaces';

type Compaction = EngramSession['compaction'];
type Prepared = Awaited<ReturnType<Compaction['prepareCompaction']>>;
type Dropped = NonNullable<Prepared['dropped']>;
type Kind = keyof Dropped;
interface Item {
  kind: Kind;
  text: string;
}

export const ADD_DROPPED_COMMAND = 'engram.addDroppedToSummary';
/** Items beyond this many get no line in the note; the first lens's picker reaches them all. */
const MAX_NOTE_ITEMS = 20;
const KINDS: readonly Kind[] = ['paths', 'commands', 'errors', 'userMessages'];

/**
 * The lines the preview's note lists the dropped items on (inside the HTML comment, which is not part of
 * the summary): a heading, then one line per item, clipped to one line, with "-->" defused.
 */
export function droppedNoteLines(dropped: Dropped | undefined): string[] {
  const items = KINDS.flatMap((kind) => (dropped?.[kind] ?? []).map((text) => noteLine(kind, text)));
  if (items.length === 0) return [];
  const more = items.length - MAX_NOTE_ITEMS;
  return [
    vscode.l10n.t('Not carried by this summary (use "Add to the summary" above an item to add it):'),
    ...items.slice(0, MAX_NOTE_ITEMS),
    ...(more > 0 ? [vscode.l10n.t("... and {0} more (the first line's list has them all)", more)] : []),
  ];
}

/** An item's line in the note (the core gives each item on one line already, whitespace made single). */
function noteLine(kind: Kind, text: string): string {
  return `  ${lineFor(kind, clip(text, 160)).replaceAll('-->', '-- >')}`;
}

/** The note's lines (up to the one closing the comment), by their text. */
function noteLinesOf(document: vscode.TextDocument): Map<string, number> {
  const lines = new Map<string, number>();
  for (let i = 0; i < document.lineCount; i++) {
    const text = document.lineAt(i).text;
    if (!lines.has(text)) lines.set(text, i);
    if (text.includes('-->')) break;
  }
  return lines;
}

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
      const at = (line: number) => new vscode.Range(line, 0, line, 0);
      const items = KINDS.flatMap((kind) => dropped[kind].map((text) => ({ kind, text })));
      const head =
        items.length === 0
          ? new vscode.CodeLens(at(0), { title: vscode.l10n.t('Everything it replaces is carried'), command: '' })
          : new vscode.CodeLens(at(0), {
              title: `$(fold) ${vscode.l10n.t('Not carried: {0}', countsText(dropped))}`,
              tooltip: vscode.l10n.t('Pick an item to add to the summary'),
              command: ADD_DROPPED_COMMAND,
            });
      const note = noteLinesOf(document);
      const placed = new Set<number>();
      // Listed in the note: the lens above the item's own line. Dropped by the edit: where its text was.
      const byLine = new Map<number, Item[]>();
      const unlisted: Item[] = [];
      for (const item of items) {
        const line = note.get(noteLine(item.kind, item.text));
        if (line === undefined) unlisted.push(item);
        else {
          placed.add(line);
          byLine.set(line, [item]);
        }
      }
      const lines = linesWhereItemsWere(
        open.prepared.review?.text.split('\n') ?? [],
        document.getText().split(/\r?\n/),
        summaryStart(document),
        unlisted.map((item) => item.text),
      );
      for (const [i, item] of unlisted.entries()) byLine.set(lines[i], [...(byLine.get(lines[i]) ?? []), item]);
      const lenses = [...byLine].map(([line, here]) => new vscode.CodeLens(at(line), addCommand(here)));
      // A listed item the summary now carries (added, or written in by hand).
      const carried = [...note.entries()]
        .filter(([text, line]) => /^ {2}- /.test(text) && !placed.has(line))
        .map(
          ([, line]) =>
            new vscode.CodeLens(at(line), { title: `$(check) ${vscode.l10n.t('Now carried')}`, command: '' }),
        );
      return [head, ...lenses, ...carried];
    },
  };
  /** One item (a lens of its own), the items one lens lists (several picked at once), or any (the picker). */
  const add = async (kind?: Kind, text?: string, among?: Item[]): Promise<boolean> => {
    const open = current();
    if (!open) return false;
    let chosen: Item[] = kind && text ? [{ kind, text }] : [];
    if (chosen.length === 0) {
      const dropped = droppedNow(open);
      const offered = among ?? KINDS.flatMap((k) => (dropped?.[k] ?? []).map((t) => ({ kind: k, text: t })));
      const picks = offered.map((item) => ({ label: clip(item.text, 100), description: kindLabel(item.kind), item }));
      const options = {
        title: vscode.l10n.t('Add to the summary'),
        placeHolder: among
          ? vscode.l10n.t('What your edit took out of the summary: pick what to add back')
          : vscode.l10n.t('What the compaction would not carry'),
      };
      const picked = among
        ? await vscode.window.showQuickPick(picks, { ...options, canPickMany: true })
        : await vscode.window.showQuickPick(picks, options).then((p) => (p ? [p] : undefined));
      chosen = (picked ?? []).map((p) => p.item);
      if (chosen.length === 0) return false;
    }
    const doc = open.document;
    const end = doc.lineAt(doc.lineCount - 1).range.end;
    const edit = new vscode.WorkspaceEdit();
    const gap = doc.lineAt(doc.lineCount - 1).text.trim() === '' ? '' : '\n';
    edit.insert(doc.uri, end, `${gap}${chosen.map((c) => `${lineFor(c.kind, c.text)}\n`).join('')}`);
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

/** The first line after the note (the HTML comment the preview opens with): where the summary starts. */
function summaryStart(document: vscode.TextDocument): number {
  for (let i = 0; i < document.lineCount; i++) if (document.lineAt(i).text.includes('-->')) return i + 1;
  return 0;
}

/** "Add to the summary" for one item, or one lens for several the edit took from the same place. */
function addCommand(items: Item[]): vscode.Command {
  if (items.length === 1)
    return {
      title: `$(add) ${vscode.l10n.t('Add to the summary')}: ${clip(items[0].text, 40)}`,
      tooltip: `${kindLabel(items[0].kind)}: ${items[0].text}`,
      command: ADD_DROPPED_COMMAND,
      arguments: [items[0].kind, items[0].text],
    };
  return {
    title: `$(add) ${vscode.l10n.t('Add to the summary: {0} items your edit took out…', items.length)}`,
    tooltip: items.map((item) => `${kindLabel(item.kind)}: ${clip(item.text, 100)}`).join('\n'),
    command: ADD_DROPPED_COMMAND,
    arguments: [undefined, undefined, items],
  };
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
