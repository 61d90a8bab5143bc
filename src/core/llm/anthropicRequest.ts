// Core's ModelRequest as the SDK's streaming request parameters. Kept apart from the client so that what
// goes out (cache breakpoints, thinking, tools) changes here, and how it is sent and read changes there.
import type { MessageCountTokensParams, MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages';
import { withCacheBreakpoints } from './cacheBreakpoints';
import type { ModelRequest, TokenCountRequest } from './modelClient';

/** The request body for one streamed model call, with the cache breakpoints placed. */
export function toRequestParams(req: ModelRequest): MessageCreateParamsStreaming {
  const parts = withCacheBreakpoints(req.system, req.tools, req.messages, req.cache);
  // Core shapes mirror the API; the casts only bridge the SDK's narrower literal unions.
  const params: MessageCreateParamsStreaming = {
    model: req.model,
    max_tokens: req.maxTokens,
    messages: parts.messages as unknown as MessageCreateParamsStreaming['messages'],
    stream: true,
  };
  if (parts.system.length > 0) params.system = parts.system as unknown as MessageCreateParamsStreaming['system'];
  if (parts.tools.length > 0) params.tools = parts.tools as unknown as MessageCreateParamsStreaming['tools'];
  if (req.thinking?.type === 'enabled') params.thinking = { type: 'enabled', budget_tokens: req.thinking.budgetTokens };
  else if (req.thinking?.type === 'adaptive') params.thinking = { type: 'adaptive' };
  return params;
}

/** The body of a token count: the prompt as it would be sent (no breakpoints: they do not change the count). */
export function toCountParams(req: TokenCountRequest): MessageCountTokensParams {
  const params: MessageCountTokensParams = {
    model: req.model,
    messages: req.messages as unknown as MessageCountTokensParams['messages'],
  };
  if (req.system.length > 0) params.system = req.system as unknown as MessageCountTokensParams['system'];
  if (req.tools.length > 0) params.tools = req.tools as unknown as MessageCountTokensParams['tools'];
  return params;
}
