// What the loop does while an answer streams in: each part is told to the UI as an event, and each
// complete block is written to the transcript as its own line. Kept apart from the loop, which
// decides what happens between model calls, since the line format and the events change on their own.
import type { AssistantBlock, Usage } from '../conversation/types';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import { emptyUsage, type ModelResponse, type StreamHandlers } from '../llm/modelClient';
import type { Logger } from '../ports';
import type { Tool } from '../tools/tool';
import type { AgentEvent } from './events';
import { summarizeCall } from './toolRunner';

/** Handlers that tell the UI of each streamed part (`emit`) and hand each block to `lines`. */
export function streamHandlers(
  emit: (event: AgentEvent) => void,
  tools: Map<string, Tool>,
  lines: AssistantLines,
): StreamHandlers {
  let messageId = '';
  return {
    onMessageStart: (id, usage) => {
      messageId = id;
      lines.start(id, usage);
    },
    onBlockStart: (block, index) => emit({ type: 'blockStart', messageId, index, block }),
    onTextDelta: (text, index) => emit({ type: 'textDelta', messageId, index, text }),
    onThinkingDelta: (thinking, index) => emit({ type: 'thinkingDelta', messageId, index, thinking }),
    onUsage: (usage) => {
      lines.usage = usage;
      emit({ type: 'usage', usage, messageId });
    },
    onBlockComplete: (block) => {
      lines.complete(block);
      if (block.type === 'tool_use') {
        emit({
          type: 'toolCall',
          id: block.id,
          name: block.name,
          input: block.input,
          summary: summarizeCall(tools.get(block.name), block),
        });
      }
    },
  };
}

/**
 * Writes an assistant message as it streams: one line per block, sharing message.id. The newest
 * complete block is held back until the next one completes or the message ends, so the last line
 * carries the final stop_reason and usage (as Claude Code's lines do).
 */
export class AssistantLines {
  usage: Usage = emptyUsage();
  private id = '';
  private held: AssistantBlock | undefined;
  private readonly written = new Set<AssistantBlock>();

  constructor(
    private readonly transcript: TranscriptWriter | undefined,
    private readonly model: string,
    private readonly logger: Logger,
  ) {}

  start(id: string, usage: Usage): void {
    this.id = id;
    this.usage = usage;
  }

  complete(block: AssistantBlock): void {
    if (this.held) this.write(this.held, null, undefined);
    this.held = block;
  }

  /** Writes what is left: the held block and an unfinished text block kept from a partial answer. */
  finish(response: ModelResponse): void {
    this.id = response.id || this.id;
    this.usage = response.usage;
    const rest = response.content.filter((b) => !this.written.has(b));
    rest.forEach((b, i) => {
      this.write(b, i === rest.length - 1 ? response.stopReason : null, response.requestId);
    });
    this.held = undefined;
  }

  private write(block: AssistantBlock, stopReason: ModelResponse['stopReason'], requestId: string | undefined): void {
    this.written.add(block);
    if (!this.transcript) return;
    void this.transcript
      .appendAssistantBlock(
        { id: this.id, model: this.model, stopReason, usage: this.usage, ...(requestId ? { requestId } : {}) },
        block,
      )
      .catch((e: unknown) => this.logger.error('Could not write to the transcript', e));
  }
}
