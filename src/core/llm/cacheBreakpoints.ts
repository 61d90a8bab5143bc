// Prompt-cache breakpoints, added on a copy of the request at send time. Stored messages are never
// touched: the cached prefix must stay byte-identical from one call to the next (DESIGN 8).
import type { ApiMessage, CacheControl, ContentBlock, SystemBlock, ToolSchema } from '../conversation/types';

const EPHEMERAL: CacheControl = { type: 'ephemeral' };

export interface CachedRequestParts {
  system: SystemBlock[];
  tools: ToolSchema[];
  messages: ApiMessage[];
}

/**
 * Four breakpoints, the most the API allows per request: the last tool, the last system block, the
 * last block of the newest user message (this call writes the cache up to there) and the last block of
 * the user message before it (exactly where the previous call wrote, so the read hits even when a turn
 * added more than the API's 20-block look-back). String contents are sent as one text block so a
 * message renders the same in every call.
 */
export function withCacheBreakpoints(system: SystemBlock[], tools: ToolSchema[], messages: ApiMessage[]): CachedRequestParts {
  const outSystem = system.map(stripCache);
  if (outSystem.length > 0) outSystem[outSystem.length - 1] = { ...outSystem[outSystem.length - 1], cache_control: EPHEMERAL };
  const outTools = tools.map(stripCache);
  if (outTools.length > 0) outTools[outTools.length - 1] = { ...outTools[outTools.length - 1], cache_control: EPHEMERAL };

  const outMessages = messages.map(asBlocks);
  let marked = 0;
  for (let i = outMessages.length - 1; i >= 0 && marked < 2; i--) {
    const m = outMessages[i];
    if (m.role !== 'user' || m.content.length === 0) continue;
    const content = m.content.slice();
    content[content.length - 1] = { ...content[content.length - 1], cache_control: EPHEMERAL } as ContentBlock;
    outMessages[i] = { role: 'user', content };
    marked++;
  }
  return { system: outSystem, tools: outTools, messages: outMessages };
}

function stripCache<T extends { cache_control?: CacheControl }>(item: T): T {
  if (item.cache_control === undefined) return item;
  const { cache_control: _dropped, ...rest } = item;
  return rest as T;
}

function asBlocks(m: ApiMessage): { role: ApiMessage['role']; content: ContentBlock[] } {
  if (typeof m.content === 'string') return { role: m.role, content: [{ type: 'text', text: m.content }] };
  // Copy only when a stored block carries an old marker (e.g. read back from a foreign transcript).
  if (!m.content.some((b) => 'cache_control' in b && b.cache_control !== undefined)) return { role: m.role, content: m.content };
  return { role: m.role, content: m.content.map((b) => stripCache(b as ContentBlock & { cache_control?: CacheControl })) };
}
