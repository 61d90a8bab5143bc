// The model/tool loop shared by the main agent and forked agents: call the model, keep what it said,
// run the tools it asked for, answer them, and go again until it stops. Whatever way a round ends
// (done, cancelled, dropped, failed), the message list it leaves is one the API accepts.
import { RepeatIndex, type RepeatMark } from '../conversation/repeatedResults';
import type { ApiMessage, AssistantBlock, SystemBlock, ToolUseBlock, Usage } from '../conversation/types';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import {
  ConnectionDroppedError,
  isModelError,
  PromptTooLongError,
  transcriptNotWritten,
  type ModelError,
} from '../llm/errors';
import type { BreakpointOptions } from '../llm/cacheBreakpoints';
import {
  addUsage,
  emptyUsage,
  type ModelClient,
  type ModelResponse,
  type StreamHandlers,
  type ThinkingConfig,
} from '../llm/modelClient';
import { streamWithRetry, type RetryOptions } from '../llm/retry';
import type { Logger } from '../ports';
import type { Tool, ToolContext } from '../tools/tool';
import type { AgentEvent, TurnEndReason } from './events';
import type { ToolGate } from './permissions';
import { cancelledResult, errorResult, runToolCalls, summarizeCall, type ToolCallOutcome } from './toolRunner';
import { recoverableTooLong } from './reactiveErrors';
import { markedCutOff } from './cutOffReply';
import { MAX_REACTIVE_RETRIES } from '../thresholds';

export interface LoopConfig {
  client: ModelClient;
  model: string;
  maxTokens: number;
  thinking?: ThinkingConfig;
  system: SystemBlock[];
  /** The tools that can run; their schemas are offered to the model unless `offerTools` is false. */
  tools: Tool[];
  /** False in an untrusted workspace: nothing is offered, and the gate explains any call. */
  offerTools?: boolean;
  gate: ToolGate;
  toolContext: Omit<ToolContext, 'signal'>;
  transcript?: TranscriptWriter;
  emit(event: AgentEvent): void;
  logger: Logger;
  retry?: Omit<RetryOptions, 'onRetry'>;
  /** Model calls allowed in this run; undefined = until the model stops. */
  maxModelCalls?: number;
  afterModelResponse?(response: ModelResponse): Promise<void>;
  /** After a tool round: true ends the run there (no closing model call), e.g. every notes edit applied. */
  stopAfterTools?(outcomes: readonly ToolCallOutcome[]): boolean;
  /**
   * Reactive compaction: given the conversation the API found too long, returns a shorter one to
   * retry with (it replaces `messages`), or undefined to give up. Tried at most 3 times per run.
   */
  recoverPromptTooLong?(error: PromptTooLongError, messages: ApiMessage[]): Promise<ApiMessage[] | undefined>;
  /**
   * Automatic compaction: runs before each model call with a copy of the conversation; a returned list
   * replaces it. A failure is logged and the call goes ahead with the conversation as it was.
   */
  beforeModelCall?(messages: ApiMessage[], signal: AbortSignal): Promise<ApiMessage[] | undefined>;
  /** Cache breakpoints of each call beyond the defaults (ModelRequest.cache); read just before it is sent. */
  cacheHints?(messages: readonly ApiMessage[]): BreakpointOptions | undefined;
  /**
   * A result identical to one the conversation still carries whole goes into it as a note naming the
   * earlier call (repeatedResults.ts); the transcript keeps the full output and the note beside it.
   */
  sendRepeatsOnce?: boolean;
}

function cacheOf(cfg: LoopConfig, messages: readonly ApiMessage[]): { cache?: BreakpointOptions } {
  const cache = cfg.cacheHints?.(messages);
  return cache ? { cache } : {};
}

export interface LoopResult {
  reason: TurnEndReason;
  /** Text of the last assistant message of the run. */
  text: string;
  usage: Usage;
  modelCalls: number;
  error?: ModelError;
}

const NOT_RUN_TURN_LIMIT = 'Not run: this agent reached its limit of model calls.';
const NOT_RUN_AFTER_DROP = 'Not run: the answer broke off (connection or API failure) before it was complete.';

/** Runs rounds until the model stops. Appends to `messages` (never changes a message already in it). */
export async function runLoop(cfg: LoopConfig, messages: ApiMessage[], signal: AbortSignal): Promise<LoopResult> {
  const toolMap = new Map(cfg.tools.map((t) => [t.name, t]));
  let usage = emptyUsage();
  let modelCalls = 0;
  let text = '';
  let recoveries = 0;
  const end = (reason: TurnEndReason, error?: ModelError): LoopResult => ({
    reason,
    text,
    usage,
    modelCalls,
    ...(error ? { error } : {}),
  });

  for (;;) {
    if (signal.aborted) return end('cancelled');
    if (cfg.maxModelCalls !== undefined && modelCalls >= cfg.maxModelCalls) return end('max_turns');
    // A transcript that refuses lines fails the turn: more model calls would be spent on what a resume never sees.
    const unsaved = await transcriptFailure(cfg.transcript);
    if (unsaved) {
      cfg.emit({ type: 'error', kind: unsaved.kind, message: unsaved.message });
      return end('error', unsaved);
    }

    if (cfg.beforeModelCall) {
      try {
        const replaced = await cfg.beforeModelCall(messages.slice(), signal);
        if (replaced) {
          messages.splice(0, messages.length, ...replaced);
          cfg.emit({ type: 'conversationReplaced', messages: messages.length });
        }
      } catch (e) {
        cfg.logger.error('Compaction before the model call failed', e);
      }
      if (signal.aborted) return end('cancelled');
    }

    const lines = new AssistantLines(cfg.transcript, cfg.model, cfg.logger);
    const handlers = streamHandlers(cfg, toolMap, lines);
    let response: ModelResponse | undefined;
    let error: ModelError | undefined;
    try {
      response = await streamWithRetry(
        cfg.client,
        {
          model: cfg.model,
          maxTokens: cfg.maxTokens,
          system: cfg.system,
          tools: cfg.offerTools === false ? [] : cfg.tools.map((t) => t.schema),
          messages: messages.slice(),
          ...(cfg.thinking ? { thinking: cfg.thinking } : {}),
          ...cacheOf(cfg, messages),
        },
        handlers,
        signal,
        {
          ...cfg.retry,
          onRetry: (info) => {
            cfg.emit({
              type: 'retrying',
              attempt: info.attempt,
              maxRetries: info.maxRetries,
              delayMs: info.delayMs,
              reason: info.error.message,
              kind: info.error.kind,
            });
            void cfg.transcript
              ?.appendSystem({
                subtype: 'api_error',
                level: 'error',
                content: info.error.message,
                fields: { retryInMs: info.delayMs, retryAttempt: info.attempt, maxRetries: info.maxRetries },
              })
              .catch((e: unknown) => cfg.logger.error('Could not write to the transcript', e));
          },
        },
      );
    } catch (e) {
      if (!isModelError(e)) throw e;
      error = e;
      response = markedCutOff(e.partial, e);
    }
    if (response?.id) modelCalls++;
    if (response) usage = addUsage(usage, response.usage);

    const content = keptContent(response);
    if (response && content.length > 0) {
      lines.finish(response);
      const message: ApiMessage = { role: 'assistant', content };
      messages.push(message);
      text = textOf(content);
      cfg.emit({ type: 'assistantMessage', message, messageId: response.id, partial: response.partial === true });
    }
    if (response && !response.partial && !error) await cfg.afterModelResponse?.(response);

    const calls = content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    const tooLong = recoverableTooLong(error);
    if (tooLong && cfg.recoverPromptTooLong && recoveries < MAX_REACTIVE_RETRIES) {
      recoveries++;
      const shorter = await cfg.recoverPromptTooLong(tooLong, messages.slice());
      if (shorter) {
        messages.splice(0, messages.length, ...shorter);
        cfg.emit({ type: 'conversationReplaced', messages: messages.length });
        continue;
      }
    }
    if (error) {
      // A complete tool call from a broken answer is answered but not run: the model did not finish
      // its thought, and the person saw the failure.
      if (calls.length > 0) answerWithout(cfg, messages, calls, errorResult(NOT_RUN_AFTER_DROP));
      cfg.emit({ type: 'error', kind: error.kind, message: error.message });
      await writeSafely(cfg, () =>
        cfg.transcript?.appendSystem({
          subtype: 'api_error',
          level: 'error',
          content: error.message,
          fields: {
            errorKind: error.kind,
            ...(error.status ? { status: error.status } : {}),
            ...(error instanceof ConnectionDroppedError ? { partial: true } : {}),
          },
        }),
      );
      return end('error', error);
    }
    if (!response || response.cancelled) {
      if (calls.length > 0) answerWithout(cfg, messages, calls, cancelledResult());
      await writeSafely(cfg, () =>
        cfg.transcript?.appendSystem({ subtype: 'interrupted', level: 'info', content: 'Cancelled by the user.' }),
      );
      return end('cancelled');
    }
    if (calls.length === 0) return end(stopToEnd(response.stopReason));
    if (cfg.maxModelCalls !== undefined && modelCalls >= cfg.maxModelCalls) {
      // The model would never see these results: answer them without running anything.
      answerWithout(cfg, messages, calls, errorResult(NOT_RUN_TURN_LIMIT));
      return end('max_turns');
    }

    // Built before the round: a note names a copy the model already has, never one of this round.
    const repeats = cfg.sendRepeatsOnce ? new RepeatIndex(messages) : undefined;
    const outcomes = await runToolCalls(calls, {
      tools: toolMap,
      gate: cfg.gate,
      context: cfg.toolContext,
      signal,
      onResult: (o) => recordResult(cfg, o, repeats && noteOfRepeat(repeats, o, toolMap)),
    });
    messages.push({ role: 'user', content: outcomes.map((o) => o.block) });
    if (signal.aborted) return end('cancelled');
    if (cfg.stopAfterTools?.(outcomes)) return end('end_turn');
  }
}

function streamHandlers(cfg: LoopConfig, tools: Map<string, Tool>, lines: AssistantLines): StreamHandlers {
  let messageId = '';
  return {
    onMessageStart: (id, usage) => {
      messageId = id;
      lines.start(id, usage);
    },
    onBlockStart: (block, index) => cfg.emit({ type: 'blockStart', messageId, index, block }),
    onTextDelta: (text, index) => cfg.emit({ type: 'textDelta', messageId, index, text }),
    onThinkingDelta: (thinking, index) => cfg.emit({ type: 'thinkingDelta', messageId, index, thinking }),
    onUsage: (usage) => {
      lines.usage = usage;
      cfg.emit({ type: 'usage', usage, messageId });
    },
    onBlockComplete: (block) => {
      lines.complete(block);
      if (block.type === 'tool_use') {
        cfg.emit({
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

/** Answers calls that will not run, in one tool_result message, and records each answer. */
function answerWithout(
  cfg: LoopConfig,
  messages: ApiMessage[],
  calls: ToolUseBlock[],
  result: ReturnType<typeof errorResult>,
): void {
  const outcomes: ToolCallOutcome[] = calls.map((call) => ({
    call,
    result,
    block: { type: 'tool_result', tool_use_id: call.id, content: result.content, is_error: true },
  }));
  for (const o of outcomes) recordResult(cfg, o);
  messages.push({ role: 'user', content: outcomes.map((o) => o.block) });
}

/**
 * Shows and records one answered call. With a repeat mark, the transcript keeps the full output with
 * the mark, and the conversation gets the note instead (the outcome's block is replaced, so the tool
 * round's message holds it).
 */
function recordResult(cfg: LoopConfig, o: ToolCallOutcome, repeat?: RepeatMark): void {
  cfg.emit({
    type: 'toolResult',
    id: o.call.id,
    name: o.call.name,
    content: o.result.content,
    isError: o.result.isError,
    data: o.result.data,
  });
  const extra = {
    ...(o.result.data !== undefined ? { toolUseResult: o.result.data } : {}),
    ...(repeat ? { repeat } : {}),
  };
  void cfg.transcript
    ?.appendToolResult(o.block, extra)
    .catch((e: unknown) => cfg.logger.error('Could not write to the transcript', e));
  if (repeat) o.block = { ...o.block, content: repeat.note };
}

function noteOfRepeat(repeats: RepeatIndex, o: ToolCallOutcome, tools: Map<string, Tool>): RepeatMark | undefined {
  return repeats.noteFor(
    o.block,
    (call) => ({ name: call?.name ?? o.call.name, summary: call ? summarizeCall(tools.get(call.name), call) : '' }),
    o.call,
  );
}

/** Waits for the lines written so far; the error to end the turn with when one of them failed. */
export async function transcriptFailure(transcript: TranscriptWriter | undefined): Promise<ModelError | undefined> {
  if (!transcript) return undefined;
  await transcript.flush();
  return transcript.failure ? transcriptNotWritten(transcript.file, transcript.failure) : undefined;
}

async function writeSafely(cfg: LoopConfig, write: () => Promise<unknown> | undefined): Promise<void> {
  try {
    await write();
  } catch (e) {
    cfg.logger.error('Could not write to the transcript', e);
  }
}

/**
 * What of an answer goes into the conversation, by the same rules the transcript normaliser applies
 * when a session is read back, so a resumed session sends the very bytes this one sent (and hits the
 * cache): no blank text blocks (the API rejects them), and an answer that ends the turn loses
 * trailing whitespace (the API rejects it on a final assistant message). A partial answer with only
 * thinking in it says nothing and is not kept.
 */
function keptContent(response: ModelResponse | undefined): AssistantBlock[] {
  if (!response) return [];
  let content = response.content.filter((b) => b.type !== 'text' || b.text.trim() !== '');
  if (response.partial && !content.some((b) => b.type === 'text' || b.type === 'tool_use')) return [];
  const last = content[content.length - 1];
  if (last?.type === 'text' && /\s$/.test(last.text) && !content.some((b) => b.type === 'tool_use')) {
    content = [...content.slice(0, -1), { ...last, text: last.text.trimEnd() }];
  }
  return content;
}

function stopToEnd(stop: ModelResponse['stopReason']): TurnEndReason {
  switch (stop) {
    case 'max_tokens':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    case 'stop_sequence':
      return 'stop_sequence';
    default:
      return 'end_turn';
  }
}

export function textOf(content: AssistantBlock[]): string {
  return content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('');
}

/**
 * Writes an assistant message as it streams: one line per block, sharing message.id. The newest
 * complete block is held back until the next one completes or the message ends, so the last line
 * carries the final stop_reason and usage (as Claude Code's lines do).
 */
class AssistantLines {
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
