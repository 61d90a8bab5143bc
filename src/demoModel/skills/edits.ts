// Changing files the way the system prompt asks a model to: Read before Edit, Write for new files.
// The engine's permission prompt (with its diff) decides; the answer says what changed, or that the
// user said no.
import { DENIED_BY_USER } from '../../core/agent/permissions';
import { answer, callTools, clip, code, pick, type Lang, type DemoAnswer } from '../reply';
import { contentFromRead, stepsOn, type DemoRequest, type ToolStep } from '../request';

const NOT_READ = /has not been read yet|was modified since it was last read/;

/** Why a write did not happen, in words: the user said no, a headless run's rule, or the tool's error. */
export function refusal(lang: Lang, step: ToolStep): string {
  const text = step.result?.text ?? '';
  if (text.startsWith(DENIED_BY_USER))
    return pick(
      lang,
      'you declined the permission prompt, so nothing was changed.',
      '你拒绝了权限请求，因此没有做任何修改。',
    );
  return pick(lang, `it did not run: ${text || 'no result came back'}`, `未执行：${text || '没有返回结果'}`);
}

function need(req: DemoRequest, lang: Lang, tools: string[]): DemoAnswer | undefined {
  const missing = tools.filter((t) => !req.tools.has(t));
  if (missing.length === 0) return undefined;
  return answer(
    lang,
    pick(
      lang,
      `this session offers no ${missing.join('/')} tool (an untrusted workspace offers none), ` +
        'so I cannot change files here.',
      `本会话没有 ${missing.join('/')} 工具（不受信任的工作区不提供工具），无法修改文件。`,
    ),
  );
}

export function replaceText(req: DemoRequest, file: string, from: string, to: string, lang: Lang): DemoAnswer {
  const missing = need(req, lang, ['Read', 'Edit']);
  if (missing) return missing;
  const read = stepsOn(req, 'Read', file).at(-1);
  const edit = stepsOn(req, 'Edit', file).at(-1);
  if (!read)
    return callTools(lang, pick(lang, `reading ${code(file)} before I change it.`, `修改前先读取 ${code(file)}。`), [
      { name: 'Read', input: { file_path: file } },
    ]);
  if (!read.result || read.result.isError)
    return answer(
      lang,
      pick(
        lang,
        `I could not read ${code(file)}: ${read.result?.text ?? 'no result'}`,
        `无法读取 ${code(file)}：${read.result?.text ?? '没有结果'}`,
      ),
    );
  if (!edit) {
    const content = contentFromRead(read.result.text);
    if (content !== undefined && !content.includes(from)) {
      return answer(
        lang,
        pick(
          lang,
          `${code(file)} does not contain ${code(from)}, so there is nothing to replace.`,
          `${code(file)} 中没有 ${code(from)}，无需替换。`,
        ),
      );
    }
    const all = content !== undefined && content.split(from).length > 2;
    return callTools(
      lang,
      pick(
        lang,
        `replacing ${code(from)} with ${code(to)} in ${code(file)}${all ? ' (every occurrence)' : ''}. ` +
          'Engram asks you first and shows the diff.',
        `将 ${code(file)} 中的 ${code(from)} 替换为 ${code(to)}${all ? '（全部出现处）' : ''}。Engram 会先征求你的同意并显示差异。`,
      ),
      [
        {
          name: 'Edit',
          input: { file_path: file, old_string: from, new_string: to, ...(all ? { replace_all: true } : {}) },
        },
      ],
    );
  }
  if (edit.result?.isError !== false)
    return answer(
      lang,
      pick(
        lang,
        `I did not edit ${code(file)}: ${refusal(lang, edit)}`,
        `没有编辑 ${code(file)}：${refusal(lang, edit)}`,
      ),
    );
  return answer(
    lang,
    pick(
      lang,
      `done: ${edit.result.text} ${code(from)} is now ${code(to)}; the tool card above shows the diff.`,
      `完成：${edit.result.text} ${code(from)} 已改为 ${code(to)}，上方的工具卡片显示了差异。`,
    ),
  );
}

export function createFile(req: DemoRequest, file: string, content: string, lang: Lang): DemoAnswer {
  const missing = need(req, lang, ['Write']);
  if (missing) return missing;
  const text = content.endsWith('\n') ? content : `${content}\n`;
  const write = { name: 'Write', input: { file_path: file, content: text } };
  const writes = stepsOn(req, 'Write', file);
  const last = writes.at(-1);
  if (!last)
    return callTools(
      lang,
      pick(lang, `writing ${code(file)}. Engram asks you first.`, `正在写入 ${code(file)}，Engram 会先征求你的同意。`),
      [write],
    );
  if (last.result?.isError && NOT_READ.test(last.result.text) && writes.length < 2 && req.tools.has('Read')) {
    // It exists: Write wants it read first, then it may be replaced.
    const read = stepsOn(req, 'Read', file).at(-1);
    if (!read || read.round < last.round)
      return callTools(
        lang,
        pick(
          lang,
          `${code(file)} already exists; reading it before replacing it.`,
          `${code(file)} 已存在，替换前先读取。`,
        ),
        [{ name: 'Read', input: { file_path: file } }],
      );
    return callTools(lang, pick(lang, `replacing ${code(file)}.`, `正在替换 ${code(file)}。`), [write]);
  }
  if (last.result?.isError !== false)
    return answer(
      lang,
      pick(
        lang,
        `I did not write ${code(file)}: ${refusal(lang, last)}`,
        `没有写入 ${code(file)}：${refusal(lang, last)}`,
      ),
    );
  return answer(
    lang,
    pick(
      lang,
      `done: ${last.result.text} It holds "${clip(content, 120)}".`,
      `完成：${last.result.text} 内容为“${clip(content, 120)}”。`,
    ),
  );
}

export function appendLine(req: DemoRequest, file: string, line: string, lang: Lang): DemoAnswer {
  const missing = need(req, lang, ['Read', 'Write']);
  if (missing) return missing;
  const read = stepsOn(req, 'Read', file).at(-1);
  const write = stepsOn(req, 'Write', file).at(-1);
  if (!read)
    return callTools(
      lang,
      pick(lang, `reading ${code(file)} to add the line at its end.`, `读取 ${code(file)}，以便在末尾添加一行。`),
      [{ name: 'Read', input: { file_path: file } }],
    );
  if (!read.result || read.result.isError)
    return answer(
      lang,
      pick(
        lang,
        `I could not read ${code(file)}: ${read.result?.text ?? 'no result'}`,
        `无法读取 ${code(file)}：${read.result?.text ?? '没有结果'}`,
      ),
    );
  if (!write) {
    const content = contentFromRead(read.result.text);
    if (content === undefined)
      return answer(
        lang,
        pick(
          lang,
          `${code(file)} is too long for the demo to rewrite; edit it with "replace ... with ..." instead.`,
          `${code(file)} 太长，演示模型无法整体改写；请改用“把 … 替换为 …”。`,
        ),
      );
    return callTools(
      lang,
      pick(
        lang,
        `adding the line to the end of ${code(file)}. Engram asks you first and shows the diff.`,
        `在 ${code(file)} 末尾添加这一行。Engram 会先征求你的同意并显示差异。`,
      ),
      [{ name: 'Write', input: { file_path: file, content: `${content}${line}\n` } }],
    );
  }
  if (write.result?.isError !== false)
    return answer(
      lang,
      pick(
        lang,
        `I did not change ${code(file)}: ${refusal(lang, write)}`,
        `没有修改 ${code(file)}：${refusal(lang, write)}`,
      ),
    );
  return answer(
    lang,
    pick(
      lang,
      `done: ${code(file)} now ends with "${clip(line, 120)}".`,
      `完成：${code(file)} 末尾现在是“${clip(line, 120)}”。`,
    ),
  );
}
