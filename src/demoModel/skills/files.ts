// Read, search and list: one tool call, then an answer built from what the tool returned (the file's
// headings and size, the matching lines with path:line, the file list), as a model would give it.
import { answer, callTools, clip, code, fenced, pick, type Lang, type DemoAnswer } from '../reply';
import { shownPath, type DemoRequest, type ToolStep } from '../request';

const noTool = (lang: Lang, tool: string): DemoAnswer =>
  answer(
    lang,
    pick(
      lang,
      `this session offers no ${tool} tool (an untrusted workspace offers none), so I cannot do that here.`,
      `本会话没有 ${tool} 工具（不受信任的工作区不提供工具），无法执行。`,
    ),
  );

/** The one step of a single-call skill, when it has a result. */
function onlyStep(req: DemoRequest): ToolStep | undefined {
  return req.rounds[0]?.[0];
}

function failed(lang: Lang, what: string, step: ToolStep): DemoAnswer {
  return answer(
    lang,
    pick(
      lang,
      `${what} did not work: ${step.result?.text ?? 'no result came back'}`,
      `${what}未成功：${step.result?.text ?? '没有返回结果'}`,
    ),
  );
}

export function readFile(req: DemoRequest, file: string, lang: Lang): DemoAnswer {
  if (!req.tools.has('Read')) return noTool(lang, 'Read');
  const step = onlyStep(req);
  if (!step)
    return callTools(lang, pick(lang, `reading ${code(file)}.`, `正在读取 ${code(file)}。`), [
      { name: 'Read', input: { file_path: file } },
    ]);
  if (!step.result || step.result.isError)
    return failed(lang, pick(lang, `Reading ${code(file)}`, `读取 ${code(file)}`), step);
  return answer(lang, describeFile(shownPath(req, file), step.result.text, lang));
}

/** What a reader says about a file after one look: size, title, sections, how it opens. */
export function describeFile(shown: string, result: string, lang: Lang): string {
  const listed = result
    .split('\n')
    .map((l) => /^\s*(\d+)\t(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  if (listed.length === 0) return pick(lang, `${code(shown)} is empty.`, `${code(shown)} 是空文件。`);
  const total = Number(/\[Showing lines \d+-\d+ of (\d+)/.exec(result)?.[1] ?? listed[listed.length - 1][1]);
  const lines = listed.map((m) => m[2]);
  const headings = lines.map((l) => /^(#{1,3})\s+(.+?)\s*#*$/.exec(l)).filter((m): m is RegExpExecArray => m !== null);
  const title = headings.find((h) => h[1] === '#') ?? headings[0];
  const sections = headings.filter((h) => h !== title && h[1].length === (title?.[1].length ?? 1) + 1).map((h) => h[2]);
  const opening = lines.find((l) => l.trim() !== '' && !/^#/.test(l) && !/^(?:```|---|<!--)/.test(l.trim()));
  const parts = [
    pick(lang, `${code(shown)} has ${total} line${total === 1 ? '' : 's'}.`, `${code(shown)} 共 ${total} 行。`),
  ];
  if (title) parts.push(pick(lang, `Its first heading is **${title[2]}**.`, `第一个标题是 **${title[2]}**。`));
  if (sections.length > 0) {
    const more = sections.length > 8 ? pick(lang, ` and ${sections.length - 8} more`, ` 等 ${sections.length} 个`) : '';
    parts.push(
      pick(
        lang,
        `Sections: ${sections.slice(0, 8).join(', ')}${more}.`,
        `章节：${sections.slice(0, 8).join('、')}${more}。`,
      ),
    );
  }
  if (opening)
    parts.push(
      pick(lang, `It opens with:\n\n> ${clip(opening.trim(), 240)}`, `开头是：\n\n> ${clip(opening.trim(), 240)}`),
    );
  return parts.join(' ');
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function search(req: DemoRequest, text: string, where: string | undefined, lang: Lang): DemoAnswer {
  if (!req.tools.has('Grep')) return noTool(lang, 'Grep');
  const step = onlyStep(req);
  if (!step) {
    const input: Record<string, unknown> = {
      pattern: escapeRegex(text),
      output_mode: 'content',
      '-n': true,
      '-i': true,
      head_limit: 100,
      ...(where ? { path: where } : {}),
    };
    return callTools(
      lang,
      pick(
        lang,
        `searching for ${code(text)}${where ? ` in ${code(where)}` : ''}.`,
        `正在搜索 ${code(text)}${where ? `（范围：${code(where)}）` : ''}。`,
      ),
      [{ name: 'Grep', input }],
    );
  }
  if (!step.result || step.result.isError) return failed(lang, pick(lang, 'The search', '搜索'), step);
  const hits = step.result.text.split('\n').filter((l) => /^.+?:\d+:/.test(l));
  if (hits.length === 0)
    return answer(lang, pick(lang, `no line matches ${code(text)}.`, `没有匹配 ${code(text)} 的行。`));
  const files = new Set(hits.map((h) => /^(.+?):\d+:/.exec(h)?.[1]));
  const shown = hits.slice(0, 12).map((h) => {
    const m = /^(.+?):(\d+):(.*)$/.exec(h);
    return m ? `- ${code(`${m[1]}:${m[2]}`)} ${clip(m[3].trim(), 120)}` : `- ${h}`;
  });
  const cut = /\[Results cut after/.test(step.result.text) || hits.length > 12;
  const lineCount = `${hits.length}${cut ? '+' : ''} line${hits.length === 1 ? '' : 's'}`;
  const fileCount = `${files.size} file${files.size === 1 ? '' : 's'}`;
  const head = pick(
    lang,
    `${lineCount} in ${fileCount} match ${code(text)}:`,
    `${files.size} 个文件中有 ${hits.length}${cut ? '+' : ''} 行匹配 ${code(text)}：`,
  );
  const cutNote = cut
    ? pick(
        lang,
        '\n\n(Only the first ones are shown; narrow the search to see others.)',
        '\n\n（只显示前几条；缩小搜索范围可看到其余结果。）',
      )
    : '';
  return answer(lang, `${head}\n\n${shown.join('\n')}${cutNote}`);
}

export function listFiles(req: DemoRequest, dir: string | undefined, lang: Lang): DemoAnswer {
  if (!req.tools.has('Glob')) return noTool(lang, 'Glob');
  const step = onlyStep(req);
  if (!step)
    return callTools(
      lang,
      pick(
        lang,
        `listing the files${dir ? ` in ${code(dir)}` : ''}.`,
        `正在列出${dir ? ` ${code(dir)} 中的` : ''}文件。`,
      ),
      [{ name: 'Glob', input: { pattern: '**/*', ...(dir ? { path: dir } : {}) } }],
    );
  if (!step.result || step.result.isError) return failed(lang, pick(lang, 'Listing the files', '列出文件'), step);
  const files = step.result.text
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^\(Showing the/.test(l) && l !== 'No files found.');
  if (files.length === 0)
    return answer(
      lang,
      pick(lang, `there are no files${dir ? ` in ${code(dir)}` : ''}.`, `${dir ? `${code(dir)} 中` : ''}没有文件。`),
    );
  const total = Number(/of (\d+) files/.exec(step.result.text)?.[1] ?? files.length);
  const shown = files.slice(0, 25);
  const more =
    total > shown.length
      ? pick(lang, `\n\n…and ${total - shown.length} more.`, `\n\n……还有 ${total - shown.length} 个。`)
      : '';
  const heading = pick(
    lang,
    `${total} file${total === 1 ? '' : 's'}${dir ? ` in ${code(dir)}` : ''}, most recently changed first:`,
    `${dir ? `${code(dir)} 中` : ''}共 ${total} 个文件，最近修改的在前：`,
  );
  return answer(lang, `${heading}\n\n${fenced(shown.join('\n'))}${more}`);
}
