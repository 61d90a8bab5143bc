// One streamed response, put together from the SDK's stream events: blocks are built as their deltas
// arrive, handed to the StreamHandlers as they grow, and returned as core AssistantBlocks. What is kept
// of an answer that stopped early (cancelled, dropped, cut at max_tokens) is decided here.
import type {
  RawContentBlockDelta,
  RawContentBlockStartEvent,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages';
import type { AssistantBlock, StopReason, Usage } from '../conversation/types';
import type { Logger } from '../ports';
import { fromSdkStopReason, fromSdkUsage, mergeDeltaUsage } from './anthropicUsage';
import { emptyUsage, type ModelResponse, type StreamHandlers } from './modelClient';

/** A content block still arriving: its text or JSON so far. */
type Building =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; id: string; name: string; json: string; initial: Record<string, unknown> }
  | { kind: 'ignored' };

/** Accumulates one streamed response and forwards events to the handlers. */
export class ResponseState {
  id = '';
  model: string;
  requestId: string | undefined;
  usage: Usage = emptyUsage();
  stopReason: StopReason = null;
  started = false;
  stopped = false;
  private readonly building: Array<Building | undefined> = [];
  private readonly done: Array<AssistantBlock | undefined> = [];

  constructor(
    model: string,
    private readonly handlers: StreamHandlers,
    private readonly logger: Logger,
  ) {
    this.model = model;
  }

  apply(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.started = true;
        this.id = event.message.id;
        this.model = event.message.model || this.model;
        this.usage = fromSdkUsage(event.message.usage);
        this.call(() => this.handlers.onMessageStart?.(this.id, this.usage));
        this.call(() => this.handlers.onUsage?.(this.usage));
        return;
      case 'content_block_start':
        this.startBlock(event.index, event.content_block);
        return;
      case 'content_block_delta':
        this.delta(event.index, event.delta);
        return;
      case 'content_block_stop':
        this.finish(event.index);
        return;
      case 'message_delta':
        this.stopReason = fromSdkStopReason(event.delta.stop_reason);
        this.usage = mergeDeltaUsage(this.usage, event.usage);
        this.call(() => this.handlers.onUsage?.(this.usage));
        return;
      case 'message_stop':
        // A stream cut at max_tokens may leave its last block open: keep it only if it is whole.
        for (let i = 0; i < this.building.length; i++) if (this.building[i]) this.finishOpen(i);
        this.stopped = true;
        return;
    }
  }

  private startBlock(index: number, block: RawContentBlockStartEvent['content_block']): void {
    let b: Building;
    let announced: AssistantBlock | undefined;
    switch (block.type) {
      case 'text':
        b = { kind: 'text', text: block.text ?? '' };
        announced = { type: 'text', text: b.text };
        break;
      case 'thinking':
        b = { kind: 'thinking', thinking: block.thinking ?? '', signature: block.signature ?? '' };
        announced = { type: 'thinking', thinking: b.thinking, signature: b.signature };
        break;
      case 'redacted_thinking':
        b = { kind: 'redacted', data: block.data ?? '' };
        announced = { type: 'redacted_thinking', data: b.data };
        break;
      case 'tool_use':
        // The API starts with `input: {}` and streams the JSON; keep a non-empty start in case it does not.
        b = { kind: 'tool', id: block.id, name: block.name, json: '', initial: asObject(block.input) };
        announced = { type: 'tool_use', id: b.id, name: b.name, input: {} };
        break;
      default:
        // Server tools and other block kinds are not requested by Engram; skip them.
        this.logger.warn(`Ignoring a streamed content block of type ${block.type}`);
        b = { kind: 'ignored' };
    }
    this.building[index] = b;
    if (announced) this.call(() => this.handlers.onBlockStart?.(announced, index));
  }

  private delta(index: number, d: RawContentBlockDelta): void {
    const b = this.building[index];
    if (!b) return;
    if (d.type === 'text_delta' && b.kind === 'text') {
      const text = d.text ?? '';
      b.text += text;
      this.call(() => this.handlers.onTextDelta?.(text, index));
    } else if (d.type === 'thinking_delta' && b.kind === 'thinking') {
      const thinking = d.thinking ?? '';
      b.thinking += thinking;
      this.call(() => this.handlers.onThinkingDelta?.(thinking, index));
    } else if (d.type === 'signature_delta' && b.kind === 'thinking') {
      b.signature += d.signature ?? '';
    } else if (d.type === 'input_json_delta' && b.kind === 'tool') {
      const part = d.partial_json ?? '';
      b.json += part;
      this.call(() => this.handlers.onToolInputDelta?.(part, index));
    }
  }

  private finish(index: number): void {
    const b = this.building[index];
    this.building[index] = undefined;
    if (!b) return;
    let block: AssistantBlock | undefined;
    switch (b.kind) {
      case 'text':
        block = { type: 'text', text: b.text };
        break;
      case 'thinking':
        block = { type: 'thinking', thinking: b.thinking, signature: b.signature };
        break;
      case 'redacted':
        block = { type: 'redacted_thinking', data: b.data };
        break;
      case 'tool':
        block = {
          type: 'tool_use',
          id: b.id,
          name: b.name,
          input: b.json.trim() === '' ? b.initial : parseToolInput(b.json, this.logger),
        };
        break;
      case 'ignored':
        return;
    }
    this.done[index] = block;
    this.call(() => this.handlers.onBlockComplete?.(block, index));
  }

  private finishOpen(index: number): void {
    const b = this.building[index];
    if (b?.kind === 'thinking' && b.signature === '') this.building[index] = undefined;
    else if (b?.kind === 'tool' && b.json.trim() !== '' && !isJsonObject(b.json)) this.building[index] = undefined;
    else this.finish(index);
  }

  /**
   * The response so far. An unfinished text block is kept (it was shown, and text is valid as is);
   * an unfinished tool_use (input cut off) or thinking block (no signature yet) is not.
   */
  result(flags: { cancelled?: boolean; dropped?: boolean }): ModelResponse {
    const content: AssistantBlock[] = [];
    const n = Math.max(this.done.length, this.building.length);
    for (let i = 0; i < n; i++) {
      const done = this.done[i];
      const open = this.building[i];
      if (done) content.push(done);
      else if (open?.kind === 'text' && open.text.trim() !== '') content.push({ type: 'text', text: open.text });
    }
    const partial = Boolean(flags.cancelled || flags.dropped);
    const response: ModelResponse = {
      id: this.id,
      model: this.model,
      content,
      stopReason: partial ? null : this.stopReason,
      usage: this.usage,
    };
    if (partial) response.partial = true;
    if (flags.cancelled) response.cancelled = true;
    if (this.requestId) response.requestId = this.requestId;
    return response;
  }

  /** A UI bug in a handler must not lose the turn. */
  private call(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.logger.error('A stream handler threw', e);
    }
  }
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function isJsonObject(json: string): boolean {
  try {
    const v: unknown = JSON.parse(json);
    return Boolean(v) && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

function parseToolInput(json: string, logger: Logger): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  // The tool's own validation will then say what is missing, which the model can act on.
  logger.warn(`A tool_use input was not a JSON object: ${json.slice(0, 200)}`);
  return {};
}
