import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { compilePattern, expandBraces, splitGlobs } from '../../../src/core/tools/grepSearch';
import { grepTool, GREP_MAX_FILE_BYTES, type GrepData } from '../../../src/core/tools/grepTool';
import { useTempDirs } from '../support/tempDirs';
import { bothEngines } from './search/engines';
import { age, makeCtx as kitCtx, write } from './toolTestKit';

const tempDir = useTempDirs();

const grep = grepTool();

/** The result lines without the bracketed notes (left-out files, paging). */
const found = (r: { content: string }): string[] => r.content.split('\n').filter((l) => !l.startsWith('['));
const notes = (r: { content: string }): string[] => r.content.split('\n').filter((l) => l.startsWith('['));

async function project(): Promise<string> {
  const dir = tempDir('engram-tools-');
  await fsp.mkdir(path.join(dir, '.git'));
  await write(dir, '.gitignore', 'build/\n');
  await write(dir, '.git/info/exclude', 'secret.txt\n');
  await write(dir, 'src/app.ts', 'import x from "y";\nconst TODO = 1;\n// todo: later\nexport default x;\n');
  await write(dir, 'src/util.js', 'function todo() {}\nmodule.exports = todo;\n');
  await write(dir, 'src/app.test.ts', 'test("TODO")\n');
  await write(dir, 'README.md', '# Title\nNothing here\n');
  await write(dir, 'build/out.js', 'TODO in build\n');
  await write(dir, 'build/.gitignore', '!out.js\n'); // cannot re-include inside an ignored dir
  await write(dir, 'secret.txt', 'TODO secret\n');
  await write(dir, 'node_modules/m/index.js', 'TODO dep\n');
  await write(dir, 'bin/tool', Buffer.from('TODO\0binary'));
  await age(path.join(dir, 'src/app.ts'), 100);
  await age(path.join(dir, 'src/util.js'), 10);
  await age(path.join(dir, 'src/app.test.ts'), 50);
  return dir;
}

for (const [engineName, engine] of bothEngines())
  describe(`Grep (${engineName} engine)`, () => {
    const makeCtx: typeof kitCtx = (cwd, extra = {}) => kitCtx(cwd, { search: engine, ...extra });

    it('lists matching files newest first by default, skipping ignored, binary and dependency files', async () => {
      const dir = await project();
      const r = await grep.run({ pattern: 'todo', '-i': true }, makeCtx(dir));
      assert.equal(r.isError, false, r.content);
      assert.deepEqual(found(r), ['src/util.js', 'src/app.test.ts', 'src/app.ts']);
      assert.equal((r.data as GrepData).numFiles, 3);
      assert.equal((r.data as GrepData).engine, engineName);
      assert.deepEqual(notes(r), [
        '[1 binary file not searched: bin/tool.]',
        '[1 node_modules folder not searched: node_modules. Pass one as path to search it.]',
      ]);
    });

    it('is case sensitive unless -i, and says when nothing matches', async () => {
      const dir = await project();
      const r = await grep.run({ pattern: 'TODO' }, makeCtx(dir));
      assert.deepEqual(found(r).sort(), ['src/app.test.ts', 'src/app.ts']);
      const none = await grep.run({ pattern: 'zzz' }, makeCtx(dir));
      assert.deepEqual([none.isError, found(none)], [false, ['No matches found.']]);
    });

    it('shows content with line numbers by default', async () => {
      const dir = await project();
      const r = await grep.run(
        { pattern: 'todo', output_mode: 'content', path: 'src/app.ts', '-i': true },
        makeCtx(dir),
      );
      assert.equal(r.content, '2:const TODO = 1;\n3:// todo: later');
      const noNum = await grep.run(
        { pattern: 'TODO', output_mode: 'content', glob: '*.ts', '-n': false },
        makeCtx(dir),
      );
      assert.deepEqual(found(noNum).sort(), ['src/app.test.ts:test("TODO")', 'src/app.ts:const TODO = 1;']);
    });

    it('adds context lines with rg separators', async () => {
      const dir = tempDir('engram-tools-');
      await write(dir, 'f.txt', ['a', 'hit1', 'b', 'c', 'd', 'e', 'hit2', 'f'].join('\n'));
      const c = await grep.run({ pattern: 'hit', output_mode: 'content', '-C': 1 }, makeCtx(dir));
      assert.equal(
        c.content,
        ['f.txt-1-a', 'f.txt:2:hit1', 'f.txt-3-b', '--', 'f.txt-6-e', 'f.txt:7:hit2', 'f.txt-8-f'].join('\n'),
      );
      const a = await grep.run(
        { pattern: 'hit', output_mode: 'content', '-A': 2, '-C': 5, path: 'f.txt' },
        makeCtx(dir),
      );
      assert.equal(a.content, ['1-a', '2:hit1', '3-b', '4-c', '5-d', '6-e', '7:hit2', '8-f'].join('\n'));
      const b = await grep.run({ pattern: 'hit2', output_mode: 'content', '-B': 1, path: 'f.txt' }, makeCtx(dir));
      assert.equal(b.content, '6-e\n7:hit2');
    });

    it('counts matching lines per file', async () => {
      const dir = await project();
      const r = await grep.run({ pattern: 'todo', '-i': true, output_mode: 'count', type: 'ts' }, makeCtx(dir));
      assert.deepEqual(found(r).sort(), ['src/app.test.ts:1', 'src/app.ts:2']);
    });

    it('filters by glob (braces, several, negated) and type', async () => {
      const dir = await project();
      const ctx = makeCtx(dir);
      const names = async (input: Record<string, unknown>) =>
        found(await grep.run({ pattern: '.', ...input } as never, ctx)).sort();
      assert.deepEqual(await names({ glob: '*.{js,md}' }), ['README.md', 'src/util.js']);
      assert.deepEqual(await names({ glob: '*.js *.md' }), ['README.md', 'src/util.js']);
      assert.deepEqual(await names({ glob: '!*.test.ts', type: 'ts' }), ['src/app.ts']);
      assert.deepEqual(await names({ glob: 'src/*.ts' }), ['src/app.test.ts', 'src/app.ts']);
      assert.deepEqual(await names({ type: 'js' }), ['src/util.js']);
      const bad = await grep.run({ pattern: 'x', type: 'cobol' }, ctx);
      assert.equal(bad.isError, true);
      assert.match(bad.content, /Unknown file type "cobol"/);
    });

    it('pages with head_limit and offset', async () => {
      const dir = tempDir('engram-tools-');
      await write(dir, 'f.txt', Array.from({ length: 20 }, (_, i) => `row ${i + 1}`).join('\n'));
      const ctx = makeCtx(dir);
      const first = await grep.run({ pattern: 'row', output_mode: 'content', head_limit: 3 }, ctx);
      assert.equal(
        first.content,
        'f.txt:1:row 1\nf.txt:2:row 2\nf.txt:3:row 3\n[Results cut after 3 entries. Use offset=3 for more, or narrow the search.]',
      );
      assert.equal((first.data as GrepData).truncated, true);
      const next = await grep.run({ pattern: 'row', output_mode: 'content', head_limit: 2, offset: 3 }, ctx);
      assert.match(next.content, /^f.txt:4:row 4\nf.txt:5:row 5\n\[Results cut/);
      const all = await grep.run({ pattern: 'row', output_mode: 'content', head_limit: 0 }, ctx);
      assert.equal(all.content.split('\n').length, 20);
    });

    it('matches across lines in multiline mode', async () => {
      const dir = tempDir('engram-tools-');
      await write(dir, 'f.ts', 'interface A {\n  x: number;\n}\nconst y = 1;\n');
      const r = await grep.run(
        { pattern: 'interface A \\{.*?\\}', multiline: true, output_mode: 'content' },
        makeCtx(dir),
      );
      assert.equal(r.content, 'f.ts:1:interface A {\nf.ts:2:  x: number;\nf.ts:3:}');
      const single = await grep.run({ pattern: 'interface A \\{.*?\\}' }, makeCtx(dir));
      assert.equal(single.content, 'No matches found.');
    });

    it('skips files over 2 MB in a directory search but streams one asked for by name', async () => {
      const dir = tempDir('engram-tools-');
      const big = 'filler line\n'.repeat(Math.ceil(GREP_MAX_FILE_BYTES / 12) + 10) + 'NEEDLE here\n';
      await write(dir, 'big.txt', big);
      await write(dir, 'small.txt', 'NEEDLE\n');
      const walk = await grep.run({ pattern: 'NEEDLE' }, makeCtx(dir));
      assert.deepEqual(found(walk), ['small.txt']);
      assert.deepEqual(notes(walk), ['[1 file over 2 MB not searched: big.txt. Name one as path to search it.]']);
      const named = await grep.run({ pattern: 'NEEDLE', path: 'big.txt', output_mode: 'content' }, makeCtx(dir));
      assert.match(named.content, /^\d+:NEEDLE here$/);
    });

    it('reports bad regexes, binary files named explicitly and missing paths', async () => {
      const dir = await project();
      const bad = await grep.run({ pattern: 'foo(' }, makeCtx(dir));
      assert.equal(bad.isError, true);
      assert.match(
        bad.content,
        engineName === 'ripgrep' ? /ripgrep cannot use this pattern: .*unclosed group/s : /Invalid regular expression/,
      );
      const bin = await grep.run({ pattern: 'TODO', path: 'bin/tool' }, makeCtx(dir));
      assert.equal(bin.isError, true);
      assert.match(bin.content, /binary/);
      const missing = await grep.run({ pattern: 'x', path: 'nope' }, makeCtx(dir));
      assert.match(missing.content, /does not exist/);
    });

    it('cuts very long matched lines', async () => {
      const dir = tempDir('engram-tools-');
      await write(dir, 'min.js', `var a=1;${'x'.repeat(2000)}`);
      const r = await grep.run({ pattern: 'var', output_mode: 'content' }, makeCtx(dir));
      assert.ok(r.content.length < 600);
      assert.match(r.content, /more characters\]$/);
    });

    it('translates ripgrep regex habits', () => {
      assert.equal(compilePattern('(?i)abc', { ignoreCase: false, multiline: false }).test('ABC'), true);
      assert.equal(compilePattern('(?P<n>a)', { ignoreCase: false, multiline: false }).exec('a')?.groups?.n, 'a');
      assert.deepEqual(expandBraces('*.{ts,{js,jsx}}'), ['*.ts', '*.js', '*.jsx']);
      assert.deepEqual(expandBraces('a{b}c'), ['a{b}c']);
      assert.deepEqual(splitGlobs('*.ts,*.tsx src/*.{a,b}'), ['*.ts', '*.tsx', 'src/*.{a,b}']);
    });

    it('stops when aborted', async () => {
      const dir = await project();
      const ac = new AbortController();
      ac.abort();
      const r = await grep.run({ pattern: 'x' }, makeCtx(dir, { signal: ac.signal }));
      assert.equal(r.isError, true);
      assert.match(r.content, /cancelled/);
    });
  });
