// The words of the Health view (issue 32), in English and Simplified Chinese (the page's language picks
// the table, as in strings.ts). Apart from strings.ts so that file stays small.
const EN = {
  paneHealth: 'Health',
  healthStaleCount: '{0} stale',
  healthPairs: '{0} duplicate pairs',
  healthPairs_one: '{0} duplicate pair',
  healthContradictions: '{0} contradictions',
  healthContradictions_one: '{0} contradiction',
  healthSeparator: ', ',
  healthAllGood: 'All {0} memories check out: every path, symbol and command they name is still there.',
  healthNone: 'No memories to check yet.',
  healthChecking: 'Checking memories against the workspace…',
  healthCheckedAt: 'Checked against {0} at {1}.',
  healthMemoryOff: 'Memory is turned off (engram.memory.enabled), so nothing is checked.',
  healthNoWorkspace: 'Open a folder to check its memories against it.',
  healthOtherSource: 'Health is checked for the open workspace only: switch to the current session to see it.',
  healthUntrusted:
    'Not checked in an untrusted workspace (Restricted Mode): trust the folder to check its memories against it.',
  healthError: 'The check failed: {0}',
  healthStale: 'Names what no longer exists',
  healthDuplicates: 'Says the same as',
  healthContradicts: 'Contradicts',
  kind_path: 'path',
  kind_symbol: 'symbol',
  kind_command: 'command',
  healthCounts: 'recalled {0} · used {1} · not relevant {2} · corrected {3}',
  healthLastUsed: 'last used {0}',
  healthNeverUsed: 'never used',
  healthOpen: 'Open',
  healthUpdate: 'Update',
  healthUpdateTitle: 'Open the topic file to fix it, at its first stale reference',
  healthMerge: 'Merge',
  healthMergeTitle: 'Merge with "{0}" (the first in MEMORY.md keeps its name; Undo puts both back)',
  healthPrune: 'Prune',
  healthPruneTitle: 'Prune: its line leaves MEMORY.md and the file goes to the trash (Undo restores it)',
  healthTeam: 'team',
  healthTidy: 'Tidy memory…',
  healthTidyTitle:
    'Ask the model for merges, rewrites of stale entries and deletions, each shown as a diff; nothing changes until you apply it',
};

const ZH: typeof EN = {
  paneHealth: '健康状况',
  healthStaleCount: '{0} 条过时',
  healthPairs: '{0} 对重复',
  healthPairs_one: '{0} 对重复',
  healthContradictions: '{0} 对矛盾',
  healthContradictions_one: '{0} 对矛盾',
  healthSeparator: '，',
  healthAllGood: '全部 {0} 条记忆都没问题：它们提到的路径、符号和命令都还在。',
  healthNone: '还没有可检查的记忆。',
  healthChecking: '正在对照工作区检查记忆…',
  healthCheckedAt: '已于 {1} 对照 {0} 检查。',
  healthMemoryOff: '记忆已关闭（engram.memory.enabled），因此不做检查。',
  healthNoWorkspace: '请打开一个文件夹，以便对照它检查记忆。',
  healthOtherSource: '只检查当前打开的工作区：切换到当前会话即可查看。',
  healthUntrusted: '不受信任的工作区（受限模式）中不做检查：信任此文件夹后即可对照它检查记忆。',
  healthError: '检查失败：{0}',
  healthStale: '提到的东西已不存在',
  healthDuplicates: '与之内容相同',
  healthContradicts: '与之矛盾',
  kind_path: '路径',
  kind_symbol: '符号',
  kind_command: '命令',
  healthCounts: '召回 {0} 次 · 采用 {1} 次 · 不相关 {2} 次 · 被纠正 {3} 次',
  healthLastUsed: '上次使用：{0}',
  healthNeverUsed: '从未使用',
  healthOpen: '打开',
  healthUpdate: '更新',
  healthUpdateTitle: '打开主题文件进行修改，定位到第一个过时的引用',
  healthMerge: '合并',
  healthMergeTitle: '与“{0}”合并（MEMORY.md 中靠前的一条保留名称；撤销可恢复两条）',
  healthPrune: '修剪',
  healthPruneTitle: '修剪：它的行离开 MEMORY.md，文件移入回收站（撤销可恢复）',
  healthTeam: '团队',
  healthTidy: '整理记忆…',
  healthTidyTitle: '请模型提出合并、改写过时条目和删除的建议，每项都以差异显示；应用之前不会改动任何内容',
};

/** Both tables, for the test that checks they hold the same keys and arguments. */
export const HEALTH_STRINGS = { en: EN, zh: ZH };

export type HealthKey = keyof typeof EN;

/** The text of `key` in the page's language (`zh-cn`, `zh-hans`... pick Chinese), with its `{n}` filled in. */
export function healthText(lang: string, key: HealthKey, ...args: Array<string | number>): string {
  const table = /^zh(-cn|-hans|-sg)?$/i.test(lang.trim()) ? ZH : EN;
  return table[key].replace(/\{(\d+)\}/g, (m, i: string) =>
    args[Number(i)] !== undefined ? String(args[Number(i)]) : m,
  );
}
