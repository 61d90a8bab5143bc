// The inspector's links to files: opening a memory file, the notes or a transcript in an editor, showing
// one in the file manager, and opening the session a memory came from. Only a path the last snapshot
// showed is opened; a request naming any other path is refused, since the webview's requests are checked,
// not obeyed. A read-only source (Claude Code's folder) opens through the read-only documents.
import path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/host/sessions';
import type { InspectorSnapshot } from '../../protocol/messages';
import { loadEngine } from '../loadEngine';
import type { InspectorChat } from './inspectorContext';
import type { InspectorDocuments } from './inspectorDocuments';
import type { InspectorSourceState } from './sourcePicker';

/** What the file links read of the inspector: its source, its last snapshot, and how to switch source. */
export interface InspectorFilesView {
  readonly chat: InspectorChat;
  readonly docs: InspectorDocuments;
  readonly logger: Logger;
  source(): InspectorSourceState;
  last(): InspectorSnapshot | undefined;
  setSource(source: InspectorSourceState): void;
}

export class InspectorFiles {
  constructor(private readonly view: InspectorFilesView) {}

  private readOnly(): boolean {
    const source = this.view.source();
    return source.kind !== 'current' && source.readOnly;
  }

  private knownPaths(): Set<string> {
    const s = this.view.last();
    if (!s) return new Set();
    return new Set([
      ...(s.notes.exists && s.notes.path ? [s.notes.path] : []),
      ...s.memory.instructions.map((i) => i.path),
      // The files MCP servers and permission rules were read from.
      ...(s.mcp?.servers ?? []).flatMap((m) => (m.file ? [m.file] : [])),
      ...(s.rules ?? []).flatMap((r) => (r.file ? [r.file] : [])),
      ...[...s.memory.entries, ...s.memory.unindexed].filter((e) => !e.missing).map((e) => e.path),
      // Team files the index has no row for, and the local copies a conflict kept.
      ...(s.memory.team?.files ?? []).map((f) => f.path),
      ...[...s.memory.entries, ...s.memory.unindexed, ...(s.memory.team?.files ?? [])].flatMap((e) =>
        e.sync?.status.state === 'conflict' ? [e.sync.status.keptPath] : [],
      ),
    ]);
  }

  async openFile(file: string, line?: number): Promise<void> {
    if (!this.knownPaths().has(file)) {
      this.view.logger.warn(`inspector: refused to open a path the inspector did not show: ${file}`);
      return;
    }
    await this.show(file, line);
  }

  private async show(file: string, line?: number): Promise<void> {
    const uri = this.readOnly() ? this.view.docs.file(file) : vscode.Uri.file(file);
    const selection = line ? new vscode.Range(line - 1, 0, line - 1, 0) : undefined;
    await vscode.window.showTextDocument(uri, { preview: true, ...(selection ? { selection } : {}) });
  }

  async revealFile(file: string): Promise<void> {
    if (!this.knownPaths().has(file)) return;
    const uri = vscode.Uri.file(file);
    const commands = await vscode.commands.getCommands(true);
    if (commands.includes('revealFileInOS')) {
      await vscode.commands.executeCommand('revealFileInOS', uri);
      return;
    }
    // Where there is no file manager to show it in (VS Code in a browser), say where it is.
    const copy = vscode.l10n.t('Copy Path');
    const choice = await vscode.window.showInformationMessage(vscode.l10n.t('The file is at {0}', file), copy);
    if (choice === copy) await vscode.env.clipboard.writeText(file);
  }

  async openOrigin(sessionId: string, messageId: string | undefined): Promise<void> {
    const engine = loadEngine().inspector;
    if (!engine.isSessionId(sessionId)) return;
    const transcript = await this.findTranscript(sessionId);
    if (!transcript) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('The session {0} is not in this data folder.', sessionId),
      );
      return;
    }
    const line = messageId ? await engine.lineOfMessage(transcript, messageId).catch(() => undefined) : undefined;
    await this.show(transcript, line);
  }

  async inspectSession(sessionId: string): Promise<void> {
    if (!loadEngine().inspector.isSessionId(sessionId)) return;
    const transcript = await this.findTranscript(sessionId);
    if (!transcript) return;
    const root = this.view.last()?.source.root ?? this.view.chat.inspectorContext().dataDir;
    const readOnly = this.readOnly();
    const projectKey = path.basename(path.dirname(transcript));
    this.view.setSource({
      kind: readOnly ? 'claude' : 'session',
      root,
      projectKey,
      sessionId,
      readOnly,
      label: readOnly
        ? vscode.l10n.t('Claude Code ({0})', root) + ` · ${projectKey} · ${sessionId}`
        : vscode.l10n.t('Session {0}', sessionId),
    });
  }

  /** The transcript of a session of the shown project (memory is keyed by git root, transcripts by folder). */
  private async findTranscript(sessionId: string): Promise<string | undefined> {
    const engine = loadEngine().inspector;
    const dirs = new Set<string>();
    const memoryDir = this.view.last()?.memory.dir;
    if (memoryDir) dirs.add(path.dirname(memoryDir));
    const source = this.view.source();
    if (source.kind === 'current') {
      const ctx = this.view.chat.inspectorContext();
      dirs.add(engine.projectDir(ctx.dataDir, ctx.cwd));
    } else {
      dirs.add(engine.sourceProjectDir(source));
    }
    for (const dir of dirs) {
      const { transcript } = engine.sessionPaths(dir, sessionId);
      try {
        await vscode.workspace.fs.stat(vscode.Uri.file(transcript));
        return transcript;
      } catch {
        // not in this folder
      }
    }
    return undefined;
  }
}
