// The tag that opens a recalled memory attached to a prompt. It belongs to the conversation model, not to
// memory: readers that only need to recognise attachments (the transcript reader, the Chat view) must
// not load the memory engine, and conversation sits below memory in the layers.
export const MEMORY_ATTACHMENT_TAG = '<engram-memory';

/** Is this text block one of recall's attachments (so a view can fold it)? */
export function isMemoryAttachment(text: string): boolean {
  return text.startsWith(MEMORY_ATTACHMENT_TAG);
}
