// Every word of the Memory Inspector exists in English and Simplified Chinese: the webview's two tables
// hold the same keys with the same {n} arguments, and each string the inspector's host code passes to
// vscode.l10n.t has an entry in the zh-cn bundle.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { EN } from '../../../webview/inspector/stringsEn';
import { ZH } from '../../../webview/inspector/stringsZh';
import { translatedTexts } from './translatedTexts';

const root = path.resolve(__dirname, '../../..');
const args = (s: string) =>
  [...s.matchAll(/\{(\d+)\}/g)]
    .map((m) => m[1])
    .sort()
    .join(',');

/** The two tables of the inspector webview (stringsEn.ts, stringsZh.ts), as the webview bundles them. */
function tables(): { en: Record<string, string>; zh: Record<string, string> } {
  return { en: EN, zh: ZH };
}

test('the inspector webview has every string in both languages, with the same arguments', () => {
  const { en, zh } = tables();
  assert.ok(Object.keys(en).length > 150, 'the scan found too few strings');
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  for (const key of Object.keys(en)) assert.equal(args(zh[key]), args(en[key]), `arguments of ${key}`);
});

test('every host string of the inspector has a zh-cn translation', () => {
  const bundle = JSON.parse(fs.readFileSync(path.join(root, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<
    string,
    string
  >;
  const dir = path.join(root, 'src', 'vscode', 'inspector');
  const missing: string[] = [];
  for (const file of fs.readdirSync(dir)) {
    const source = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const key of translatedTexts(source, String.raw`vscode\.l10n\.t`)) {
      if (!bundle[key]?.trim()) missing.push(`${file}: ${key}`);
      else assert.equal(args(bundle[key]), args(key), `arguments of "${key}"`);
    }
  }
  assert.deepEqual(missing, []);
});
