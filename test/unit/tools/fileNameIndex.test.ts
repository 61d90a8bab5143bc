// The `@` completion's file list (issue 35), on real folders through both real search engines: ranking,
// .gitignore honoured, the host's excludes, and file events followed (a deleted file gone at once, a created
// one there after the listing made stale is made again).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createSearchEngine, type SearchEngine } from '../../../src/core/host/search';
import { FileNameIndex, rankPaths } from '../../../src/core/tools/fileNameIndex';

const rgPath = path.resolve(
  __dirname,
  '../../../node_modules/@vscode/ripgrep-universal/bin',
  `${process.platform}-${process.arch}`,
  process.platform === 'win32' ? 'rg.exe' : 'rg',
);

function workspace(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-file-names-'));
  const files: Record<string, string> = {
    '.gitignore': 'dist/\n',
    'README.md': '# hi\n',
    'src/reader.ts': 'export {};\n',
    'src/thread.ts': 'export {};\n',
    'test/unit/reader.test.ts': 'export {};\n',
    'docs/guide/readme-extra.md': 'x\n',
    'dist/reader.js': 'built\n',
    'node_modules/dep/reader.js': 'dep\n',
    'vendor/readme-vendor.md': 'x\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  fs.mkdirSync(path.join(root, '.git'));
  return root;
}

describe('rankPaths', () => {
  it('ranks file names that start with the query first, then paths that do, then shorter paths', () => {
    const files = [
      'docs/guide/readme-extra.md',
      'README.md',
      'src/reader.ts',
      'test/unit/reader.test.ts',
      'src/thread.ts',
    ];
    assert.deepEqual(rankPaths(files, 'rea', 20), [
      'README.md',
      'src/reader.ts',
      'test/unit/reader.test.ts',
      'docs/guide/readme-extra.md',
      'src/thread.ts',
    ]);
    assert.deepEqual(rankPaths(files, 'READ', 2), ['README.md', 'src/reader.ts']);
    assert.deepEqual(rankPaths(files, 'src/', 20), ['src/reader.ts', 'src/thread.ts']);
    assert.deepEqual(rankPaths(files, 'zzz', 20), []);
    assert.equal(rankPaths(files, '', 20).length, files.length);
  });

  it('keeps the best few of many in the order a full sort gives', () => {
    const files = Array.from({ length: 2000 }, (_, i) => `pkg${i % 7}/src/mod${(i * 7919) % 2000}/file${i}.ts`);
    const full = (q: string): string[] =>
      files
        .filter((f) => f.toLowerCase().includes(q))
        .map((f) => {
          const name = f.slice(f.lastIndexOf('/') + 1).toLowerCase();
          return [(name.startsWith(q) ? 0 : f.toLowerCase().startsWith(q) ? 1 : 2) * 1e5 + f.length, f] as const;
        })
        .sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]))
        .slice(0, 20)
        .map(([, f]) => f);
    for (const q of ['', 'file1', 'pkg3', 'mod1', '9.ts', 'src/mod19'])
      assert.deepEqual(rankPaths(files, q, 20), full(q), q);
  });
});

for (const [name, engine] of [
  ['the JavaScript engine', () => createSearchEngine({})],
  ['the ripgrep engine', () => createSearchEngine({ rgPath })],
] as Array<[string, () => Promise<SearchEngine>]>) {
  describe(`FileNameIndex through ${name}`, () => {
    it('lists what is not ignored or excluded, and answers by rank', async () => {
      const root = workspace();
      const e = await engine();
      const index = new FileNameIndex({ root, engine: () => e, excludes: () => ['vendor/'] });
      assert.deepEqual(await index.suggest('rea', 20), [
        'README.md',
        'src/reader.ts',
        'test/unit/reader.test.ts',
        'docs/guide/readme-extra.md',
        'src/thread.ts',
      ]);
      assert.equal(await index.has('src/reader.ts'), true);
      assert.equal(await index.has('dist/reader.js'), false, 'ignored by .gitignore');
      assert.equal(await index.has('node_modules/dep/reader.js'), false);
      assert.equal(await index.has('vendor/readme-vendor.md'), false, "the host's exclude");
    });

    it('follows file events: a deleted file goes at once, a created one comes with the next listing', async () => {
      const root = workspace();
      const e = await engine();
      const index = new FileNameIndex({ root, engine: () => e });
      assert.deepEqual(await index.suggest('thread', 20), ['src/thread.ts']);
      fs.rmSync(path.join(root, 'src/thread.ts'));
      index.onFileEvent('delete', path.join(root, 'src/thread.ts'));
      assert.deepEqual(await index.suggest('thread', 20), [], 'gone before the listing is made again');
      fs.writeFileSync(path.join(root, 'src/threads.ts'), 'export {};\n');
      index.onFileEvent('create', path.join(root, 'src/threads.ts'));
      index.onFileEvent('create', path.join(os.tmpdir(), 'elsewhere.ts'));
      assert.equal(await index.has('src/threads.ts'), true, 'has() lists again when an event came');
      assert.deepEqual(await index.suggest('thread', 20), ['src/threads.ts']);
    });
  });
}
