// A code block's Copy and Insert buttons in the Chat view: the host does both (a webview's clipboard is
// not reliable in every host, and only the host knows the editor).
import * as vscode from 'vscode';

export async function copyCode(code: string): Promise<void> {
  await vscode.env.clipboard.writeText(code);
  vscode.window.setStatusBarMessage(vscode.l10n.t('Engram: code copied to the clipboard'), 3000);
}

/** Inserts at every cursor of the active editor (the last one used while the chat has focus). */
export async function insertCode(code: string): Promise<boolean> {
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (!editor) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Engram: open a file to insert the code into, then press Insert again.'),
    );
    return false;
  }
  const ok = await editor.edit((edit) => {
    for (const selection of editor.selections) edit.replace(selection, code);
  });
  if (ok) await vscode.window.showTextDocument(editor.document, editor.viewColumn);
  return ok;
}
