// Prompt-cache breakpoints, added on a copy of the request at send time. Stored messages are never
// touched: the cached prefix must stay byte-identical from one call to the next (DESIGN 8).
import type { ApiMessage, CacheControl, ContentBlock, SystemBlock, ToolSchema } from '../conversation/types';
import type { CacheTtl } from './cacheTtl';

/** The API allows 4 breakpoints a request; the system prompt always takes one. */
const MESSAGE_BREAKPOINTS = 3;

export interface CachedRequestParts {
  system: SystemBlock[];
  tools: ToolSchema[];
  messages: ApiMessage[];
}

export interface BreakpointOptions {
  /**
   * Right after a trim: the message where the cached prefix still ends (the one before the first
   * changed message). Marked instead of the previous user message, which no longer matches the cache.
   */
  readAt?: number;
  /**
   * The end of the stable prefix: the last message holding a trimmed tool result. Nothing before it
   * changes until the next trim, which starts after it.
   */
  stableAt?: number;
  /**
   * False when the last block is sent once (a forked agent's own request, a summary request): it is
   * not written to the cache, which would cost more than sending it; the block before it is marked
   * instead, so the conversation it continues is read.
   */
  cacheTail?: boolean;
  /** The lifetime of every breakpoint of the request (one for all: never mixed); default 5 minutes. */
  ttl?: CacheTtl;
}

/**
 * Up to four breakpoints, the most the API allows: the last system block (the tools come before it,
 * so it covers them too), and on the messages, in this order of priority:
 * - write: the last block of the newest user message (this call writes the cache up to there), or,
 *   without `cacheTail`, the block before the request's last one;
 * - read: the last block of the user message before it (exactly where the previous call wrote, so the
 *   read hits even when a turn added more than the API's 20-block look-back), or `readAt` after a trim;
 * - stable: `stableAt`; marking it keeps the prefix before the next trim stored (and its TTL fresh),
 *   so that trim reads it instead of rewriting the conversation from the system prompt on.
 * The last tool gets the breakpoint left over, if any. String contents are sent as one text block so a
 * message renders the same in every call.
 */
export function withCacheBreakpoints(
  system: SystemBlock[],
  tools: ToolSchema[],
  messages: ApiMessage[],
  opts: BreakpointOptions = {},
): CachedRequestParts {
  const ephemeral: CacheControl = opts.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const outSystem = system.map(stripCache);
  if (outSystem.length > 0)
    outSystem[outSystem.length - 1] = { ...outSystem[outSystem.length - 1], cache_control: ephemeral };
  const outTools = tools.map(stripCache);
  const outMessages = messages.map(asBlocks);

  const anchors: Array<[message: number, block: number]> = [];
  const add = (at: [number, number] | undefined): void => {
    if (!at || at[0] < 0 || anchors.length >= MESSAGE_BREAKPOINTS) return;
    if (!anchors.some(([m, b]) => m === at[0] && b === at[1])) anchors.push(at);
  };
  const lastBlock = (i: number): [number, number] | undefined =>
    i >= 0 && outMessages[i].content.length > 0 ? [i, outMessages[i].content.length - 1] : undefined;
  const write =
    opts.cacheTail === false
      ? blockBeforeLast(outMessages)
      : lastBlock(newestUserBefore(outMessages, outMessages.length));
  add(write);
  add(lastBlock(inRange(opts.readAt, outMessages.length) ?? (write ? newestUserBefore(outMessages, write[0]) : -1)));
  add(lastBlock(inRange(opts.stableAt, outMessages.length) ?? -1));
  for (const [i, b] of anchors) {
    const content = outMessages[i].content.slice();
    content[b] = { ...content[b], cache_control: ephemeral } as ContentBlock;
    outMessages[i] = { role: outMessages[i].role, content };
  }
  if (anchors.length < MESSAGE_BREAKPOINTS && outTools.length > 0)
    outTools[outTools.length - 1] = { ...outTools[outTools.length - 1], cache_control: ephemeral };
  return { system: outSystem, tools: outTools, messages: outMessages };
}

/** Index of the newest non-empty user message before `end`, or -1. */
function newestUserBefore(messages: readonly { role: string; content: ContentBlock[] }[], end: number): number {
  for (let i = end - 1; i >= 0; i--) if (messages[i].role === 'user' && messages[i].content.length > 0) return i;
  return -1;
}

/** The block right before the request's last block: in the last message, or the end of the one before. */
function blockBeforeLast(messages: readonly { content: ContentBlock[] }[]): [number, number] | undefined {
  const last = messages.length - 1;
  if (last < 0) return undefined;
  if (messages[last].content.length > 1) return [last, messages[last].content.length - 2];
  for (let i = last - 1; i >= 0; i--) if (messages[i].content.length > 0) return [i, messages[i].content.length - 1];
  return undefined;
}

function inRange(i: number | undefined, length: number): number | undefined {
  return i !== undefined && Number.isInteger(i) && i >= 0 && i < length ? i : undefined;
}

function stripCache<T extends { cache_control?: CacheControl }>(item: T): T {
  if (item.cache_control === undefined) return item;
  const { cache_control: _dropped, ...rest } = item;
  return rest as T;
}

function asBlocks(m: ApiMessage): { role: ApiMessage['role']; content: ContentBlock[] } {
  if (typeof m.content === 'string') return { role: m.role, content: [{ type: 'text', text: m.content }] };
  // Copy only when a stored block carries an old marker (e.g. read back from a foreign transcript).
  if (!m.content.some((b) => 'cache_control' in b && b.cache_control !== undefined))
    return { role: m.role, content: m.content };
  return {
    role: m.role,
    content: m.content.map((b) => stripCache(b as ContentBlock & { cache_control?: CacheControl })),
  };
}
