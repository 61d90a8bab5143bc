// The line that says which engine Grep and Glob run on (issue 35), as the chat's `/context` and the
// inspector's context pane show it: ripgrep with its version and where it came from, or the built-in
// JavaScript search and why no ripgrep runs. The reason and the path are the host's data, not translated.
import type { SearchEngineView } from '../../src/protocol/messages';

export const SEARCH_EN = {
  searchRipgrepBundled: 'Grep and Glob run on ripgrep {0}, the copy VS Code ships ({1}).',
  searchRipgrepSetting: 'Grep and Glob run on ripgrep {0}, from engram.search.ripgrepPath ({1}).',
  searchJavaScript: 'Grep and Glob run on the built-in JavaScript search: {0}.',
} as const;

export const SEARCH_ZH: Record<keyof typeof SEARCH_EN, string> = {
  searchRipgrepBundled: 'Grep 和 Glob 使用 ripgrep {0}，即 VS Code 自带的副本（{1}）。',
  searchRipgrepSetting: 'Grep 和 Glob 使用 ripgrep {0}，来自 engram.search.ripgrepPath（{1}）。',
  searchJavaScript: 'Grep 和 Glob 使用内置的 JavaScript 搜索：{0}。',
};

/** The line, in the page's language (`t` is the webview's own lookup, whose tables include SEARCH_EN/ZH). */
export function searchEngineText(
  view: SearchEngineView,
  t: (key: keyof typeof SEARCH_EN, ...args: string[]) => string,
): string {
  if (view.engine === 'javascript') return t('searchJavaScript', view.reason ?? '');
  return t(
    view.source === 'setting' ? 'searchRipgrepSetting' : 'searchRipgrepBundled',
    view.version ?? '',
    view.path ?? '',
  );
}
