// The person's word on a recalled memory: "not relevant" for the message it was attached to. It is kept
// with the memory's use counts (usageCounts.ts), so recall does not attach it again for the same words,
// and the attachment is emptied in the conversation, so the next request goes without it (this costs
// the prompt cache from that message on, once). Undo takes the record back; the text stays out until a
// message brings the memory again.
import type { Agent } from '../agent/agent';
import { memoryHome } from '../memory/autoMemory/memoryPaths';
import { withoutAttachment } from '../memory/autoMemory/recall';
import { setNotRelevant } from '../memory/autoMemory/usageCounts';
import type { Logger } from '../ports';

export async function markNotRelevant(
  agent: Agent,
  memoryDir: string,
  file: string,
  words: readonly string[],
  undo: boolean,
  logger: Logger,
): Promise<void> {
  const home = memoryHome(memoryDir, file);
  await setNotRelevant(home.dir, home.file, words, undo, logger);
  // A running turn has already sent it; the record keeps it out of the turns after.
  if (undo || agent.busy) return;
  const dropped = withoutAttachment(agent.messages, file);
  if (dropped) agent.replaceMessages(dropped);
}
