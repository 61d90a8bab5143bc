// Both search engines give the same answer (issue 35): on generated trees (nested .gitignore, .ignore and
// .rgignore files with negations, hidden files, unicode names, CRLF and non-UTF-8 text, binary files,
// symlinks inside and out of the tree, huge lines, files over the size limit, node_modules folders) Grep
// in all three modes (context, -i, glob, type, multiline, paging) and Glob give the same text, left-out
// notes included. Runs are few (the unit suite stays fast; ENGRAM_PARITY_RUNS=500 for a longer hunt); a
// failure prints the tree and the call.
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { globTool, type GlobInput } from '../../../../src/core/tools/globTool';
import { grepTool, type GrepInput } from '../../../../src/core/tools/grepTool';
import type { ToolContext } from '../../../../src/core/tools/tool';
import { useTempDirs } from '../../support/tempDirs';
import { makeCtx, write } from '../toolTestKit';
import { bothEngines } from './engines';

const tempDir = useTempDirs();
const grep = grepTool();
const glob = globTool();
const [[, jsEngine], [, rgEngine]] = bothEngines();
/** Small limits so "too big" files are cheap to make. */
const MAX_FILE_BYTES = 3000;

const NAMES = ['a', 'b', 'sub', 'Zed', '.hidden', 'é', '日本', 'x y', 'node_modules', 'build', 'keep'];
const EXTS = ['.txt', '.ts', '.js', '.md', '.log', ''];
const WORDS = ['alpha', 'beta', 'Gamma', 'δέλτα', 'e_x', 'zeta', 'ALPHA'];

type Body = 'text' | 'crlf' | 'binary' | 'big' | 'hugeLine' | 'latin1' | 'empty';

interface FileSpec {
  dirs: string[];
  name: string;
  ext: string;
  body: Body;
  words: string[];
}

const fileSpec: fc.Arbitrary<FileSpec> = fc.record({
  dirs: fc.array(fc.constantFrom(...NAMES), { maxLength: 3 }),
  name: fc.constantFrom(...NAMES),
  ext: fc.constantFrom(...EXTS),
  body: fc.constantFrom<Body>('text', 'text', 'text', 'crlf', 'binary', 'big', 'hugeLine', 'latin1', 'empty'),
  words: fc.array(fc.constantFrom(...WORDS, 'plain words here', ''), { minLength: 1, maxLength: 8 }),
});

const ignoreLine = fc.constantFrom(
  '*.log',
  '!keep.log',
  'build/',
  '/a',
  'sub/*.md',
  '!sub/keep.md',
  '**/Zed',
  '.hidden',
  '*.js',
  '!b.js',
  'x y',
  '日本/',
);
const ignoreSpec = fc.record({
  dirs: fc.array(fc.constantFrom('a', 'sub', 'b'), { maxLength: 2 }),
  kind: fc.constantFrom('.gitignore', '.ignore', '.rgignore'),
  lines: fc.array(ignoreLine, { minLength: 1, maxLength: 4 }),
});

const treeSpec = fc.record({
  files: fc.array(fileSpec, { minLength: 1, maxLength: 14 }),
  ignores: fc.array(ignoreSpec, { maxLength: 3 }),
  links: fc.array(fc.constantFrom('fileIn', 'dirIn', 'out'), { maxLength: 2 }),
  ages: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 14, maxLength: 14 }),
});

function bodyOf(f: FileSpec): Buffer {
  const lines = f.words.map((w, i) => (i % 2 === 0 ? `${w} line ${i}` : w));
  switch (f.body) {
    case 'crlf':
      return Buffer.from(`${lines.join('\r\n')}\r\n`);
    case 'binary':
      return Buffer.concat([Buffer.from(`${lines[0]}\n`), Buffer.from([0]), Buffer.from(lines.join('\n'))]);
    case 'big':
      return Buffer.from(`${lines.join('\n')}\n${'filler line\n'.repeat(300)}`);
    case 'hugeLine':
      return Buffer.from(`${'q'.repeat(1200)} ${lines.join(' ')} ${'r'.repeat(700)}\n${lines.join('\n')}`);
    case 'latin1':
      return Buffer.concat([
        Buffer.from(`${lines[0]} `),
        Buffer.from([0xe9, 0xff]),
        Buffer.from(` ${lines.join('\n')}\n`),
      ]);
    case 'empty':
      return Buffer.alloc(0);
    default:
      return Buffer.from(lines.join('\n') + (f.words.length % 2 === 0 ? '\n' : ''));
  }
}

type Tree = typeof treeSpec extends fc.Arbitrary<infer T> ? T : never;

/** Writes the tree; paths that clash (a file where a folder must be) are skipped. */
async function makeTree(spec: Tree): Promise<string> {
  const root = tempDir('engram-parity-');
  const files = new Set<string>();
  const dirs = new Set<string>();
  const now = Date.now();
  for (const [i, f] of spec.files.entries()) {
    const rel = path.join(...f.dirs, f.name + f.ext);
    const parents = f.dirs.map((_, k) => path.join(...f.dirs.slice(0, k + 1)));
    if (files.has(rel) || dirs.has(rel) || parents.some((p) => files.has(p))) continue;
    files.add(rel);
    for (const p of parents) dirs.add(p);
    const abs = await write(root, rel, bodyOf(f));
    const t = new Date(now - (spec.ages[i] ?? 0) * 60_000);
    await fsp.utimes(abs, t, t);
  }
  for (const ig of spec.ignores) {
    const dir = path.join(...ig.dirs);
    if (files.has(dir) || ig.dirs.some((_, k) => files.has(path.join(...ig.dirs.slice(0, k + 1))))) continue;
    await write(root, path.join(dir, ig.kind), `${ig.lines.join('\n')}\n`);
  }
  const outside = tempDir('engram-parity-out-');
  await write(outside, 'alpha.txt', 'alpha outside\n');
  const someFile = [...files][0];
  for (const [i, l] of spec.links.entries()) {
    const at = path.join(root, `link${i}`);
    if (l === 'fileIn' && someFile) await fsp.symlink(path.join(root, someFile), at);
    else if (l === 'dirIn' && dirs.size > 0) await fsp.symlink(path.join(root, [...dirs][0]), at);
    else await fsp.symlink(outside, at);
  }
  return root;
}

/** Sometimes a value, mostly not: a call with every filter set rarely finds anything. */
const rarely = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: a, weight: 1 });

/** The record without its undefined keys (a tool's input has no undefined values). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const grepInput: fc.Arbitrary<GrepInput> = fc
  .record({
    pattern: fc.constantFrom(
      'alpha',
      'beta',
      'gamma',
      'δέλτα',
      'e_x',
      'alp.a',
      'be(ta|x)',
      '^alpha',
      'beta$',
      'line [0-9]',
    ),
    output_mode: fc.constantFrom<GrepInput['output_mode']>('content', 'content', 'files_with_matches', 'count'),
    '-i': fc.boolean(),
    '-C': rarely(fc.integer({ min: 0, max: 2 })),
    '-A': rarely(fc.integer({ min: 0, max: 1 })),
    glob: rarely(fc.constantFrom('*.txt', '*.{md,ts}', '!*.log', 'sub/**', '**/b*', '*')),
    type: rarely(fc.constantFrom('ts', 'js', 'md', 'txt')),
    head_limit: rarely(fc.constantFrom(3, 0, 250)),
    offset: rarely(fc.constantFrom(0, 2)),
    path: rarely(fc.constantFrom('a', 'sub', 'build', 'node_modules')),
  })
  .map(defined);

const multilineInput: fc.Arbitrary<GrepInput> = fc.record({
  pattern: fc.constantFrom('alpha\\s+beta', 'line 0.{0,40}line 2', 'Gamma\\n'),
  multiline: fc.constant(true),
  output_mode: fc.constantFrom('content', 'files_with_matches', 'count'),
  '-i': fc.boolean(),
});

const globInput: fc.Arbitrary<GlobInput> = fc
  .record({
    pattern: fc.constantFrom('**/*', '**/*.txt', '*', 'a/**', '**/.*', '**/b*', 'sub/*.{md,log}', '**/node_modules/**'),
    path: rarely(fc.constantFrom('a', 'sub', 'node_modules')),
  })
  .map(defined);

/** The host's excludes (VS Code's files.exclude / search.exclude) for a run. */
// Relative to the tree's root (the workspace folder), as the VS Code host passes them: anchored folder and
// file patterns (rebased when a Grep or Glob searches a folder below the root) and `**/` ones.
const excludesSpec = fc.constantFrom<string[]>(
  [],
  [],
  ['**/*.log'],
  ['sub/', '**/Zed'],
  ['*.md', 'a/b'],
  ['/a/sub', '/sub/b.txt', '**/build'],
  ['/a/**/b', '**/x y/', '/keep.ts'],
  ['/a', '/sub/*.md', '**/node_modules'],
);

function ctxFor(root: string, engine: ToolContext['search'], excludes: string[]): ToolContext {
  const searchBounds = { maxFileBytes: MAX_FILE_BYTES, timeLimitMs: 60_000, excludes, excludesRoot: root };
  return makeCtx(root, { search: engine, searchBounds });
}

/** What must be equal: the text the model reads, whether it is an error, and the counts. */
function answer(r: { content: string; isError: boolean; data?: unknown }): unknown {
  const { engine: _engine, numMatches: _n, ...rest } = (r.data ?? {}) as Record<string, unknown>;
  return { content: r.content, isError: r.isError, data: rest };
}

async function sameAnswer<I>(
  excludes: string[],
  tool: { run(i: I, c: ToolContext): Promise<never> | Promise<unknown> },
  root: string,
  input: I,
) {
  const js = (await tool.run(input, ctxFor(root, jsEngine, excludes))) as { content: string; isError: boolean };
  const rg = (await tool.run(input, ctxFor(root, rgEngine, excludes))) as { content: string; isError: boolean };
  assert.deepEqual(answer(rg), answer(js), `ripgrep and JavaScript differ for ${JSON.stringify(input)}`);
}

describe('search engines agree', () => {
  it('Grep and Glob give the same answer on generated trees', async () => {
    await fc.assert(
      fc.asyncProperty(
        treeSpec,
        fc.array(grepInput, { minLength: 2, maxLength: 3 }),
        multilineInput,
        globInput,
        excludesSpec,
        async (tree, greps, multi, g, excludes) => {
          const root = await makeTree(tree);
          for (const input of greps) await sameAnswer(excludes, grep, root, input);
          await sameAnswer(excludes, grep, root, multi);
          await sameAnswer(excludes, glob, root, g);
        },
      ),
      { numRuns: Number(process.env.ENGRAM_PARITY_RUNS) || 30 },
    );
  });

  it('orders names by their UTF-8 bytes, as ripgrep --sort path does (astral and fullwidth names)', async () => {
    const root = tempDir('engram-parity-');
    for (const name of ['\u{1F600}.txt', '\uFF21.txt', 'b/z.txt', 'a.txt', 'B.txt', 'é.txt'])
      await write(root, name, 'alpha\n');
    const input: GrepInput = { pattern: 'alpha', output_mode: 'count' };
    const js = await grep.run(input, ctxFor(root, jsEngine, []));
    const rg = await grep.run(input, ctxFor(root, rgEngine, []));
    const names = ['B.txt', 'a.txt', 'b/z.txt', 'é.txt', '\uFF21.txt', '\u{1F600}.txt'];
    assert.equal(js.content, names.map((n) => `${n}:1`).join('\n'));
    assert.equal(rg.content, js.content);
  });
});
