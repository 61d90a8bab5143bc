// A webview's strings in English and Simplified Chinese: one table per language, picked from the page's
// `lang` (vscode.env.language, set by webviewHtml.ts), with `{0}`-style arguments.

export interface Strings<K extends string> {
  /** Picks the table from the page's language (`zh-cn`, `zh-CN`, `zh-hans`...). */
  setLanguage(lang: string): void;
  t(key: K, ...args: Array<string | number>): string;
  /** For keys built from data (`cat_${category}`); unknown ones fall back to the data itself. */
  tOr(key: string, fallback: string): string;
}

export function isSimplifiedChinese(lang: string): boolean {
  return /^zh(-cn|-hans|-sg)?$/i.test(lang.trim());
}

export function makeStrings<K extends string>(en: Record<K, string>, zh: Record<K, string>): Strings<K> {
  let table = en;
  return {
    setLanguage: (lang) => {
      table = isSimplifiedChinese(lang) ? zh : en;
    },
    t: (key, ...args) =>
      table[key].replace(/\{(\d+)\}/g, (m, i: string) => (args[Number(i)] !== undefined ? String(args[Number(i)]) : m)),
    tOr: (key, fallback) => (Object.hasOwn(table, key) ? table[key as K] : fallback),
  };
}

/** The gauge's categories (GaugeCategory), as the chat's /context and the inspector's breakdown name them. */
export const CATEGORY_EN = {
  cat_system: 'System prompt',
  cat_tools: 'Tool definitions',
  cat_instructions: 'Instructions (CLAUDE.md, AGENTS.md)',
  'cat_memory index': 'Memory index',
  'cat_recalled memories': 'Recalled memories',
  'cat_session notes': 'Session notes',
  cat_messages: 'Messages',
  'cat_tool results': 'Tool results',
  'cat_mcp tools': 'MCP tools',
} as const;

export const CATEGORY_ZH: Record<keyof typeof CATEGORY_EN, string> = {
  cat_system: '系统提示词',
  cat_tools: '工具定义',
  cat_instructions: '指令（CLAUDE.md、AGENTS.md）',
  'cat_memory index': '记忆索引',
  'cat_recalled memories': '召回的记忆',
  'cat_session notes': '会话笔记',
  cat_messages: '消息',
  'cat_tool results': '工具结果',
  'cat_mcp tools': 'MCP 工具',
};
