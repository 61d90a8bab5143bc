// What a forked agent (forkedAgent.ts) needs of its parent to share the prompt cache: the parent's model,
// system prompt, tools and messages, byte for byte. The main agent gives it with forkContext().
import type { ApiMessage, SystemBlock } from '../conversation/types';
import type { TranscriptWriter } from '../conversation/transcriptWriter';
import type { PathOp } from '../fs/pathGuard';
import type { ModelClient, ThinkingConfig } from '../llm/modelClient';
import type { RetryOptions } from '../llm/retry';
import type { Logger } from '../ports';
import type { Tool } from '../tools/tool';
import type { SessionSearch } from './searchContext';

/** What a forked agent needs from its parent to share the prompt cache (forkedAgent.ts). */
export interface ForkParent {
  client: ModelClient;
  model: string;
  maxTokens: number;
  thinking?: ThinkingConfig;
  system: SystemBlock[];
  tools: Tool[];
  messages: readonly ApiMessage[];
  cwd: string;
  logger: Logger;
  retry?: Omit<RetryOptions, 'onRetry'>;
  pathGuard?: (absPath: string, op: PathOp) => string | null;
  search?: SessionSearch;
  openSubagentTranscript?(agentId: string): TranscriptWriter;
}
