// Glob through ripgrep asks rg only for the names the pattern's last part can match (issue 35, for speed on
// big trees): the answers must stay the JavaScript engine's, whatever the last part looks like.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { bothEngines } from './engines';

const FILES = [
  'a.ts',
  'b.tsx',
  'src/a.ts',
  'src/deep/c.ts',
  'src/a,b.ts',
  'src/[x].ts',
  'src/UPPER.TS',
  'dist/a.ts',
  'src/gen.ts',
  'src/.hidden.ts',
];

it('gives the JavaScript engine’s answer for every kind of last part', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-glob-names-'));
  for (const f of FILES) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), 'x\n');
  }
  fs.mkdirSync(path.join(root, '.git'));
  fs.writeFileSync(path.join(root, '.gitignore'), 'dist/\ngen.ts\n');
  const patterns = [
    '**/*.ts',
    '*.ts',
    '**/*.{ts,tsx}',
    'src/{a,deep/c}.ts',
    '**/[ab].ts',
    '**/a,b.ts',
    '**/\\[x].ts',
    '**/*.TS',
    '**/gen.ts',
    'src/**',
    '**/.hidden.ts',
  ];
  const [[, js], [, rg]] = bothEngines();
  for (const pattern of patterns) {
    const q = { root, pattern, maxResults: 100, timeLimitMs: 10_000, maxFileBytes: 1e9, excludes: [] };
    const names = async (e: typeof js): Promise<string[]> =>
      (await e.files(q, new AbortController().signal)).files.map((f) => path.relative(root, f.path)).sort();
    const expected = await names(js);
    assert.deepEqual(await names(rg), expected, pattern);
    if (pattern === 'src/{a,deep/c}.ts') assert.deepEqual(expected, ['src/a.ts', 'src/deep/c.ts']);
    if (pattern === '**/a,b.ts') assert.deepEqual(expected, ['src/a,b.ts']);
  }
});
