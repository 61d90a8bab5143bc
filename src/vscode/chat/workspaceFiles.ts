// The workspace's files for `@` mentions: listed through the session's search engine (ripgrep where the
// host found it; the files Glob sees, with .gitignore, files.exclude and search.exclude honoured), kept
// and followed by file events (FileNameIndex), and read for attaching. Only a file inside the workspace
// folder that the list contains is ever read, so a mention cannot reach elsewhere.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { FileNameIndex } from '../../core/host/search';
import type { Logger } from '../../core/host/sessions';
import { loadEngine } from '../loadEngine';
import { sessionSearch } from '../search/chatSearch';
import { workspaceCwd } from '../settings';
import { fileAttachmentText, MAX_SUGGESTIONS, mentionedPaths } from './fileMentions';

/** Files bigger than this are not attached at all: they are not what a person means to paste. */
const MAX_ATTACHED_BYTES = 1_000_000;

export interface Attached {
  files: string[];
  blocks: Array<{ type: 'text'; text: string }>;
  /** Mentions that were not attached, with why. */
  skipped: Array<{ path: string; reason: string }>;
}

/** The chat's sessions already say in the log which engine searches: the picker says nothing more. */
const QUIET: Logger = { info: () => {}, warn: () => {}, error: () => {} };

export class WorkspaceFiles implements vscode.Disposable {
  private index: { root: string; files: Promise<FileNameIndex> } | undefined;
  private readonly watcher = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);

  constructor() {
    this.watcher.onDidCreate((uri) => void this.index?.files.then((f) => f.onFileEvent('create', uri.fsPath)));
    this.watcher.onDidDelete((uri) => void this.index?.files.then((f) => f.onFileEvent('delete', uri.fsPath)));
  }

  /** Workspace-relative paths (forward slashes) matching `query`, best first. */
  async suggest(query: string): Promise<string[]> {
    return (await this.files())?.suggest(query, MAX_SUGGESTIONS) ?? [];
  }

  /** The files `prompt` mentions with @, read and ready to go after it. */
  async attach(prompt: string): Promise<Attached> {
    const wanted = mentionedPaths(prompt);
    const result: Attached = { files: [], blocks: [], skipped: [] };
    if (wanted.length === 0) return result;
    const files = await this.files();
    for (const rel of wanted) {
      if (!(await files?.has(rel))) continue; // an email address or a handle, not a file
      try {
        const abs = path.join(workspaceCwd(), ...rel.split('/'));
        const stat = await fsp.stat(abs);
        if (stat.size > MAX_ATTACHED_BYTES) {
          result.skipped.push({
            path: rel,
            reason: vscode.l10n.t('larger than {0} MB', MAX_ATTACHED_BYTES / 1_000_000),
          });
          continue;
        }
        const bytes = await fsp.readFile(abs);
        if (bytes.includes(0)) {
          result.skipped.push({ path: rel, reason: vscode.l10n.t('not a text file') });
          continue;
        }
        // Secrets are kept out of what is sent, as they are from tool results.
        const text = await loadEngine().redactAttachedText(bytes.toString('utf8'));
        result.files.push(rel);
        result.blocks.push({ type: 'text', text: fileAttachmentText(rel, text) });
      } catch (error) {
        result.skipped.push({ path: rel, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    return result;
  }

  /**
   * The index of the workspace folder (made again when the folder changed), listed through the engine the
   * chat's sessions search with (the editor's ripgrep) and their excludes; none outside a local folder.
   */
  private async files(): Promise<FileNameIndex | undefined> {
    const root = workspaceCwd();
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file' && f.uri.fsPath === root);
    if (!folder) return undefined;
    if (this.index?.root !== root) {
      const engine = loadEngine();
      const files = sessionSearch(QUIET, engine.createSearchEngine).then(async (search) => {
        const chosen = search.engine ?? (await engine.createSearchEngine({}));
        return new engine.FileNameIndex({
          root,
          engine: () => chosen,
          excludes: () => search.bounds?.().excludes ?? [],
        });
      });
      this.index = { root, files };
    }
    return this.index.files;
  }

  dispose(): void {
    this.watcher.dispose();
  }
}

/** Opens a file the chat itself linked (notes, a memory, an instruction file); any other path is refused. */
export async function openLinkedPath(linked: ReadonlySet<string>, path: string, logger: Logger): Promise<void> {
  if (!linked.has(path)) {
    logger.warn(`chat: refused to open a path it did not link: ${path}`);
    return;
  }
  await vscode.window.showTextDocument(vscode.Uri.file(path), { preview: true });
}
