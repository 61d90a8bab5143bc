// What the agent loop tells its UIs (chat view, CLI, tests) while a turn runs. Data only: a UI renders
// these and never reaches into the loop.
import type { ApiMessage, AssistantBlock, Usage } from '../conversation/types';
import type { ModelErrorKind } from '../llm/errors';
import type { PermissionAnswer } from '../ports';

/** Why a turn ended. */
export type TurnEndReason =
  | 'end_turn' // the model finished
  | 'max_tokens' // the answer was cut at the output limit
  | 'refusal'
  | 'stop_sequence'
  | 'max_turns' // the loop's model-call budget ran out (forked agents)
  | 'cancelled'
  | 'error';

export type AgentEvent =
  | { type: 'turnStart'; prompt: string }
  | { type: 'blockStart'; messageId: string; index: number; block: AssistantBlock }
  | { type: 'textDelta'; messageId: string; index: number; text: string }
  | { type: 'thinkingDelta'; messageId: string; index: number; thinking: string }
  | { type: 'toolCall'; id: string; name: string; input: Record<string, unknown>; summary: string }
  | { type: 'toolResult'; id: string; name: string; content: string; isError: boolean; data?: unknown }
  | { type: 'permissionAsked'; toolUseId: string; toolName: string; summary: string }
  | { type: 'permissionAnswered'; toolUseId: string; toolName: string; answer: PermissionAnswer | 'auto' }
  | { type: 'assistantMessage'; message: ApiMessage; messageId: string; partial: boolean }
  | { type: 'usage'; usage: Usage; messageId: string }
  /**
   * The conversation was swapped for another list (a compaction or its undo): what was measured of the
   * old one no longer applies. Fired after the swap, so listeners read the new list.
   */
  | { type: 'conversationReplaced'; messages: number }
  | { type: 'retrying'; attempt: number; maxRetries: number; delayMs: number; reason: string; kind: ModelErrorKind }
  | { type: 'error'; kind: ModelErrorKind | 'internal'; message: string }
  | { type: 'turnEnd'; reason: TurnEndReason; text: string; usage: Usage; modelCalls: number };

export type AgentEventListener = (event: AgentEvent) => void;
