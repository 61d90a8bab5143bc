// How the loop answers tool calls: each answer is shown (a toolResult event) and written to the
// transcript, a repeated result goes to the model as a note naming the earlier call, and calls that
// will not run (a broken answer, the call limit, a cancel) still get an answer, as the API requires.
import type { RepeatIndex, RepeatMark } from '../conversation/repeatedResults';
import type { ApiMessage, ToolUseBlock } from '../conversation/types';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import type { Logger } from '../ports';
import type { Tool } from '../tools/tool';
import type { AgentEvent } from './events';
import { summarizeCall, type errorResult, type ToolCallOutcome } from './toolRunner';

/** Where answers go: the loop's events, transcript and logger (a LoopConfig is one). */
export interface ResultSink {
  emit(event: AgentEvent): void;
  transcript?: TranscriptWriter;
  logger: Logger;
}

/** Answers calls that will not run, in one tool_result message, and records each answer. */
export function answerWithout(
  sink: ResultSink,
  messages: ApiMessage[],
  calls: ToolUseBlock[],
  result: ReturnType<typeof errorResult>,
): void {
  const outcomes: ToolCallOutcome[] = calls.map((call) => ({
    call,
    result,
    block: { type: 'tool_result', tool_use_id: call.id, content: result.content, is_error: true },
  }));
  for (const o of outcomes) recordResult(sink, o);
  messages.push({ role: 'user', content: outcomes.map((o) => o.block) });
}

/**
 * Shows and records one answered call. With a repeat mark, the transcript keeps the full output with
 * the mark, and the conversation gets the note instead (the outcome's block is replaced, so the tool
 * round's message holds it).
 */
export function recordResult(sink: ResultSink, o: ToolCallOutcome, repeat?: RepeatMark): void {
  sink.emit({
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
  void sink.transcript
    ?.appendToolResult(o.block, extra)
    .catch((e: unknown) => sink.logger.error('Could not write to the transcript', e));
  if (repeat) o.block = { ...o.block, content: repeat.note };
}

export function noteOfRepeat(
  repeats: RepeatIndex,
  o: ToolCallOutcome,
  tools: Map<string, Tool>,
): RepeatMark | undefined {
  return repeats.noteFor(
    o.block,
    (call) => ({ name: call?.name ?? o.call.name, summary: call ? summarizeCall(tools.get(call.name), call) : '' }),
    o.call,
  );
}
