// Turns a conversation (API messages, e.g. a resumed session) into Chat view items. No vscode import:
// pure, so it is unit-tested in plain Node.
import type { ApiMessage, ContentBlock } from '../../core/host/sessions';
import { isMemoryAttachment, isRepeatNote, repeatedCallOf, type Usage } from '../../core/host/conversationDisplay';
import type { ChatItem, RecalledMemory, TurnTokens } from '../../protocol/messages';
import { isFileAttachment } from './fileMentions';

/** How much of a tool's input or result the Chat view shows (the transcript keeps everything). */
export const MAX_SHOWN_CHARS = 20_000;

export function clip(text: string, max = MAX_SHOWN_CHARS): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}\n… (${(text.length - max).toLocaleString('en-US')} more characters)`;
}

/** A recall event's files as the chat's recall line lists them (a file without its words lists none). */
export function recalledMemories(event: {
  files: string[];
  matched?: Array<{ file: string; title?: string; words: string[]; stale?: string[] }>;
  skipped?: Array<{ file: string; title: string; stale: string[] }>;
}): RecalledMemory[] {
  const attached = event.files.map((file): RecalledMemory => {
    const m = event.matched?.find((x) => x.file === file);
    return { file, title: m?.title || file, words: m?.words ?? [], ...(m?.stale ? { stale: m.stale } : {}) };
  });
  // Stale memories left out (engram.memory.staleRecall "skip") are listed too, saying so.
  const skipped = (event.skipped ?? []).map((s) => ({ ...s, words: [], staleSkipped: true }));
  return [...attached, ...skipped];
}

/** A turn's usage (summed over its model calls) as the reply's footer counts it. */
export function turnTokens(usage: Usage): TurnTokens {
  return {
    input: usage.input_tokens,
    cacheRead: usage.cache_read_input_tokens ?? 0,
    cacheWrite: usage.cache_creation_input_tokens ?? 0,
    output: usage.output_tokens,
  };
}

export function formatInput(input: Record<string, unknown>): string {
  return clip(JSON.stringify(input, null, 2));
}

/** A tool card's one-line summary of a call, as the tool words it (the tool's name when it cannot). */
export function toolSummarizer(
  tools: ReadonlyArray<{ name: string; summarize(input: Record<string, unknown>): string }>,
) {
  return (name: string, input: Record<string, unknown>): string => {
    try {
      return tools.find((t) => t.name === name)?.summarize(input) ?? name;
    } catch {
      return name;
    }
  };
}

function blocks(content: ApiMessage['content']): ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function resultText(block: Extract<ContentBlock, { type: 'tool_result' }>): string {
  if (typeof block.content === 'string') return block.content;
  return block.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

/**
 * The chat items of a conversation read back from its transcript. `fullOutputs` holds what the transcript
 * kept of results the model got as notes (a repeat, a diff), so the chat shows the output, not the note.
 */
export function itemsFromMessages(
  messages: readonly ApiMessage[],
  summarize: (name: string, input: Record<string, unknown>) => string,
  fullOutputs: ReadonlyMap<string, Extract<ContentBlock, { type: 'tool_result' }>['content']> = new Map(),
): ChatItem[] {
  const items: ChatItem[] = [];
  const tools = new Map<string, Extract<ChatItem, { kind: 'tool' }>>();
  /** Full outputs by call, so a result the model got as a repeat note shows the output it stands for. */
  const outputs = new Map<string, string>();
  messages.forEach((message, m) => {
    blocks(message.content).forEach((block, b) => {
      const id = `h${m}-${b}`;
      if (block.type === 'text') {
        // Recalled memories ride along with the prompt for the model; the person typed only the prompt.
        if (
          !block.text.trim() ||
          (message.role === 'user' && (isMemoryAttachment(block.text) || isFileAttachment(block.text)))
        )
          return;
        items.push(
          message.role === 'user'
            ? { kind: 'user', id, text: block.text }
            : { kind: 'assistant', id, text: block.text, streaming: false },
        );
      } else if (block.type === 'thinking') {
        items.push({ kind: 'thinking', id, text: block.thinking });
      } else if (block.type === 'tool_use') {
        const item: Extract<ChatItem, { kind: 'tool' }> = {
          kind: 'tool',
          id: `tool-${block.id}`,
          name: block.name,
          summary: summarize(block.name, block.input),
          input: formatInput(block.input),
          status: 'done',
        };
        tools.set(block.id, item);
        items.push(item);
      } else if (block.type === 'tool_result') {
        const item = tools.get(block.tool_use_id);
        if (!item) return;
        const kept = fullOutputs.get(block.tool_use_id);
        const text = resultText(kept !== undefined ? { ...block, content: kept } : block);
        const of = kept === undefined && isRepeatNote(block) ? repeatedCallOf(text) : undefined;
        const full = (of !== undefined ? outputs.get(of) : undefined) ?? text;
        outputs.set(block.tool_use_id, full);
        item.result = clip(full);
        item.status = block.is_error ? 'error' : 'done';
      }
    });
  });
  return items;
}
