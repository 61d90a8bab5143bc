// What goes back into the context after a compaction (DESIGN 5): the files the agent read or edited
// most recently, as they are on disk now (the summary says what was done to them, not what they hold),
// and, when the caller passes them, the instructions and the memory index. Bounded per file and in all,
// so re-attaching never undoes the compaction.
import type { ReadFileState } from '../tools/readFileState';
import { cutText } from './textCut';

export interface ReattachFile {
  path: string;
  /** Undefined when the file is gone or unreadable: it is left out. */
  content: string | undefined;
}

export interface ReattachInputs {
  /** Most recent first. */
  files?: ReattachFile[];
  /** Instructions (CLAUDE.md) and the memory index, when they are not in the system prompt already. */
  instructions?: string;
  memoryIndex?: string;
}

export interface ReattachLimits {
  maxFiles: number;
  fileTokens: number;
  totalTokens: number;
}

export interface Reattachment {
  /** Appended to the compaction's opening message; empty when there is nothing to add. */
  text: string;
  files: Array<{ path: string; tokens: number; complete: boolean }>;
}

/** Paths to re-attach, most recently touched first (the agent's file-read state keeps that order). */
export function recentPaths(readFiles: ReadFileState, maxFiles: number): string[] {
  return readFiles.recent(maxFiles).map((r) => r.path);
}

export function buildReattachment(
  inputs: ReattachInputs,
  limits: ReattachLimits,
  countTokens: (text: string) => number,
): Reattachment {
  const parts: string[] = [];
  const files: Reattachment['files'] = [];
  let budget = limits.totalTokens;
  for (const f of (inputs.files ?? []).slice(0, limits.maxFiles)) {
    if (f.content === undefined || budget <= 0) continue;
    const allowed = Math.min(limits.fileTokens, budget);
    const { text, tokens, complete } = fitTokens(f.content, allowed, countTokens);
    if (text === '' && f.content !== '') continue;
    budget -= tokens;
    files.push({ path: f.path, tokens, complete });
    parts.push(`<file path="${f.path}"${complete ? '' : ' truncated="true"'}>\n${text}\n</file>`);
  }
  const sections: string[] = [];
  if (parts.length > 0) {
    sections.push(
      'Files you read or edited recently, as they are on disk now ' +
        `(re-read a file before editing it if it is marked truncated):\n${parts.join('\n')}`,
    );
  }
  if (inputs.instructions?.trim()) sections.push(`<instructions>\n${inputs.instructions.trim()}\n</instructions>`);
  if (inputs.memoryIndex?.trim()) sections.push(`<memory-index>\n${inputs.memoryIndex.trim()}\n</memory-index>`);
  return { text: sections.join('\n\n'), files };
}

/**
 * Text cut to at most `maxTokens`: characters are estimated from the measured density and corrected
 * twice, which lands within a few percent without tokenizing the text over and over.
 */
function fitTokens(
  text: string,
  maxTokens: number,
  countTokens: (t: string) => number,
): { text: string; tokens: number; complete: boolean } {
  const total = countTokens(text);
  if (total <= maxTokens) return { text, tokens: total, complete: true };
  let chars = Math.floor((text.length * maxTokens) / Math.max(1, total));
  let cut = cutText(text, chars);
  let tokens = countTokens(cut);
  for (let i = 0; i < 3 && tokens > maxTokens && cut.length > 0; i++) {
    chars = Math.floor((cut.length * maxTokens * 0.95) / tokens);
    cut = cutText(text, chars);
    tokens = countTokens(cut);
  }
  return tokens > maxTokens ? { text: '', tokens: 0, complete: false } : { text: cut, tokens, complete: false };
}
