// Looking up the inspector's own words, in English (stringsEn.ts) and Simplified Chinese (stringsZh.ts).
// The page's `lang` comes from vscode.env.language (webviewHtml.ts), so the webview speaks the language
// VS Code does. Texts from the host (file names, notes, memories) are data and are never translated.
import { EN, type StringKey } from './stringsEn';
import { ZH } from './stringsZh';

export type { StringKey };

let table: Record<StringKey, string> = EN;

/** Picks the table from the page's language (`zh-cn`, `zh-CN`, `zh-hans`...). */
export function setLanguage(lang: string): void {
  table = /^zh(-cn|-hans|-sg)?$/i.test(lang.trim()) ? ZH : EN;
}

export function t(key: StringKey, ...args: Array<string | number>): string {
  return table[key].replace(/\{(\d+)\}/g, (m, i: string) =>
    args[Number(i)] !== undefined ? String(args[Number(i)]) : m,
  );
}

/** Keys with a count: `key_one` when the count is 1 and the language has such a form ("1 entry", not "1 entries"). */
export function tn(key: StringKey, count: number, ...rest: Array<string | number>): string {
  const one = `${key}_one`;
  const chosen = count === 1 && Object.hasOwn(table, one) ? (one as StringKey) : key;
  return t(chosen, count, ...rest);
}

/** For keys built from data (`cat_${category}`); unknown ones fall back to the data itself. */
export function tOr(key: string, fallback: string): string {
  return Object.hasOwn(table, key) ? table[key as StringKey] : fallback;
}
