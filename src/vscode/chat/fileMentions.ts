// `@path` mentions in a chat prompt: which words name workspace files, how completion ranks paths, and
// the text block that carries a mentioned file's content to the model (after the prompt, in the same
// user message, like recalled memory). No vscode import: the host finds and reads the files.

import { FILE_ATTACHMENT_TAG } from '../../core/host/conversationDisplay';

// The tag lives with the conversation model, where the readers that leave it out of a prompt's words can
// reach it.
export { isFileAttachment } from '../../core/host/conversationDisplay';

/** How much of one file goes with a prompt; past it the block says so and the agent can Read the rest. */
export const MAX_ATTACHED_CHARS = 50_000;

/** How many paths the completion list shows. */
export const MAX_SUGGESTIONS = 20;

/** The distinct paths a prompt mentions as `@path` (at the start or after white space), in order. */
export function mentionedPaths(prompt: string): string[] {
  const found: string[] = [];
  for (const m of prompt.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
    // A sentence may end right after the path: "look at @src/a.ts."
    const path = m[1].replace(/[.,;:!?)\]]+$/, '');
    if (path && !found.includes(path)) found.push(path);
  }
  return found;
}

/** The block the model gets for an attached file: its workspace path, then its text in a fence. */
export function fileAttachmentText(relPath: string, content: string): string {
  const cut = content.length > MAX_ATTACHED_CHARS;
  const body = cut ? content.slice(0, MAX_ATTACHED_CHARS) : content;
  const fence = body.includes('```') ? '~~~~' : '```';
  return [
    `${FILE_ATTACHMENT_TAG} path="${relPath.replace(/"/g, '%22')}">`,
    `The user attached the file ${relPath} (its content as of this message):`,
    fence,
    body.endsWith('\n') ? body.slice(0, -1) : body,
    fence,
    ...(cut
      ? [
          `(Only the first ${MAX_ATTACHED_CHARS.toLocaleString('en-US')} ` +
            `of ${content.length.toLocaleString('en-US')} characters are attached; use Read for the rest.)`,
        ]
      : []),
    '</engram-file>',
  ].join('\n');
}
