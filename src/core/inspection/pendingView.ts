// The inspector's "Waiting for review" group: the review queue's items as the webview shows them (what
// each would create or change, its proposed content and the base for a diff, and which agent proposed it
// when another one did), and whether review is on.
import { clientProvenance } from '../memory/autoMemory/memoryWriter';
import { listPending } from '../memory/autoMemory/pendingQueue';
import { parseTopicFile } from '../memory/autoMemory/topicFile';
import type { PendingMemoryView, ReviewQueueView } from '../../protocol/messages';

export async function buildReviewQueueView(memoryDir: string, on: boolean): Promise<ReviewQueueView> {
  let listed;
  try {
    listed = await listPending(memoryDir);
  } catch (e) {
    return { on, items: [], problems: [e instanceof Error ? e.message : String(e)] };
  }
  return { on, items: listed.items.map(viewOf), problems: listed.problems };
}

function viewOf(item: Awaited<ReturnType<typeof listPending>>['items'][number]): PendingMemoryView {
  const parsed = parseTopicFile(item.content);
  const writtenBy = parsed.binary ? undefined : clientProvenance(parsed.data);
  const team = item.team && item.file.startsWith('team/');
  const file = team ? item.file.slice('team/'.length) : item.file;
  return {
    id: item.id,
    group: team ? 'team' : 'private',
    file,
    action: item.action,
    title: (!parsed.binary && parsed.name?.trim()) || file.replace(/\.md$/i, '').replace(/[_-]+/g, ' '),
    type: parsed.binary ? null : parsed.type,
    ...(!parsed.binary && parsed.description ? { description: parsed.description } : {}),
    content: item.content,
    base: item.base,
    proposedAt: item.proposedAt,
    sessionId: item.sessionId,
    messageId: item.messageId,
    ...(writtenBy ? { writtenBy } : {}),
  };
}
