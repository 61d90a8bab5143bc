// "explain @src/greet.js", which the README's first hour has a newcomer type: the demo used to answer it
// with "I did not understand" and its tour. It reads the file with its Read tool and explains what the
// file declares, exports and uses, in English or Chinese.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { demoReply } from '../../../src/demoModel/demoModel';
import { matchIntent } from '../../../src/demoModel/intents';
import { fileAttachmentText } from '../../../src/vscode/chat/fileMentions';
import { callsOf, requestBody, textOf, withResults, type Msg } from './requestBody';

const GREET = fs.readFileSync(path.resolve(__dirname, '../../fixtures/workspace/src/greet.js'), 'utf8');
/** What the Read tool returns for a small file: cat -n lines. */
const listing = (text: string): string =>
  text
    .replace(/\n$/, '')
    .split('\n')
    .map((l, i) => `${String(i + 1).padStart(6)}\t${l}`)
    .join('\n');

/** The prompt as the Chat view sends it: the words, then the attached file. */
function prompt(words: string, file = 'src/greet.js', text = GREET): Msg {
  return {
    role: 'user',
    content: [
      { type: 'text', text: words },
      { type: 'text', text: fileAttachmentText(file, text) },
    ],
  };
}

function explainTurn(words: string, file = 'src/greet.js', text = GREET): { first: string; reply: string } {
  const messages = [prompt(words, file, text)];
  const first = demoReply(requestBody(messages));
  assert.deepEqual(callsOf(first), [{ name: 'Read', input: { file_path: file } }], 'one Read of the mentioned file');
  const reply = textOf(demoReply(requestBody(withResults(messages, first, [listing(text)]))));
  return { first: textOf(first), reply };
}

describe('the demo model: explain a file', () => {
  it('reads the file the README names, then explains its function, what it returns and what it exports', () => {
    const { first, reply } = explainTurn('explain @src/greet.js');
    assert.match(first, /reading `src\/greet\.js` to explain it/);
    assert.doesNotMatch(reply, /did not understand/);
    assert.match(reply, /`src\/greet\.js` is a JavaScript file of 5 lines\./);
    assert.match(reply, /one function, `greet\(name\)`, which returns `` `Hello, \$\{name\}!` ``/);
    assert.match(reply, /exports `greet`/);
  });

  it('understands the other ways of asking, in English and Chinese, and only about paths', () => {
    for (const [text, file] of [
      ['explain @src/greet.js', 'src/greet.js'],
      ['please explain src/greet.js.', 'src/greet.js'],
      ['what does @src/greet.js do?', 'src/greet.js'],
      ['what is this for? @src/greet.js', 'src/greet.js'],
      ['describe the file lib/a.ts', 'lib/a.ts'],
      ['解释 @src/greet.js', 'src/greet.js'],
      ['show me @README.md', 'README.md'],
    ])
      assert.deepEqual(
        matchIntent(text),
        text.startsWith('show') ? { kind: 'read', path: file } : { kind: 'explain', path: file },
        text,
      );
    assert.equal(matchIntent('explain recursion').kind, 'unknown');
    assert.equal(matchIntent('compare @a.js and @b.js').kind, 'unknown');
    const zh = explainTurn('解释 @src/greet.js').reply;
    assert.match(
      zh,
      /^离线演示模型： ?`src\/greet\.js` 是一个 JavaScript 文件，共 5 行。它定义了一个函数：`greet\(name\)`/,
    );
  });

  it('names classes, several functions, ES exports and imports; describes a Markdown file as the read skill does', () => {
    const ts = [
      "import fs from 'node:fs';",
      'export class Store {}',
      'export const load = (file: string) => fs.readFileSync(file, "utf8");',
      'export async function save(file: string, text: string) {',
      '  fs.writeFileSync(file, text);',
      '}',
    ].join('\n');
    const { reply } = explainTurn('explain @src/store.ts', 'src/store.ts', ts);
    assert.match(reply, /TypeScript file of 6 lines/);
    assert.match(
      reply,
      /2 functions: `load\(file: string\)`, which returns `fs\.readFileSync\(file, "utf8"\)`; `save\(file: string, text: string\)`\./,
    );
    assert.match(reply, /Class: `Store`/);
    assert.match(reply, /exports `Store`, `load`, `save`/);
    assert.match(reply, /uses `node:fs`/);
    const md = explainTurn('explain @README.md', 'README.md', '# Sample\n\nA workspace.\n').reply;
    assert.match(md, /`README\.md` has 3 lines\. Its first heading is \*\*Sample\*\*/);
  });
});
