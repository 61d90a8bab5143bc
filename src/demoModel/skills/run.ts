// Running a command: one Bash call (the engine asks first), then the exit code and the output.
import { answer, callTools, code, fenced, pick, type Lang, type DemoAnswer } from '../reply';
import type { DemoRequest } from '../request';
import { refusal } from './edits';

const SHOWN_LINES = 20;

export function runCommand(req: DemoRequest, command: string, lang: Lang): DemoAnswer {
  if (!req.tools.has('Bash'))
    return answer(
      lang,
      pick(
        lang,
        'this session offers no Bash tool (an untrusted workspace offers none), so I cannot run commands here.',
        '本会话没有 Bash 工具（不受信任的工作区不提供工具），无法运行命令。',
      ),
    );
  const step = req.rounds[0]?.[0];
  if (!step)
    return callTools(
      lang,
      pick(
        lang,
        `running ${code(command)}. Engram asks you first unless it only reads.`,
        `正在运行 ${code(command)}。除非它只读取，否则 Engram 会先征求你的同意。`,
      ),
      [{ name: 'Bash', input: { command, description: 'Run the command the user asked for' } }],
    );
  const text = step.result?.text ?? '';
  const exit = /\n?\[Exit code (\d+)\]$/.exec(text);
  const killed = /\[(?:Command timed out|Command was interrupted|Killed by signal)[^\]]*\]$/.exec(text);
  if (step.result?.isError && !exit && !killed)
    return answer(
      lang,
      pick(
        lang,
        `I did not run ${code(command)}: ${refusal(lang, step)}`,
        `没有运行 ${code(command)}：${refusal(lang, step)}`,
      ),
    );
  const output = text.replace(
    /\n?\[(?:Exit code \d+|Command timed out[^\]]*|Command was interrupted[^\]]*|Killed by signal[^\]]*)\]$/,
    '',
  );
  const lines = output.split('\n');
  const shown =
    lines.length > SHOWN_LINES
      ? [
          ...lines.slice(0, SHOWN_LINES),
          pick(lang, `… (${lines.length - SHOWN_LINES} more lines)`, `……（还有 ${lines.length - SHOWN_LINES} 行）`),
        ]
      : lines;
  const status = killed
    ? pick(
        lang,
        `${code(command)} did not finish: ${killed[0].slice(1, -1)}`,
        `${code(command)} 未完成：${killed[0].slice(1, -1)}`,
      )
    : exit
      ? pick(lang, `${code(command)} failed with exit code ${exit[1]}.`, `${code(command)} 失败，退出码 ${exit[1]}。`)
      : pick(lang, `${code(command)} finished with exit code 0.`, `${code(command)} 已完成，退出码 0。`);
  const body =
    output.trim() === '(no output)' || output.trim() === ''
      ? pick(lang, ' It printed nothing.', ' 没有输出。')
      : `${pick(lang, ' Output:', ' 输出：')}\n\n${fenced(shown.join('\n'))}`;
  return answer(lang, `${status}${body}`);
}
