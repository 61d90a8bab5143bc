// A side task that continues from the main conversation: same model, system prompt, tool schemas and
// message prefix (byte-identical, so its first call reads the parent's prompt cache), plus one extra
// user message. Its own permission rule, its own sidechain transcript, and nothing flows back into
// the parent's messages. Session notes and memory extraction run this way.
import { randomBytes } from 'node:crypto';
import type { ApiMessage, ContentBlock, ToolResultBlock, ToolUseBlock, Usage } from '../conversation/types';
import type { ModelError } from '../llm/errors';
import type { Tool } from '../tools/tool';
import { ReadFileState } from '../tools/readFileState';
import type { Agent } from './agent';
import type { ForkParent } from './forkParent';
import { searchContext } from './searchContext';
import type { AgentEventListener, TurnEndReason } from './events';
import type { ToolDecision, ToolGate } from './permissions';
import { runLoop, type LoopConfig } from './queryLoop';

export interface ForkOptions {
  parent: Agent | ForkParent;
  extraUserMessage: string;
  canUseTool(tool: Tool, input: Record<string, unknown>): ToolDecision | Promise<ToolDecision>;
  /** Model calls allowed; the fork stops after this many even if it asked for more tools. */
  maxTurns: number;
  signal?: AbortSignal;
  /** Names the sub-transcript `agent-<id>.jsonl`; random when not given. */
  agentId?: string;
  /** The fork's own file-read state (Edit needs a prior Read); a fresh one when not given. */
  readFiles?: ReadFileState;
  onEvent?: AgentEventListener;
  /** End the fork after a tool round when this says so (no closing model call). */
  stopAfterTools?: LoopConfig['stopAfterTools'];
  /**
   * False for a fork that makes one call: its own message is sent once, so it is not written to the
   * cache (a write costs more than sending it); the parent's prefix is still read. Default true.
   */
  cacheTail?: boolean;
}

export interface ForkResult {
  agentId: string;
  reason: TurnEndReason;
  /** Text of the fork's last answer. */
  text: string;
  usage: Usage;
  modelCalls: number;
  /** The fork's whole conversation (the shared prefix included). */
  messages: ApiMessage[];
  error?: ModelError;
}

const HANDLED_BY_MAIN = 'Not run here: this tool call belongs to the main conversation, which runs it.';

export async function fork(opts: ForkOptions): Promise<ForkResult> {
  const parent = isForkParent(opts.parent) ? opts.parent : opts.parent.forkContext();
  const agentId = opts.agentId ?? randomBytes(8).toString('hex');
  const transcript = parent.openSubagentTranscript?.(agentId);
  const messages = forkMessages(parent.messages, opts.extraUserMessage);
  const signal = opts.signal ?? new AbortController().signal;
  const emit = opts.onEvent ?? (() => {});

  if (transcript) {
    try {
      await transcript.appendUserPrompt(opts.extraUserMessage);
    } catch (e) {
      parent.logger.error('Could not write the forked agent transcript', e);
    }
  }
  const gate: ToolGate = async (tool, input) => opts.canUseTool(tool, input);
  const result = await runLoop(
    {
      client: parent.client,
      model: parent.model,
      maxTokens: parent.maxTokens,
      ...(parent.thinking ? { thinking: parent.thinking } : {}),
      system: parent.system,
      tools: parent.tools,
      gate,
      toolContext: {
        cwd: parent.cwd,
        readFiles: opts.readFiles ?? new ReadFileState(),
        ...(parent.pathGuard ? { pathGuard: parent.pathGuard } : {}),
        ...searchContext(parent.search),
      },
      ...(transcript ? { transcript } : {}),
      emit,
      logger: parent.logger,
      ...(parent.retry ? { retry: parent.retry } : {}),
      maxModelCalls: opts.maxTurns,
      ...(opts.stopAfterTools ? { stopAfterTools: opts.stopAfterTools } : {}),
      ...(opts.cacheTail === false ? { cacheHints: () => ({ cacheTail: false }) } : {}),
    },
    messages,
    signal,
  );
  await transcript
    ?.flush()
    .catch((e: unknown) => parent.logger.error('Could not write the forked agent transcript', e));
  return { agentId, ...result, messages };
}

/**
 * The parent's messages as they are (same objects, so the same bytes), then the fork's message. If the
 * parent is waiting on tool calls (a hook that runs right after a model response), those are answered
 * as "not run here" in the same message; if the parent ends on a user message, the text joins it.
 */
export function forkMessages(prefix: readonly ApiMessage[], extra: string): ApiMessage[] {
  const messages = prefix.slice();
  const text: ContentBlock = { type: 'text', text: extra };
  const last = messages[messages.length - 1];
  if (!last) return [{ role: 'user', content: extra }];
  if (last.role === 'user') {
    const blocks: ContentBlock[] =
      typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    messages[messages.length - 1] = { role: 'user', content: [...blocks, text] };
    return messages;
  }
  const pending =
    typeof last.content === 'string' ? [] : last.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
  const answers: ToolResultBlock[] = pending.map((b) => ({
    type: 'tool_result',
    tool_use_id: b.id,
    content: HANDLED_BY_MAIN,
    is_error: true,
  }));
  messages.push({ role: 'user', content: [...answers, text] });
  return messages;
}

function isForkParent(p: Agent | ForkParent): p is ForkParent {
  return !('forkContext' in p);
}
