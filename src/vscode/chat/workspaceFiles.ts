// The workspace's files for `@` mentions: listed with vscode.workspace.findFiles (which honours
// files.exclude and search.exclude), kept for a short while, and read for attaching. Only a file inside
// the workspace folder that the list contains is ever read, so a mention cannot reach elsewhere.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/host/sessions';
import { loadEngine } from '../loadEngine';
import { workspaceCwd } from '../settings';
import { fileAttachmentText, mentionedPaths, rankFiles } from './fileMentions';

/** How long a file list is reused while the person types (a new one is made after that). */
const LIST_TTL_MS = 5_000;
const MAX_LISTED = 5_000;
/** Files bigger than this are not attached at all: they are not what a person means to paste. */
const MAX_ATTACHED_BYTES = 1_000_000;

export interface Attached {
  files: string[];
  blocks: Array<{ type: 'text'; text: string }>;
  /** Mentions that were not attached, with why. */
  skipped: Array<{ path: string; reason: string }>;
}

export class WorkspaceFiles {
  private listed: { at: number; files: Promise<string[]> } | undefined;

  /** Workspace-relative paths (forward slashes) matching `query`, best first. */
  async suggest(query: string): Promise<string[]> {
    return rankFiles(await this.list(), query);
  }

  /** The files `prompt` mentions with @, read and ready to go after it. */
  async attach(prompt: string): Promise<Attached> {
    const wanted = mentionedPaths(prompt);
    const result: Attached = { files: [], blocks: [], skipped: [] };
    if (wanted.length === 0) return result;
    const known = new Set(await this.list(true));
    for (const rel of wanted) {
      if (!known.has(rel)) continue; // an email address or a handle, not a file
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

  private list(fresh = false): Promise<string[]> {
    const now = Date.now();
    if (fresh || !this.listed || now - this.listed.at > LIST_TTL_MS) {
      const root = workspaceCwd();
      const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file' && f.uri.fsPath === root);
      const files = folder
        ? Promise.resolve(
            vscode.workspace.findFiles(new vscode.RelativePattern(folder, '**/*'), undefined, MAX_LISTED),
          ).then((uris) =>
            uris
              .map((u) => path.relative(root, u.fsPath).split(path.sep).join('/'))
              .filter((p) => p && !p.startsWith('..')),
          )
        : Promise.resolve([]);
      this.listed = { at: now, files: files.catch(() => []) };
    }
    return this.listed.files;
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
