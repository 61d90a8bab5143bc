// The engine's own message model. It mirrors the Anthropic Messages API shapes (so a conversation can be
// sent as is) without importing SDK types: those stay at the edge, in src/core/llm/anthropicClient.ts.

export type Role = 'user' | 'assistant';

export interface TextBlock {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
}

export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: CacheControl;
}

export interface ImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string };
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | Array<TextBlock | ImageBlock>;
  is_error?: boolean;
  cache_control?: CacheControl;
}

export interface CacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export type AssistantBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock;
export type UserBlock = TextBlock | ImageBlock | ToolResultBlock;
export type ContentBlock = AssistantBlock | UserBlock;

/** One message of the API request array. */
export interface ApiMessage {
  role: Role;
  content: string | ContentBlock[];
}

export interface SystemBlock {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
}

export interface ToolSchema {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  cache_control?: CacheControl;
}

/** Token usage as the API reports it (message_start + message_delta, cumulative). */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } | null;
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | null;

// ---- Transcript lines (Claude Code's JSONL format) ----

/** Fields every conversation line carries. Unknown extra fields are kept when read and ignored. */
export interface TranscriptLineBase {
  uuid: string;
  parentUuid: string | null;
  sessionId: string;
  timestamp: string;
  isSidechain: boolean;
  cwd?: string;
  version?: string;
  gitBranch?: string;
  userType?: 'external';
  entrypoint?: string;
  agentId?: string;
  [extra: string]: unknown;
}

export interface UserLine extends TranscriptLineBase {
  type: 'user';
  message: { role: 'user'; content: string | UserBlock[] };
  isMeta?: boolean;
  isCompactSummary?: boolean;
  isVisibleInTranscriptOnly?: boolean;
  toolUseResult?: unknown;
  /** Engram: the model got a note instead of this output (repeatedResults.ts, RepeatMark). */
  engramRepeat?: unknown;
  sourceToolAssistantUUID?: string;
  promptId?: string;
}

export interface AssistantLine extends TranscriptLineBase {
  type: 'assistant';
  message: {
    id: string;
    type: 'message';
    role: 'assistant';
    model: string;
    content: AssistantBlock[];
    stop_reason: StopReason;
    stop_sequence: string | null;
    usage: Usage;
  };
  requestId?: string;
  isApiErrorMessage?: boolean;
}

export interface SystemLine extends TranscriptLineBase {
  type: 'system';
  subtype: string;
  content?: string;
  level?: 'info' | 'warning' | 'error';
  isMeta?: boolean;
  compactMetadata?: { trigger: 'manual' | 'auto'; preTokens: number; [extra: string]: unknown };
  logicalParentUuid?: string;
}

export type ConversationLine = UserLine | AssistantLine | SystemLine;

/** A line of another type (summary, queue-operation, last-prompt, file-history-snapshot, ...). */
export interface OtherLine {
  type: string;
  [extra: string]: unknown;
}
