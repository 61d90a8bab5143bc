import * as vscode from 'vscode';

/**
 * The questions the inspector asks outside its webview: a modal confirmation before anything risky, and
 * a notification that offers Undo. A port, so integration tests can answer them: VS Code refuses modal
 * dialogs while extension tests run, and shows them nowhere a test could click.
 */
export interface InspectorPrompts {
  /** A modal question; resolves true when the user chose `action`. */
  confirm(message: string, detail: string, action: string): Promise<boolean>;
  /** A notification with an Undo button; resolves true when Undo was chosen. */
  offerUndo(message: string): Promise<boolean>;
}

export const vscodePrompts: InspectorPrompts = {
  async confirm(message, detail, action) {
    return (await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) === action;
  },
  async offerUndo(message) {
    const undo = vscode.l10n.t('Undo');
    return (await vscode.window.showInformationMessage(message, undo)) === undo;
  },
};
