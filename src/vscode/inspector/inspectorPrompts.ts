import * as vscode from 'vscode';
import { showHiddenChars } from '../../protocol/hiddenChars';

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
    // They quote memory titles: a right-to-left override there is written out, never applied.
    return (
      (await vscode.window.showWarningMessage(
        showHiddenChars(message),
        { modal: true, detail: showHiddenChars(detail) },
        action,
      )) === action
    );
  },
  async offerUndo(message) {
    const undo = vscode.l10n.t('Undo');
    return (await vscode.window.showInformationMessage(showHiddenChars(message), undo)) === undo;
  },
};
