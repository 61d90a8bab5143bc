// The model/tool loop shared by the main agent and forked agents: call the model, keep what it said,
// run the tools it asked for, answer them, and go again until it stops. Whatever way a round ends
// (done, cancelled, dropped, failed), the message list it leaves is one the API accepts.
// What happens while an answer streams is in answerStream.ts, what of it is kept in replyContent.ts,
// and how tool calls are answered and recorded in toolCallAnswers.ts; this file is the round itself.
import { RepeatIndex } from '../conversation/repeatedResults';
import type { ApiMessage, SystemBlock, ToolUseBlock, Usage } from '../conversation/types';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import {
  ConnectionDroppedError,
  isModelError,
  PromptTooLongError,
  transcriptNotWritten,
  type ModelError,
} from '../llm/errors';
import type { BreakpointOptions } from '../llm/cacheBreakpoints';
import { addUsage, emptyUsage, type ModelClient, type ModelResponse, type ThinkingConfig } from '../llm/modelClient';
import { streamWithRetry, type RetryOptions } from '../llm/retry';
import type { Logger } from '../ports';
import type { Tool, ToolContext } from '../tools/tool';
import type { AgentEvent, TurnEndReason } from './events';
import type { ToolGate } from './permissions';
import { AssistantLines, streamHandlers } from './answerStream';
import { keptContent, stopToEnd, textOf } from './replyContent';
import { answerWithout, noteOfRepeat, recordResult } from './toolCallAnswers';
import { cancelledResult, errorResult, runToolCalls, type ToolCallOutcome } from './toolRunner';
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
  /** When set, read before each model call instead of `tools` (a session's built-ins plus its MCP servers' tools). */
  toolsNow?(): Tool[];
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
  /** Before a tool that may change files runs: the turn's checkpoint (toolRunner.ts ToolRunDeps.beforeChange). */
  beforeChange?(): Promise<void>;
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
  let tools = cfg.tools;
  let toolMap = new Map(tools.map((t) => [t.name, t]));
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

    if (cfg.toolsNow) {
      tools = cfg.toolsNow();
      toolMap = new Map(tools.map((t) => [t.name, t]));
    }
    const lines = new AssistantLines(cfg.transcript, cfg.model, cfg.logger);
    const handlers = streamHandlers(cfg.emit, toolMap, lines);
    let response: ModelResponse | undefined;
    let error: ModelError | undefined;
    try {
      response = await streamWithRetry(
        cfg.client,
        {
          model: cfg.model,
          maxTokens: cfg.maxTokens,
          system: cfg.system,
          tools: cfg.offerTools === false ? [] : tools.map((t) => t.schema),
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
      ...(cfg.beforeChange ? { beforeChange: cfg.beforeChange } : {}),
      onResult: (o) => recordResult(cfg, o, repeats && noteOfRepeat(repeats, o, toolMap)),
    });
    messages.push({ role: 'user', content: outcomes.map((o) => o.block) });
    if (signal.aborted) return end('cancelled');
    if (cfg.stopAfterTools?.(outcomes)) return end('end_turn');
  }
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
