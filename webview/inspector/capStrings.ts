// The words of the cap banner and of the tree's use counts, in English and Simplified Chinese (the
// page's language picks the table, as in strings.ts). Apart from strings.ts so that file stays small.
const EN = {
  capTitleNear: 'MEMORY.md is nearly full',
  capTitleOver: 'MEMORY.md is over its cap',
  teamCapTitleNear: "The team's MEMORY.md is nearly full",
  teamCapTitleOver: "The team's MEMORY.md is over its cap",
  capFigures: '{0} of {1} lines, {2} of {3} KB',
  capNearHint: 'Past {0}% of a cap: prune or merge memories before entries get cut from the prompt.',
  capOverHint: 'The entries past the cap are not loaded: prune or merge memories to bring them back.',
  capPrune: 'Prune least used…',
  capMerge: 'Merge…',
  usedTimes: 'used {0}×',
  neverUsed: 'never used',
  usedTitle: 'Recalled or read {0} times; last used {1}',
  usedNeverTitle: 'Never recalled or read since use counting began',
};

const ZH: typeof EN = {
  capTitleNear: 'MEMORY.md 快满了',
  capTitleOver: 'MEMORY.md 已超出上限',
  teamCapTitleNear: '团队的 MEMORY.md 快满了',
  teamCapTitleOver: '团队的 MEMORY.md 已超出上限',
  capFigures: '{0} / {1} 行，{2} / {3} KB',
  capNearHint: '已超过上限的 {0}%：请在条目被截出提示词之前修剪或合并记忆。',
  capOverHint: '超出上限的条目没有加载：修剪或合并记忆即可让它们回来。',
  capPrune: '修剪最少使用的…',
  capMerge: '合并…',
  usedTimes: '使用 {0} 次',
  neverUsed: '从未使用',
  usedTitle: '已被召回或读取 {0} 次；上次使用：{1}',
  usedNeverTitle: '自开始计数以来从未被召回或读取',
};

/** Both tables, for the test that checks they hold the same keys and arguments. */
export const CAP_STRINGS = { en: EN, zh: ZH };

export type CapKey = keyof typeof EN;

/** The text of `key` in the page's language (`zh-cn`, `zh-hans`... pick Chinese), with its `{n}` filled in. */
export function capText(lang: string, key: CapKey, ...args: Array<string | number>): string {
  const table = /^zh(-cn|-hans|-sg)?$/i.test(lang.trim()) ? ZH : EN;
  return table[key].replace(/\{(\d+)\}/g, (m, i: string) =>
    args[Number(i)] !== undefined ? String(args[Number(i)]) : m,
  );
}
