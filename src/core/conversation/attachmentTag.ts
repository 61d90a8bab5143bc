// The tag that opens a recalled memory attached to a prompt. It belongs to the conversation model, not to
// memory: readers that only need to recognise attachments (the transcript reader, the Chat view) must
// not load the memory engine, and conversation sits below memory in the layers.
export const MEMORY_ATTACHMENT_TAG = '<engram-memory';

/** Is this text block one of recall's attachments (so a view can fold it)? */
export function isMemoryAttachment(text: string): boolean {
  return text.startsWith(MEMORY_ATTACHMENT_TAG);
}

/**
 * The tag that opens a workspace file attached to a prompt with `@path` (src/vscode/chat/fileMentions.ts
 * writes it). Like a recalled memory it is not what the person typed: a session's title, the Chat view
 * and the offline demo leave it out of the prompt's words.
 */
export const FILE_ATTACHMENT_TAG = '<engram-file';

export function isFileAttachment(text: string): boolean {
  return text.startsWith(FILE_ATTACHMENT_TAG);
}
