// `tour`, `help`, and anything the demo does not understand: a short guide to what to try, each item
// one click or one line away from a feature (memory, recall, tools with permission, compaction, the
// inspector).
import { clip, label, pick, type Lang, type DemoAnswer } from '../reply';

const TOUR_EN = [
  'I am a scripted stand-in for Claude that runs offline. My replies are canned, but everything I do goes ' +
    "through Engram's real tools and memory engine, so you can watch them work. Try these, in order:",
  '',
  '1. **remember that I prefer tabs over spaces** — saves a typed memory file and its line in `MEMORY.md` ' +
    '(`/remember ...` does the same).',
  '2. **what do you remember?** — answers from the memory index that every session loads.',
  '3. **read README.md**, **explain @src/greet.js**, **search memory**, **list files** — read-only tools, ' +
    'no prompt needed.',
  '4. **edit README.md: replace "Sample" with "Demo"** or **create notes.txt with hello** — ' +
    'Engram asks first and shows the diff.',
  '5. **run ls** — a command runs after you allow it.',
  '6. **I prefer short answers** — after the turn, the background memory agent saves it on its own.',
  '7. **/compact** — summarises the conversation; then open the **Memory Inspector** to see the context ' +
    'gauge, the memories, the session notes and the timeline, and undo the compaction there.',
  '',
  'Set an Anthropic API key (Engram: Set Anthropic API Key) to talk to Claude instead.',
].join('\n');

const TOUR_ZH = `我是一个离线运行的脚本化 Claude 替身。我的回答是预设的，但我做的每件事都经过 Engram 真实的工具和记忆引擎，你可以看到它们如何工作。按顺序试试：

1. **记住：我更喜欢用制表符缩进** —— 保存一个带类型的记忆文件，并在 \`MEMORY.md\` 中添加一行（\`/remember ...\` 效果相同）。
2. **你记得什么？** —— 根据每个会话都会加载的记忆索引回答。
3. **读取 README.md**、**解释 @src/greet.js**、**搜索 memory**、**列出文件** —— 只读工具，无需确认。
4. **编辑 README.md：把 Sample 替换为 Demo** 或 **创建 notes.txt 内容为 hello** —— Engram 会先征求同意并显示差异。
5. **运行 ls** —— 你允许后才会执行命令。
6. **我更喜欢简短的回答** —— 本轮结束后，后台记忆代理会自动保存它。
7. **/compact** —— 压缩对话；然后打开**记忆检查器**查看上下文仪表、记忆、会话笔记和时间线，并可在那里撤销压缩。

设置 Anthropic API 密钥（Engram: Set Anthropic API Key）即可与 Claude 对话。`;

export function tour(lang: Lang, unknown?: string): DemoAnswer {
  const lead =
    unknown === undefined
      ? ''
      : pick(lang, `I did not understand "${clip(unknown, 200)}". `, `我没有理解“${clip(unknown, 200)}”。`);
  return { content: [{ type: 'text', text: `${label(lang)} ${lead}${lang === 'zh' ? TOUR_ZH : TOUR_EN}` }] };
}

/** A stated preference in the chat: acknowledged; saving it is the background memory agent's job. */
export function preferenceNoted(lang: Lang): DemoAnswer {
  return {
    content: [
      {
        type: 'text',
        text: `${label(lang)} ${pick(
          lang,
          "noted. I do not save this myself: when the turn ends, Engram's background memory agent reads the " +
            'conversation and saves preferences like this one as a memory ' +
            '(watch for "Memory saved in the background"). Say "remember ..." to save something right away.',
          '知道了。我不会自己保存它：本轮结束后，Engram 的后台记忆代理会读取对话，' +
            '并把这样的偏好保存为记忆（留意“Memory saved in the background”提示）。想立即保存，请说“记住……”。',
        )}`,
      },
    ],
  };
}
