import { promises as fsp } from 'node:fs';
import * as vscode from 'vscode';

export const INSPECTOR_SCHEME = 'engram-inspector';

/**
 * Read-only documents for the inspector: the two sides of a compaction's diff (the messages it replaced,
 * the summary that took their place), and files of Claude Code's folder, which the inspector shows but
 * does not let anyone edit. Only documents registered here (or files explicitly allowed) are served.
 */
export class InspectorDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly files = new Set<string>();
  private readonly registration: vscode.Disposable;
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(INSPECTOR_SCHEME, this);
  }

  /** A virtual document with this text; the same name gets the newest text. */
  text(name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: INSPECTOR_SCHEME, path: `/${name}` });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  /** A read-only view of a file on disk. */
  file(absPath: string): vscode.Uri {
    this.files.add(absPath);
    const uri = vscode.Uri.from({ scheme: INSPECTOR_SCHEME, path: `/readonly${vscode.Uri.file(absPath).path}` });
    this.changed.fire(uri);
    return uri;
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const text = this.texts.get(uri.toString());
    if (text !== undefined) return text;
    if (uri.path.startsWith('/readonly/')) {
      const abs = vscode.Uri.file(uri.path.slice('/readonly'.length)).fsPath;
      if (this.files.has(abs))
        return fsp.readFile(abs, 'utf8').catch((e: unknown) => `(could not read ${abs}: ${String(e)})`);
    }
    return '';
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
