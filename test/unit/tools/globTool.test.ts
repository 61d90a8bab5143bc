import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { globTool, splitStaticPrefix, type GlobData } from '../../../src/core/tools/globTool';
import { useTempDirs } from '../support/tempDirs';
import { bothEngines } from './search/engines';
import { age, makeCtx as kitCtx, write } from './toolTestKit';

const tempDir = useTempDirs();

const glob = globTool();

async function project(): Promise<string> {
  const dir = tempDir('engram-tools-');
  await fsp.mkdir(path.join(dir, '.git'));
  await write(dir, '.gitignore', 'dist/\n*.log\n!keep.log\n');
  await write(dir, 'src/a.ts', 'a');
  await write(dir, 'src/b.ts', 'b');
  await write(dir, 'src/deep/c.ts', 'c');
  await write(dir, 'src/deep/.gitignore', 'generated.ts\n');
  await write(dir, 'src/deep/generated.ts', 'g');
  await write(dir, 'dist/out.ts', 'o');
  await write(dir, 'debug.log', 'l');
  await write(dir, 'keep.log', 'k');
  await write(dir, 'node_modules/pkg/index.ts', 'n');
  await write(dir, '.git/hooks/x.ts', 'h');
  await write(dir, '.config/tool.ts', 'dot');
  return dir;
}

for (const [engineName, engine] of bothEngines())
  describe(`Glob (${engineName} engine)`, () => {
    const makeCtx: typeof kitCtx = (cwd, extra = {}) => kitCtx(cwd, { search: engine, ...extra });

    it('finds files newest first', async () => {
      const dir = await project();
      await age(path.join(dir, 'src/a.ts'), 300);
      await age(path.join(dir, 'src/b.ts'), 10);
      await age(path.join(dir, 'src/deep/c.ts'), 100);
      const r = await glob.run({ pattern: 'src/**/*.ts' }, makeCtx(dir));
      assert.equal(r.isError, false, r.content);
      assert.deepEqual(r.content.split('\n'), ['src/b.ts', 'src/deep/c.ts', 'src/a.ts']);
    });

    it('respects .gitignore (nested files, negation) and skips node_modules and .git', async () => {
      const dir = await project();
      const r = await glob.run({ pattern: '**/*.{ts,log}' }, makeCtx(dir));
      const found = r.content.split('\n');
      const note = '[1 node_modules folder not searched: node_modules. Pass one as path to search it.]';
      assert.equal(found.pop(), note);
      assert.deepEqual(found.sort(), ['.config/tool.ts', 'keep.log', 'src/a.ts', 'src/b.ts', 'src/deep/c.ts']);
    });

    it('searches an ignored folder when it is the path', async () => {
      const dir = await project();
      const r = await glob.run({ pattern: '*.ts', path: 'dist' }, makeCtx(dir));
      assert.equal(r.content, 'dist/out.ts');
      const nm = await glob.run({ pattern: '**/*.ts', path: path.join(dir, 'node_modules/pkg') }, makeCtx(dir));
      assert.equal(nm.content, 'node_modules/pkg/index.ts');
    });

    it('caps results at 100 with a note', async () => {
      const dir = tempDir('engram-tools-');
      for (let i = 0; i < 130; i++) await write(dir, `f${i}.txt`, '');
      const r = await glob.run({ pattern: '*.txt' }, makeCtx(dir));
      const lines = r.content.split('\n');
      assert.equal(lines.length, 101);
      assert.match(lines[100], /Showing the 100 newest of 130 files/);
      assert.deepEqual(r.data as GlobData, {
        filenames: lines.slice(0, 100),
        numFiles: 130,
        truncated: true,
        engine: engineName,
      });
    });

    it('takes an absolute pattern and shows paths outside the cwd absolutely', async () => {
      const dir = await project();
      const other = tempDir('engram-tools-');
      const r = await glob.run({ pattern: path.join(dir, 'src', '*.ts') }, makeCtx(other));
      assert.deepEqual(r.content.split('\n').sort(), [path.join(dir, 'src/a.ts'), path.join(dir, 'src/b.ts')]);
      assert.deepEqual(splitStaticPrefix('/a/b/**/*.ts'), { base: path.resolve('/a/b'), rest: '**/*.ts' });
      assert.deepEqual(splitStaticPrefix('/a/b/c.ts'), { base: path.resolve('/a/b'), rest: 'c.ts' });
    });

    it('reports no matches and a missing directory', async () => {
      const dir = tempDir('engram-tools-');
      const none = await glob.run({ pattern: '*.xyz' }, makeCtx(dir));
      assert.deepEqual([none.isError, none.content], [false, 'No files found.']);
      const missing = await glob.run({ pattern: '*', path: 'nope' }, makeCtx(dir));
      assert.equal(missing.isError, true);
      assert.match(missing.content, /does not exist/);
      assert.match(glob.validate({ pattern: '' }) ?? '', /must not be empty/);
    });
  });
