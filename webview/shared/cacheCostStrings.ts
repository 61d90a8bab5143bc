// The cost line's strings (issue 24, "what the next turn costs"), English and Simplified Chinese, for both
// webviews: the chat header and the inspector's gauge pane show the same line.
import { makeStrings } from './strings';

const EN = {
  cacheWarm: 'Cache warm · {0} left',
  cacheCold: 'Cache cold',
  nextMessage: 'Next message:',
  ifWarm: 'warm ≈ {0} tokens {1}',
  ifCold: 'cold ≈ {0} tokens {1}',
  priceUnknown: 'price unknown',
  tipState: 'Prompt cache: {0} TTL, counted from the last request.',
  tipStateCold: 'Prompt cache: expired or not written yet; the next message writes it ({0} TTL).',
  tipWarm: 'If warm: {0} tokens read from the cache, {1} written to it, {2} uncached: {3}.',
  tipCold: 'If cold: {0} tokens written to the cache, {1} uncached: {2}.',
  tipNote: 'Input only, before what you type and the answer. TTL: setting engram.promptCache.ttl.',
  ttl5m: '5-minute',
  ttl1h: '1-hour',
  ariaCost: 'Prompt cache and next message cost',
  freeDemo: 'free (offline demo)',
  free: 'free',
  tipFree:
    'The offline demo model runs on this machine and costs nothing: no prices. TTL: setting engram.promptCache.ttl.',
  tipLocalCount: 'Tokens estimated locally: {0} has no token count.',
} as const;

const ZH: Record<keyof typeof EN, string> = {
  cacheWarm: '缓存有效 · 剩余 {0}',
  cacheCold: '缓存已失效',
  nextMessage: '下一条消息：',
  ifWarm: '有效时 ≈ {0} 词元 {1}',
  ifCold: '失效时 ≈ {0} 词元 {1}',
  priceUnknown: '价格未知',
  tipState: '提示缓存：{0} TTL，从上一次请求起计时。',
  tipStateCold: '提示缓存：已过期或尚未写入；下一条消息会写入它（{0} TTL）。',
  tipWarm: '缓存有效时：从缓存读取 {0} 词元，写入 {1}，未缓存 {2}：{3}。',
  tipCold: '缓存失效时：写入缓存 {0} 词元，未缓存 {1}：{2}。',
  tipNote: '仅计输入，不含你将输入的内容和回答。TTL：设置 engram.promptCache.ttl。',
  ttl5m: '5 分钟',
  ttl1h: '1 小时',
  ariaCost: '提示缓存与下一条消息的花费',
  freeDemo: '免费（离线演示）',
  free: '免费',
  tipFree: '离线演示模型在本机运行，不产生费用，因此不显示价格。TTL：设置 engram.promptCache.ttl。',
  tipLocalCount: '词元数为本地估算：{0} 不提供词元计数。',
};

export const costStrings = makeStrings(EN, ZH);
