// The API's own count of the session's system prompt and tools. Before the first response the gauge and
// the cost line have nothing but the local tokenizer, which differs from the model's (5-6% on the bench
// for a whole prompt); count_tokens is free, so each prompt the session composes (at open, and again
// after a compaction rebuilt it) is counted once in the background and the gauge's fixed parts are set
// to the answer. A client or endpoint without count_tokens leaves the estimate as it was.
import type { Tool } from '../tools/tool';
import type { ApiMessage, SystemBlock } from '../conversation/types';
import type { ModelClient } from '../llm/modelClient';
import type { Logger } from '../ports';
import type { ContextGauge } from '../tokens/contextGauge';

/** count_tokens needs a message; this one's estimate is taken off the count again. */
const PROBE: ApiMessage = { role: 'user', content: '.' };

export interface PromptToCount {
  client: ModelClient;
  model: string;
  system: readonly SystemBlock[];
  tools: readonly Tool[];
  gauge: ContextGauge;
  logger: Logger;
}

/** Counts the prompt and sets the gauge's fixed parts to it; true when the gauge took the count. */
export async function countPromptTokens(p: PromptToCount): Promise<boolean> {
  if (!p.client.countTokens) return false;
  let counted: number;
  try {
    counted = await p.client.countTokens({
      model: p.model,
      system: [...p.system],
      tools: p.tools.map((t) => t.schema),
      messages: [PROBE],
    });
  } catch (error) {
    p.logger.info(`count_tokens failed, the gauge keeps the local estimate: ${String(error)}`);
    return false;
  }
  return p.gauge.calibrate(p.system, p.tools, counted - p.gauge.tokensOf(PROBE));
}
