import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { folderFilter, globMatcher } from '../../../../src/core/tools/search/searchOrder';

// Glob's matcher, which both engines use on every listed path. It tests a pattern's literal end first
// (".tsx" of "**/*.tsx") and writes `**/` as one optional run of folders; these cases pin what it matches.

const cases: Array<[pattern: string, path: string, matches: boolean]> = [
  ['**', 'a/b/c.ts', true],
  ['**', '.hidden', true],
  ['src/**', 'src/x/y.ts', true],
  ['src/**', 'lib/src/y.ts', false],
  ['**/*.tsx', 'App.tsx', true],
  ['**/*.tsx', 'a/b/c/App.tsx', true],
  ['**/*.tsx', 'a/b/App.ts', false],
  ['**/*.tsx', 'a/b.tsx/c.ts', false],
  ['*.ts', 'q.ts', true],
  ['*.ts', 'a/q.ts', false],
  ['a/**/b/*.js', 'a/b/q.js', true],
  ['a/**/b/*.js', 'a/x/y/b/q.js', true],
  ['a/**/b/*.js', 'a/x/y/b/c/q.js', false],
  ['a/**/b/*.js', 'ab/q.js', false],
  ['**/test/**/*.spec.ts', 'pkg/test/unit/x.spec.ts', true],
  ['**/test/**/*.spec.ts', 'pkg/tests/unit/x.spec.ts', false],
  ['*.{ts,tsx}', 'q.tsx', true],
  ['*.{ts,tsx}', 'q.js', false],
  ['src/*.[jt]s', 'src/a.js', true],
  ['src/*.[jt]s', 'src/a.cs', false],
  ['file?.md', 'file1.md', true],
  ['file?.md', 'file10.md', false],
  ['literal\\*.md', 'literal*.md', true],
  ['literal\\*.md', 'literalX.md', false],
  ['**/x', 'line\nbreak/x', true],
  ['**/名前.ts', 'フォルダ/名前.ts', true],
];

describe('globMatcher', () => {
  for (const [pattern, p, matches] of cases)
    it(`${pattern} ${matches ? 'matches' : 'does not match'} ${JSON.stringify(p)}`, () => {
      assert.equal(globMatcher(pattern)(p), matches);
    });

  it('answers on a path 2,000 folders deep', () => {
    const deep = `${Array.from({ length: 2000 }, (_, i) => `d${i}`).join('/')}/file.ts`;
    assert.equal(globMatcher('**/*.tsx')(deep), false);
    assert.equal(globMatcher('**/d1999/*.ts')(deep), true);
    assert.equal(globMatcher('**/d5/**/d1999/file.ts')(deep), true);
  });

  it('a folder is entered only when the pattern could match below it', () => {
    assert.equal(folderFilter('src/**/*.ts')('src/a'), true);
    assert.equal(folderFilter('src/**/*.ts')('lib'), false);
  });
});
