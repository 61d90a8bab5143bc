// "remember ..." (and what /remember sends): a typed topic file and its MEMORY.md line in the memory
// folder the system prompt names, then a confirmation in words. "what do you remember?": the index
// lines of the system prompt, what recall attached to the message, and what this conversation saved.
import path from 'node:path';
import { isIndexName, memoryWriteTarget } from '../../core/memory/autoMemory/memoryPaths';
import { parseTopicFile } from '../../core/memory/autoMemory/topicFile';
import { buildMemoryNote } from '../memoryNote';
import { answer, callTools, clip, code, label, pick, type Lang, type DemoAnswer } from '../reply';
import { absPath, roundsAfter, type DemoRequest } from '../request';
import { memoryWriteStep } from './memoryWrite';

/**
 * Memory file names in use when the turn began (the index, what the conversation wrote before it), so
 * every step of the turn picks the same name.
 */
export function takenNames(req: DemoRequest, extra: readonly string[] = []): Set<string> {
  const before = savedInConversation({ ...req, messages: req.messages.slice(0, Math.max(0, req.promptAt)) });
  return new Set([...req.index.map((e) => e.file.replace(/^\.\//, '')), ...before.map((s) => s.file), ...extra]);
}

export function remember(req: DemoRequest, fact: string, lang: Lang): DemoAnswer {
  const dir = req.memoryDir;
  if (!dir)
    return answer(
      lang,
      pick(
        lang,
        'memory is off in this session (no memory folder is named in my instructions), so there is nowhere to save it.',
        '本会话未启用记忆（系统提示中没有记忆文件夹），无处保存。',
      ),
    );
  if (!req.tools.has('Write'))
    return answer(
      lang,
      pick(
        lang,
        'this session offers no Write tool (an untrusted workspace?), so I cannot save memories.',
        '本会话没有 Write 工具（工作区不受信任？），无法保存记忆。',
      ),
    );
  const note = buildMemoryNote(fact, { taken: takenNames(req), date: req.date, source: 'asked' });
  const step = memoryWriteStep(req, dir, note, { readIndexFirst: indexExists(req) });
  if ('next' in step) {
    const say = step.next.some((c) => c.name === 'Write')
      ? pick(
          lang,
          `saving this as a **${note.type}** memory: ${code(note.file)} and its line in ${code('MEMORY.md')}.`,
          `将其保存为 **${note.type}** 类型的记忆：${code(note.file)}，并在 ${code('MEMORY.md')} 中添加索引行。`,
        )
      : pick(
          lang,
          `reading ${code('MEMORY.md')} first, so its new line joins the ones already there.`,
          `先读取 ${code('MEMORY.md')}，让新索引行加在已有内容之后。`,
        );
    return callTools(lang, say, step.next);
  }
  if ('failed' in step)
    return answer(lang, pick(lang, `I could not save it: ${step.failed}`, `未能保存：${step.failed}`));
  const where = path.join(dir, note.file);
  const indexed = step.done.indexed
    ? pick(
        lang,
        `and added its line to ${code('MEMORY.md')}:\n\n${code(note.indexLine)}`,
        `并在 ${code('MEMORY.md')} 中添加了索引行：\n\n${code(note.indexLine)}`,
      )
    : pick(
        lang,
        `(Engram adds its ${code('MEMORY.md')} line after this turn).`,
        `（本轮结束后 Engram 会补上 ${code('MEMORY.md')} 索引行）。`,
      );
  return answer(
    lang,
    pick(
      lang,
      `saved "${clip(fact, 120)}" as a **${note.type}** memory in ${code(where)} ${indexed}\n\n` +
        'It is loaded into every new session of this project. ' +
        'Ask "what do you remember?" or open the Memory Inspector to see it.',
      `已将“${clip(fact, 120)}”保存为 **${note.type}** 类型的记忆：${code(where)} ${indexed}\n\n` +
        '本项目的每个新会话都会加载它。可以问“你记得什么？”，或打开记忆检查器查看。',
    ),
  );
}

/** MEMORY.md is there if the index had lines or this conversation saved memory. */
function indexExists(req: DemoRequest): boolean {
  return (
    req.index.length > 0 || savedInConversation({ ...req, messages: req.messages.slice(0, req.promptAt) }).length > 0
  );
}

interface Saved {
  file: string;
  name?: string;
  description?: string;
}

/** Topic files a successful Write in the conversation put into the memory folder. */
function savedInConversation(req: Pick<DemoRequest, 'messages' | 'memoryDir' | 'cwd'>): Saved[] {
  const dir = req.memoryDir;
  if (!dir) return [];
  const out: Saved[] = [];
  for (const round of roundsAfter(req.messages, 0)) {
    for (const s of round) {
      if (s.call.name !== 'Write' || s.result?.isError !== false || typeof s.call.input.file_path !== 'string')
        continue;
      const target = memoryWriteTarget(dir, absPath(req, s.call.input.file_path));
      if (!('name' in target) || isIndexName(target.name)) continue;
      const parsed = parseTopicFile(String(s.call.input.content ?? ''));
      out.push({ file: target.name, ...(parsed.binary ? {} : { name: parsed.name, description: parsed.description }) });
    }
  }
  return out;
}

export function recall(req: DemoRequest, lang: Lang): DemoAnswer {
  if (!req.memoryDir)
    return answer(
      lang,
      pick(
        lang,
        'memory is off in this session, so I remember nothing between sessions.',
        '本会话未启用记忆，所以我不会在会话之间记住任何东西。',
      ),
    );
  const lines: string[] = [];
  const listed = new Set<string>();
  for (const e of req.index) {
    listed.add(e.file.replace(/^\.\//, ''));
    lines.push(`- **${e.title}**${e.hook ? ` — ${e.hook}` : ''} (${code(e.file)})`);
  }
  const fresh = savedInConversation(req).filter((s) => !listed.has(s.file));
  for (const s of fresh) {
    listed.add(s.file);
    const origin = `${code(s.file)}, ${pick(lang, 'saved in this session', '本会话中保存')}`;
    lines.push(`- **${s.name ?? s.file}**${s.description ? ` — ${s.description}` : ''} (${origin})`);
  }
  const recalled = req.recalled.filter((r) => !listed.has(r.file));
  for (const r of recalled) {
    const parsed = parseTopicFile(r.text);
    const what = parsed.binary ? r.file : (parsed.description ?? parsed.name ?? r.file);
    lines.push(`- ${what} (${code(r.file)}, ${pick(lang, 'recalled for this message', '为本条消息召回')})`);
  }
  if (lines.length === 0) {
    return answer(
      lang,
      pick(
        lang,
        `nothing yet: the memory index (${code('MEMORY.md')} in ${code(req.memoryDir)}) is empty. ` +
          'Try "remember that I prefer tabs over spaces".',
        `还没有记忆：记忆索引（${code(req.memoryDir)} 中的 ${code('MEMORY.md')}）是空的。试试“记住：我更喜欢用制表符缩进”。`,
      ),
    );
  }
  const used =
    req.recalled.length > 0
      ? pick(
          lang,
          `\n\nRecall attached ${req.recalled.length} of them to your message, ranked by how well they match it.`,
          `\n\n其中 ${req.recalled.length} 条按与消息的相关度被附加到了你的消息中。`,
        )
      : '';
  const intro = pick(
    lang,
    `here is what I remember about you and this project (from ${code('MEMORY.md')} in ${code(req.memoryDir)}):`,
    `以下是我记得的关于你和本项目的内容（来自 ${code(req.memoryDir)} 中的 ${code('MEMORY.md')}）：`,
  );
  return { content: [{ type: 'text', text: `${label(lang)} ${intro}\n\n${lines.join('\n')}${used}` }] };
}
