// "explain @src/greet.js" (the README's first hour) and "what does PATH do?": one Read, then an
// explanation built from what the file declares, as a reader would give it after one look: its language
// and size, the functions and classes it defines with their parameters and what a one-line body returns,
// what it exports and what it imports. Prose and data files get the read skill's description instead.
import path from 'node:path';
import { answer, callTools, clip, code, pick, type DemoAnswer, type Lang } from '../reply';
import { shownPath, type DemoRequest } from '../request';
import { describeFile } from './files';

const LANGUAGES: Record<string, string> = {
  '.js': 'JavaScript',
  '.cjs': 'JavaScript',
  '.mjs': 'JavaScript',
  '.jsx': 'JavaScript (JSX)',
  '.ts': 'TypeScript',
  '.tsx': 'TypeScript (TSX)',
  '.py': 'Python',
};

interface Declared {
  kind: 'function' | 'class';
  name: string;
  params?: string;
  /** What a body of one `return` gives back. */
  returns?: string;
}

interface CodeFacts {
  language: string;
  lines: number;
  declared: Declared[];
  exports: string[];
  imports: string[];
}

const FUNCTION_JS = /^\s*(?:export\s+(?:default\s+)?)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(([^)]*)\)/;
const ARROW_JS = /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?\(?([^)=]*)\)?\s*=>/;
const CLASS = /^\s*(?:export\s+(?:default\s+)?)?class\s+([A-Za-z_$][\w$]*)/;
const DEF_PY = /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(([^)]*)\)/;

/** What a code file declares, read line by line (no parser: the demo reads as a skimming person does). */
function codeFacts(file: string, lines: readonly string[], total: number): CodeFacts | undefined {
  const language = LANGUAGES[path.extname(file).toLowerCase()];
  if (!language) return undefined;
  const facts: CodeFacts = { language, lines: total, declared: [], exports: [], imports: [] };
  const python = language === 'Python';
  lines.forEach((line, i) => {
    const fn = python ? DEF_PY.exec(line) : (FUNCTION_JS.exec(line) ?? ARROW_JS.exec(line));
    const cls = CLASS.exec(line);
    if (fn) {
      const returns = returnOf(line, lines[i + 1], lines[i + 2]);
      facts.declared.push({ kind: 'function', name: fn[1], params: fn[2].trim(), ...(returns ? { returns } : {}) });
    } else if (cls) facts.declared.push({ kind: 'class', name: cls[1] });
    if (!python && /^\s*export\s/.test(line) && (fn ?? cls)) facts.exports.push((fn ?? cls)?.[1] ?? '');
    const cjs = /^\s*module\.exports\s*=\s*\{([^}]*)\}/.exec(line);
    if (cjs)
      facts.exports.push(
        ...cjs[1]
          .split(',')
          .map((n) => n.split(':')[0].trim())
          .filter(Boolean),
      );
    const named = /^\s*(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=/.exec(line);
    if (named) facts.exports.push(named[1]);
    const from = /^\s*import\s.*?from\s+['"]([^'"]+)['"]/.exec(line) ?? /require\(\s*['"]([^'"]+)['"]\s*\)/.exec(line);
    const py = python ? /^\s*(?:from\s+(\S+)\s+import|import\s+(\S+))/.exec(line) : null;
    const module = from?.[1] ?? py?.[1] ?? py?.[2];
    if (module && !facts.imports.includes(module)) facts.imports.push(module);
  });
  return facts;
}

/** The value of a body that is one `return` (on the declaration's line, or the next, before its close). */
function returnOf(decl: string, next = '', after = ''): string | undefined {
  const arrow = /=>\s*([^{].*?);?\s*$/.exec(decl);
  if (arrow) return arrow[1].trim();
  const ret = /^\s*return\s+(.+?);?\s*$/.exec(next);
  return ret && /^\s*}/.test(after) ? ret[1] : undefined;
}

export function explainFile(req: DemoRequest, file: string, lang: Lang): DemoAnswer {
  if (!req.tools.has('Read'))
    return answer(
      lang,
      pick(
        lang,
        'this session offers no Read tool (an untrusted workspace offers none), so I cannot read the file.',
        '本会话没有 Read 工具（不受信任的工作区不提供工具），无法读取文件。',
      ),
    );
  const step = req.rounds[0]?.[0];
  if (!step)
    return callTools(lang, pick(lang, `reading ${code(file)} to explain it.`, `先读取 ${code(file)}，再解释它。`), [
      { name: 'Read', input: { file_path: file } },
    ]);
  if (!step.result || step.result.isError)
    return answer(
      lang,
      pick(
        lang,
        `I could not read ${code(file)}: ${step.result?.text ?? 'no result came back'}`,
        `无法读取 ${code(file)}：${step.result?.text ?? '没有返回结果'}`,
      ),
    );
  const shown = shownPath(req, file);
  const listed = step.result.text
    .split('\n')
    .map((l) => /^\s*(\d+)\t(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  const total = Number(/\[Showing lines \d+-\d+ of (\d+)/.exec(step.result.text)?.[1] ?? listed.at(-1)?.[1] ?? 0);
  const facts = codeFacts(
    shown,
    listed.map((m) => m[2]),
    total,
  );
  if (!facts) return answer(lang, describeFile(shown, step.result.text, lang));
  return answer(lang, explanation(shown, facts, lang));
}

/** The explanation in words, one sentence per kind of fact. */
function explanation(shown: string, f: CodeFacts, lang: Lang): string {
  const lines = pick(lang, `${f.lines} line${f.lines === 1 ? '' : 's'}`, `${f.lines} 行`);
  const parts = [
    pick(
      lang,
      `${code(shown)} is a ${f.language} file of ${lines}.`,
      `${code(shown)} 是一个 ${f.language} 文件，共 ${lines}。`,
    ),
  ];
  const fns = f.declared.filter((d) => d.kind === 'function');
  const classes = f.declared.filter((d) => d.kind === 'class');
  const one = (d: Declared): string => {
    const sig = code(`${d.name}(${d.params ?? ''})`);
    if (!d.returns) return sig;
    return pick(
      lang,
      `${sig}, which returns ${code(clip(d.returns, 80))}`,
      `${sig}（返回 ${code(clip(d.returns, 80))}）`,
    );
  };
  if (fns.length === 1)
    parts.push(pick(lang, `It defines one function, ${one(fns[0])}.`, `它定义了一个函数：${one(fns[0])}。`));
  else if (fns.length > 1) {
    const names = fns.slice(0, 8).map(one);
    const more = fns.length > 8 ? pick(lang, ` and ${fns.length - 8} more`, ` 等 ${fns.length} 个`) : '';
    parts.push(
      pick(
        lang,
        `It defines ${fns.length} functions: ${names.join('; ')}${more}.`,
        `它定义了 ${fns.length} 个函数：${names.join('；')}${more}。`,
      ),
    );
  }
  if (classes.length > 0)
    parts.push(
      pick(
        lang,
        `Class${classes.length === 1 ? '' : 'es'}: ${classes.map((c) => code(c.name)).join(', ')}.`,
        `类：${classes.map((c) => code(c.name)).join('、')}。`,
      ),
    );
  if (f.declared.length === 0) parts.push(pick(lang, 'It declares no function or class.', '它没有声明函数或类。'));
  const exported = [...new Set(f.exports)].map(code);
  if (exported.length > 0)
    parts.push(
      pick(
        lang,
        `It exports ${exported.join(', ')}, so other files can use ${exported.length === 1 ? 'it' : 'them'}.`,
        `它导出了 ${exported.join('、')}，供其他文件使用。`,
      ),
    );
  if (f.imports.length > 0)
    parts.push(pick(lang, `It uses ${f.imports.map(code).join(', ')}.`, `它依赖 ${f.imports.map(code).join('、')}。`));
  parts.push(
    pick(
      lang,
      '(I am the scripted demo: this comes from what the file declares, read with the Read tool.)',
      '（我是脚本化的演示模型：以上内容来自用 Read 工具读到的声明。）',
    ),
  );
  return parts.join(lang === 'zh' ? '' : ' ');
}
