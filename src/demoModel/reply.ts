// The pieces every demo answer is made of: the label that says it is scripted, text and tool_use
// blocks, and the two languages it answers in (Simplified Chinese when the request is written in it).

/**
 * A block of a demo answer: the demo only writes text and calls tools. The test server that serves it
 * gives each tool call its id (a demo answer is one of the test server's scripted messages).
 */
export type DemoBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown> };

/** What the demo answers: the content only; the server adds ids, usage and the stop reason. */
export interface DemoAnswer {
  content: DemoBlock[];
}

/** Opens every answer of the demo, so nobody mistakes it for Claude. */
export const DEMO_PREFIX = 'Offline demo model:';
const DEMO_PREFIX_ZH = '离线演示模型：';

export type Lang = 'en' | 'zh';

/** Chinese when the text holds CJK ideographs, else English. */
export function langOf(text: string): Lang {
  return /[\u4e00-\u9fff]/.test(text) ? 'zh' : 'en';
}

/** The label in front of an answer, in its language. */
export function label(lang: Lang): string {
  return lang === 'zh' ? DEMO_PREFIX_ZH : DEMO_PREFIX;
}

/** A finished answer: text only. */
export function answer(lang: Lang, text: string): DemoAnswer {
  return { content: [{ type: 'text', text: `${label(lang)} ${text}` }] };
}

/** A response that says what it is about to do, then calls the tools. */
export function callTools(
  lang: Lang,
  say: string,
  calls: Array<{ name: string; input: Record<string, unknown> }>,
): DemoAnswer {
  const content: DemoBlock[] = [{ type: 'text', text: `${label(lang)} ${say}` }];
  for (const c of calls) content.push({ type: 'tool_use', name: c.name, input: c.input });
  return { content };
}

/** Tool calls with no words (the forked agents, whose text nobody reads). */
export function silentCalls(calls: Array<{ name: string; input: Record<string, unknown> }>): DemoAnswer {
  return { content: calls.map((c) => ({ type: 'tool_use' as const, name: c.name, input: c.input })) };
}

/** Text shown inside a fenced block: the fence is longer than any backtick run in it. */
export function fenced(text: string, info = 'text'): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${text}\n${fence}`;
}

/** Inline code that survives backticks inside it. */
export function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return longest > 0 ? `${ticks} ${text} ${ticks}` : `${ticks}${text}${ticks}`;
}

/** At most `max` code points, with an ellipsis when cut (an emoji is never split). */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text;
}

/**
 * `text` ended as a sentence: a full stop is added only when it does not already end in one (or in
 * another closing mark, `!`, `?`, `…`, `:` and their Chinese forms), so quoting a reply that ends with a
 * period never gives "`tabs indentation`..".
 */
export function sentence(text: string): string {
  const t = text.trimEnd();
  return /[.!?…:。！？：]$/.test(t) ? t : `${t}.`;
}

/** `en` or `zh`, whichever the answer is in. */
export function pick(lang: Lang, en: string, zh: string): string {
  return lang === 'zh' ? zh : en;
}
