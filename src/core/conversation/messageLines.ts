// API messages written again as transcript lines, the way the writer writes a live turn: prompts as
// user lines, results one line each hanging off their tool_use, assistant blocks one line each under a
// message id, with no usage (the `<synthetic>` model marks them as no real response, so the gauge
// skips them). A compaction writes its kept messages so; `engram merge-branches` the turns of a branch.
import { randomUUID } from 'node:crypto';
import { SYNTHETIC_MODEL, type TranscriptWriter } from './transcriptWriter';
import type { ApiMessage, AssistantBlock, ToolResultBlock, UserBlock } from './types';

export interface MessageLinesOptions {
  /**
   * Keep each message's id (a compaction: the same message, read back once) instead of a new one (a
   * copy next to its original, which the reader would otherwise gather into one message).
   */
  keepMessageIds?: boolean;
  /** Write prompts as meta lines (not typed now: a compaction's kept prompts). */
  promptsAsMeta?: boolean;
}

export async function appendMessages(
  writer: TranscriptWriter,
  entries: ReadonlyArray<{ message: ApiMessage; messageIds: readonly string[] }>,
  opts: MessageLinesOptions = {},
): Promise<void> {
  for (const e of entries) {
    const content = e.message.content;
    if (e.message.role === 'assistant') {
      const info = {
        id: (opts.keepMessageIds ? e.messageIds[0] : undefined) ?? `msg_copied_${randomUUID().replace(/-/g, '')}`,
        model: SYNTHETIC_MODEL,
        stopReason: null,
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      };
      const blocks: AssistantBlock[] =
        typeof content === 'string' ? [{ type: 'text', text: content }] : (content as AssistantBlock[]);
      for (const b of blocks) await writer.appendAssistantBlock(info, b);
      continue;
    }
    const meta = opts.promptsAsMeta ? { isMeta: true } : {};
    if (typeof content === 'string') {
      await writer.appendUserPrompt(content, meta);
      continue;
    }
    const blocks = content as UserBlock[];
    const results = blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result');
    const others = blocks.filter((b) => b.type !== 'tool_result');
    if (results.length === 0) {
      await writer.appendUserPrompt(blocks, meta);
      continue;
    }
    for (let i = 0; i < results.length; i++) {
      await writer.appendToolResult(results[i], i === results.length - 1 && others.length > 0 ? { extra: others } : {});
    }
  }
}
