// Every word of the Chat view and of its host notices exists in English and Simplified Chinese: the
// webview's two tables name the same keys with the same {n} arguments, and each string the chat's host
// code passes to vscode.l10n.t (or the items model's translation) has an entry in the zh-cn bundle.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CHAT_STRINGS } from '../../../webview/chat/strings';
import { translatedTexts } from './translatedTexts';

const root = path.resolve(__dirname, '../../..');
const args = (s: string) =>
  [...s.matchAll(/\{(\d+)\}/g)]
    .map((m) => m[1])
    .sort()
    .join(',');

test('the chat webview has every string in both languages, with the same arguments', () => {
  const { en, zh } = CHAT_STRINGS;
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  for (const key of Object.keys(en) as Array<keyof typeof en>) {
    assert.ok(zh[key].trim(), `zh ${key} is empty`);
    assert.equal(args(zh[key]), args(en[key]), `arguments of ${key}`);
  }
});

test('every host string of the chat, the key and model setup has a zh-cn translation', () => {
  const bundle = JSON.parse(fs.readFileSync(path.join(root, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<
    string,
    string
  >;
  const dir = path.join(root, 'src', 'vscode', 'chat');
  const files = [
    ...fs.readdirSync(dir).map((f) => path.join(dir, f)),
    path.join(root, 'src/vscode/apiKey.ts'),
    path.join(root, 'src/vscode/modelSetup.ts'),
    path.join(root, 'src/vscode/providerSetup.ts'),
    path.join(root, 'src/vscode/lmTools.ts'),
    ...fs.readdirSync(path.join(root, 'src/vscode/mcp')).map((f) => path.join(root, 'src/vscode/mcp', f)),
    ...fs
      .readdirSync(path.join(root, 'src/vscode/checkpoints'))
      .map((f) => path.join(root, 'src/vscode/checkpoints', f)),
  ];
  const missing: string[] = [];
  let seen = 0;
  for (const file of files) {
    const source = fs.readFileSync(file, 'utf8');
    const literals = translatedTexts(source, String.raw`vscode\.l10n\.t|this\.t`);
    // The turn-end notices are a table whose texts go through the items model's translation.
    if (file.endsWith('chatItemsModel.ts'))
      literals.push(
        ...[...source.matchAll(/\['(?:info|warning|error)',\s*(['"])((?:(?!\1)[^\\]|\\.)*)\1,?\s*\]/g)].map((m) =>
          m[2].replace(/\\(.)/g, '$1'),
        ),
      );
    for (const key of literals) {
      seen++;
      if (!bundle[key]?.trim()) missing.push(`${path.basename(file)}: ${key}`);
      else assert.equal(args(bundle[key]), args(key), `arguments of "${key}"`);
    }
  }
  assert.ok(seen > 30, `found only ${seen} strings: the scan is broken`);
  assert.deepEqual(missing, []);
});

test("every notice the engine says (say('...') in src/core/session) and its link labels have a zh-cn translation", () => {
  const bundle = JSON.parse(fs.readFileSync(path.join(root, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<
    string,
    string
  >;
  const dir = path.join(root, 'src', 'core', 'session');
  const missing: string[] = [];
  let seen = 0;
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const source = fs.readFileSync(path.join(dir, file), 'utf8');
    const templates = [...source.matchAll(/\bsay\(\s*(['"])((?:(?!\1)[^\\]|\\.)*)\1/g)].map((m) =>
      m[2].replace(/\\(.)/g, '$1'),
    );
    const labels = [...source.matchAll(/label: '([^']+)'/g)].map((m) => m[1]);
    for (const key of [...templates, ...labels]) {
      seen++;
      if (!bundle[key]?.trim()) missing.push(`${file}: ${key}`);
      else assert.equal(args(bundle[key]), args(key), `arguments of "${key}"`);
    }
  }
  assert.ok(seen > 20, `found only ${seen} notices: the scan is broken`);
  assert.deepEqual(missing, []);
});
