// What a rewind asks and tells outside the chat (issue 33): the modal "Rewind 3 files to after turn 2?",
// the notification with what was done and its Undo / Restore anyway, and the pick of conflict files to
// restore anyway. A port, so the host tests can answer them: VS Code refuses modal dialogs and shows no
// notification toasts while extension tests run.
import * as vscode from 'vscode';
import { showHiddenChars } from '../../protocol/hiddenChars';

export interface RewindPrompts {
  /** A modal question; true when the person chose `action`. */
  confirm(message: string, detail: string, action: string): Promise<boolean>;
  /** A notification with buttons; the button chosen, or undefined when it was closed. */
  tell(level: 'info' | 'warning' | 'error', message: string, actions?: readonly string[]): Promise<string | undefined>;
  /** A pick of files (several may be chosen); undefined when cancelled. */
  pickFiles(title: string, files: readonly string[]): Promise<string[] | undefined>;
}

const vscodePrompts: RewindPrompts = {
  async confirm(message, detail, action) {
    // File names come from the workspace: a right-to-left override there is written out, never applied.
    const answer = await vscode.window.showWarningMessage(
      showHiddenChars(message),
      { modal: true, detail: showHiddenChars(detail) },
      action,
    );
    return answer === action;
  },
  tell(level, message, actions = []) {
    const show =
      level === 'error'
        ? vscode.window.showErrorMessage
        : level === 'warning'
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    return Promise.resolve(show(showHiddenChars(message), ...actions));
  },
  async pickFiles(title, files) {
    const picked = await vscode.window.showQuickPick(
      files.map((f) => ({ label: showHiddenChars(f), path: f })),
      { title, canPickMany: true, ignoreFocusOut: true },
    );
    return picked?.map((p) => p.path);
  },
};

let current: RewindPrompts = vscodePrompts;

/** The prompts in use (VS Code's own, unless a host test replaced them). */
export function rewindPrompts(): RewindPrompts {
  return current;
}

/** TEST-ONLY HOOK: answers the rewind's modal, notifications and pick. Returns a function that puts VS Code's back. */
export function replaceRewindPromptsForTests(prompts: RewindPrompts): () => void {
  current = prompts;
  return () => {
    current = vscodePrompts;
  };
}
