// What a plain request asks for. The matcher is small and strict on purpose: a request is matched only
// at its start (after "please" and the like), paths are one token or quoted, and anything else falls
// through to the tour rather than to a guess. English, and the Simplified Chinese equivalents.
import { rememberPrompt } from '../core/memory/autoMemory/memoryPrompts';

export type Intent =
  | { kind: 'read'; path: string }
  | { kind: 'explain'; path: string }
  | { kind: 'search'; text: string; path?: string }
  | { kind: 'list'; dir?: string }
  | { kind: 'replace'; path: string; from: string; to: string }
  | { kind: 'create'; path: string; content: string }
  | { kind: 'append'; path: string; line: string }
  | { kind: 'run'; command: string }
  | { kind: 'remember'; fact: string }
  | { kind: 'recall' }
  | { kind: 'preference'; text: string }
  | { kind: 'tour' }
  | { kind: 'unknown' };

const OPEN_QUOTES: Record<string, string> = { '"': '"', "'": "'", '`': '`', '“': '”', '‘': '’', '「': '」' };

/**
 * One argument from the start of `s`: a quoted string (any of the quote pairs above), or a run of
 * non-space characters without trailing punctuation. Unquoted, it may not hold quotes or angle
 * brackets: those mean the text was not a plain path (e.g. `README.md"` out of a quoted summary).
 */
export function takeArg(s: string): { value: string; rest: string } | undefined {
  const t = s.trimStart();
  const close = OPEN_QUOTES[t[0]];
  if (close) {
    const end = t.indexOf(close, 1);
    if (end <= 1) return undefined;
    return { value: t.slice(1, end), rest: t.slice(end + 1) };
  }
  const m = /^\S+/.exec(t);
  if (!m) return undefined;
  const value = m[0].replace(/[.,;:!?。，；：！？)\]}]+$/, '');
  if (value === '' || /["'`<>“”‘’「」]/.test(value)) return undefined;
  return { value, rest: t.slice(value.length) };
}

/** A path argument that is all of `s` (apart from spaces and a final full stop). */
function onlyPath(s: string): string | undefined {
  const a = takeArg(s);
  return a && a.rest.trim().replace(/^[.。]$/, '') === '' ? a.value : undefined;
}

/** Quoted text, or the rest of the line without a final full stop. */
function freeText(s: string): string | undefined {
  const t = s.trim();
  const a = OPEN_QUOTES[t[0]] ? takeArg(t) : undefined;
  if (a && a.rest.trim() === '') return a.value;
  const v = t.replace(/[.。]$/, '').trim();
  return v === '' ? undefined : v;
}

const POLITE = /^(?:(?:please|pls|can you|could you|would you|now)\s+|请|麻烦)+/i;

// The `/remember` command (and Engram: Remember...) sends this prompt around the user's words.
const REMEMBER_FORMS = [false, true].map((team) => rememberPrompt('\u0001', { team }).split('\u0001'));

export function matchIntent(prompt: string): Intent {
  const raw = prompt.trim();
  for (const [head, tail] of REMEMBER_FORMS) {
    if (raw.startsWith(head.trim()) && raw.endsWith(tail.trim())) {
      const fact = raw.slice(head.trim().length, raw.length - tail.trim().length).trim();
      if (fact) return { kind: 'remember', fact };
    }
  }
  const text = raw.replace(POLITE, '').trim();
  const firstLine = text.split('\n')[0];
  return (
    matchRemember(text) ??
    matchRecall(text) ??
    matchEdit(firstLine) ??
    matchFiles(firstLine) ??
    matchExplain(firstLine) ??
    matchRun(firstLine) ??
    matchPreference(firstLine) ??
    matchMention(firstLine) ??
    (/^(?:\/?help|(?:show me )?(?:the )?tour|start|hi|hello|hey|what can you do)\b/i.test(text) ||
    /^(帮助|导览|介绍|你好)/.test(text)
      ? { kind: 'tour' }
      : { kind: 'unknown' })
  );
}

function matchRemember(text: string): Intent | undefined {
  const m =
    /^remember(?:\s+that|\s*:|\s*,)?\s+([\s\S]+)$/i.exec(text) ?? /^记住(?:一下)?[：:，,\s]*([\s\S]+)$/.exec(text);
  if (!m) return undefined;
  const fact = freeText(m[1]);
  return fact ? { kind: 'remember', fact } : undefined;
}

/** "What do you remember?" and its English variants: three questions, each anchored at the start. */
const RECALL_QUESTION_EN = new RegExp(
  [
    /^what (?:do|did) you (?:remember|know about (?:me|this project))/.source,
    /^what have you (?:remembered|saved)/.source,
    /^what(?:'s| is) in (?:your )?memory/.source,
  ].join('|'),
  'i',
);

function matchRecall(text: string): Intent | undefined {
  return RECALL_QUESTION_EN.test(text) || /你(?:都)?(?:记得|记住了)(?:些)?什么|你(?:对我)?知道(?:我)?什么/.test(text)
    ? { kind: 'recall' }
    : undefined;
}

function matchEdit(line: string): Intent | undefined {
  // edit PATH: replace A with B  /  in PATH replace A with B  /  replace A with B in PATH
  const head = /^(?:edit|change|update|in)\s+/i.exec(line);
  if (head) {
    const p = takeArg(line.slice(head[0].length));
    const rep = p && /^\s*[:,]?\s*(?:and\s+)?replace\s+/i.exec(p.rest);
    const pair = rep ? replacePair(p.rest.slice(rep[0].length)) : undefined;
    if (p && pair) return { kind: 'replace', path: p.value, ...pair };
  }
  const tail = /^replace\s+(.+)\s+in\s+(\S+|"[^"]+"|`[^`]+`)\s*$/i.exec(line);
  if (tail) {
    const p = onlyPath(tail[2]);
    const pair = replacePair(tail[1]);
    if (p && pair) return { kind: 'replace', path: p, ...pair };
  }
  const zh = /^(?:编辑|修改)\s*(\S+?)[：:，,\s]+把\s*(.+?)\s*(?:替换为|改为|换成)\s*(.+)$/.exec(line);
  if (zh) {
    const p = onlyPath(zh[1]);
    const from = freeText(zh[2]);
    const to = freeText(zh[3]);
    if (p && from && to) return { kind: 'replace', path: p, from, to };
  }
  const create =
    /^(?:create|write|make)\s+(?:a\s+|the\s+)?(?:new\s+)?(?:file\s+)?/i.exec(line) ?? /^创建(?:文件)?\s*/.exec(line);
  if (create) {
    const p = takeArg(line.slice(create[0].length));
    const w =
      p && (/^\s*(?:with|containing|saying)\s+/i.exec(p.rest) ?? /^\s*(?:内容为|内容是|写入)[：:\s]*/.exec(p.rest));
    const content = w ? freeText(p.rest.slice(w[0].length)) : undefined;
    if (p && content !== undefined) return { kind: 'create', path: p.value, content };
  }
  // add a line to PATH: TEXT  /  append TEXT to PATH
  const addTo = /^(?:add|append)\s+(?:a\s+line\s+)?to\s+/i.exec(line);
  if (addTo) {
    const p = takeArg(line.slice(addTo[0].length));
    const l = p && /^\s*[:,]\s*/.exec(p.rest) ? freeText(p.rest.replace(/^\s*[:,]\s*/, '')) : undefined;
    if (p && l) return { kind: 'append', path: p.value, line: l };
  }
  const append = /^(?:add|append)\s+(?:the\s+line\s+)?(.+)\s+to\s+(\S+|"[^"]+"|`[^`]+`)\s*$/i.exec(line);
  if (append) {
    const p = onlyPath(append[2]);
    const l = freeText(append[1]);
    if (p && l) return { kind: 'append', path: p, line: l };
  }
  return undefined;
}

/** `A with B`, each quoted or plain words. */
function replacePair(s: string): { from: string; to: string } | undefined {
  const a = takeArg(s);
  if (a && OPEN_QUOTES[s.trimStart()[0]]) {
    const w = /^\s*(?:with|by)\s+/i.exec(a.rest);
    const to = w ? freeText(a.rest.slice(w[0].length)) : undefined;
    return to !== undefined ? { from: a.value, to } : undefined;
  }
  const m = /^(.+?)\s+(?:with|by)\s+(.+)$/i.exec(s.trim());
  if (!m) return undefined;
  const to = freeText(m[2]);
  return to !== undefined ? { from: m[1].trim(), to } : undefined;
}

function matchFiles(line: string): Intent | undefined {
  const read =
    /^(?:read|show(?:\s+me)?|open|cat|view|look at)\s+(?:the\s+)?(?:file\s+)?/i.exec(line) ??
    /^(?:读取|阅读|读一下|读|打开|查看|显示)\s*(?:文件\s*)?/.exec(line);
  if (read) {
    const p = takeArg(line.slice(read[0].length));
    if (p && !/^(?:files?|me|the|tour|help)$/i.test(p.value))
      return { kind: 'read', path: p.value.replace(/^@(?=[\w.])/, '') };
  }
  const search = /^(?:search|grep|find)\s+(?:for\s+)?/i.exec(line) ?? /^(?:搜索|查找|搜)\s*/.exec(line);
  if (search) {
    const rest = line.slice(search[0].length);
    const inPath = /^(.+?)\s+(?:in|under)\s+(\S+|"[^"]+"|`[^`]+`)\s*$/i.exec(rest);
    const where = inPath ? onlyPath(inPath[2]) : undefined;
    const what = freeText(inPath && where ? inPath[1] : rest);
    if (what) return { kind: 'search', text: what, ...(where ? { path: where } : {}) };
  }
  const list =
    /^(?:list|ls|show)(?:\s+(?:all|the))?(?:\s+files)?(?:\s+(?:in|under)\s+(.+))?\s*$/i.exec(line) ??
    /^(?:what files are (?:there|here)|which files are there)(?:\s+in\s+(.+?))?\??$/i.exec(line) ??
    /^列出(?:文件)?\s*(.*)$/.exec(line);
  if (list) {
    const dir = list[1]?.trim() ? onlyPath(list[1]) : undefined;
    if (list[1]?.trim() && !dir) return undefined;
    return { kind: 'list', ...(dir ? { dir } : {}) };
  }
  return undefined;
}

const EXPLAIN =
  /^(?:explain|describe|summari[sz]e|walk me through|what(?:'s| is| does)(?:\s+in)?)\s+(?:the\s+)?(?:file\s+)?/i;
const EXPLAIN_ZH = /^(?:解释|讲解|说明|介绍)(?:一下)?\s*(?:文件\s*)?/;
/** `@src/a.ts` as the Chat view's file mention writes it (a path with a folder or an extension). */
const MENTION = /(?:^|\s)@([\w./-]*[\w-](?:\.\w+|\/[\w.-]+))(?=[\s,.;:!?，。；：！？]|$)/g;

/** "explain @src/greet.js" (the README's first hour), "what does src/a.ts do?", "解释 @src/greet.js". */
function matchExplain(line: string): Intent | undefined {
  const head = EXPLAIN.exec(line) ?? EXPLAIN_ZH.exec(line);
  const arg = head ? takeArg(line.slice(head[0].length)) : undefined;
  if (arg) {
    const p = arg.value.replace(/^@/, '');
    const pathLike = arg.value.startsWith('@') || /[/\\]|\.\w{1,5}$/.test(p);
    const asks = /^\s*(?:do|does|mean|contain|hold|for)?\s*[?？.。]?\s*$/i.test(arg.rest);
    if (p && pathLike && (asks || arg.value.startsWith('@'))) return { kind: 'explain', path: p };
  }
  return undefined;
}

/** A message naming exactly one `@file` that asks nothing else the demo knows ("what is this for? @a.js"). */
function matchMention(line: string): Intent | undefined {
  const mentions = [...line.matchAll(MENTION)].map((m) => m[1]);
  return mentions.length === 1 ? { kind: 'explain', path: mentions[0] } : undefined;
}

function matchRun(line: string): Intent | undefined {
  const m = /^(?:run|execute|exec|\$)\s+(.+)$/i.exec(line) ?? /^(?:运行|执行)\s*(.+)$/.exec(line);
  if (!m) return undefined;
  const command = freeText(m[1].replace(/^(?:the\s+)?command\s+/i, ''));
  return command ? { kind: 'run', command } : undefined;
}

/** A stated preference or correction, which the background memory agent is there to catch. */
export const PREFERENCE = new RegExp(
  `^(?:${[
    /i (?:prefer|like|love|hate|dislike|always|never|usually|want|use|work)\b/.source,
    /i'?m (?:a|an)\b|i am (?:a|an)\b/.source,
    /(?:always|never|don'?t|do not|stop|from now on)\b/.source,
    /(?:no|actually),?\s+(?:use|do|don'?t|it'?s|that'?s|we)\b/.source,
    /that'?s (?:wrong|not right)/.source,
    /我(?:更)?(?:喜欢|偏好|习惯|讨厌)|以后(?:请)?|不要|总是/.source,
  ].join('|')})`,
  'i',
);

function matchPreference(line: string): Intent | undefined {
  return PREFERENCE.test(line.trim()) ? { kind: 'preference', text: line.trim() } : undefined;
}
