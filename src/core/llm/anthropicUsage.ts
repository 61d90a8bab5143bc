// The SDK's usage counts and stop reasons as core's Usage and StopReason, so no SDK type reaches the
// conversation (STYLE habit 8). A new usage field or stop reason from the API is handled here.
import type {
  MessageDeltaUsage,
  StopReason as SdkStopReason,
  Usage as SdkUsage,
} from '@anthropic-ai/sdk/resources/messages';
import type { StopReason, Usage } from '../conversation/types';

/** The usage of message_start, with every missing count as 0. */
export function fromSdkUsage(u: SdkUsage): Usage {
  const usage: Usage = {
    input_tokens: u.input_tokens ?? 0,
    output_tokens: u.output_tokens ?? 0,
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
  };
  if (u.cache_creation) {
    usage.cache_creation = {
      ephemeral_5m_input_tokens: u.cache_creation.ephemeral_5m_input_tokens ?? 0,
      ephemeral_1h_input_tokens: u.cache_creation.ephemeral_1h_input_tokens ?? 0,
    };
  }
  return usage;
}

/** message_delta usage is cumulative; a null field means "unchanged since message_start". */
export function mergeDeltaUsage(prev: Usage, d: MessageDeltaUsage): Usage {
  return {
    ...prev,
    input_tokens: d.input_tokens ?? prev.input_tokens,
    output_tokens: d.output_tokens ?? prev.output_tokens,
    cache_creation_input_tokens: d.cache_creation_input_tokens ?? prev.cache_creation_input_tokens,
    cache_read_input_tokens: d.cache_read_input_tokens ?? prev.cache_read_input_tokens,
  };
}

export function fromSdkStopReason(r: SdkStopReason | null): StopReason {
  // The window-exceeded stop behaves like max_tokens for the loop: the answer is cut short.
  if (r === 'model_context_window_exceeded') return 'max_tokens';
  return r;
}
