import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import * as esbuild from 'esbuild';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import {
  countTokens,
  ensureTokenizer,
  estimateTokensFast,
  isTokenizerLoaded,
} from '../../../src/core/tokens/tokenizer';

const REPO_ROOT = path.resolve(__dirname, '../../..');

test('estimateTokensFast is four characters a token, rounded up', () => {
  assert.equal(estimateTokensFast(''), 0);
  assert.equal(estimateTokensFast('abcd'.repeat(10)), 10);
  assert.equal(estimateTokensFast('abcde'), 2);
});

test('ensureTokenizer loads it once (unbundled: from the source module); counts are cl100k', async () => {
  await Promise.all([ensureTokenizer(), ensureTokenizer()]);
  assert.equal(isTokenizerLoaded(), true);
  assert.equal(countTokens(''), 0);
  assert.equal(countTokens('hello world'), 2);
  const reference = new Tiktoken(cl100k);
  const code = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n'.repeat(20);
  assert.equal(countTokens(code), reference.encode(code, [], []).length);
});

test('special-token strings are counted as ordinary text, never thrown on', async () => {
  await ensureTokenizer();
  const specials = ['<|endoftext|>', '<|fim_prefix|>', '<|fim_middle|>', '<|fim_suffix|>', '<|endofprompt|>'];
  for (const s of specials) {
    const n = countTokens(`before ${s} after`);
    assert.ok(n > 3, `${s} counted as text (${n} tokens), not as one special token`);
  }
  assert.equal(countTokens('<|endoftext|>'), 7);
});

test('long runs (repeated letters, CJK without spaces, rulers) count fast and close to exact', async () => {
  await ensureTokenizer();
  const reference = new Tiktoken(cl100k);
  const started = performance.now();
  assert.ok(countTokens('A'.repeat(50_000)) > 5_000);
  assert.ok(countTokens('='.repeat(50_000)) > 1_000);
  assert.ok(countTokens(' '.repeat(50_000)) > 100);
  assert.ok(countTokens('上下文管理'.repeat(4_000)) > 10_000);
  assert.ok(countTokens('🙂'.repeat(10_000)) > 10_000, 'emoji are not split in half');
  // Unsliced, each of these takes seconds to minutes in js-tiktoken.
  assert.ok(performance.now() - started < 5_000, `took ${Math.round(performance.now() - started)} ms`);

  for (const sample of ['x'.repeat(300), 'abcdefghij'.repeat(30), '-'.repeat(200), '中文测试文本'.repeat(20)]) {
    const exact = reference.encode(sample, [], []).length;
    const ours = countTokens(sample);
    assert.ok(
      Math.abs(ours - exact) <= Math.max(3, exact * 0.25),
      `${sample.slice(0, 12)}…: ${ours} vs exact ${exact}`,
    );
  }
});

test('bundled, the tokenizer stays out of the main bundle and is required from ./tokenizer.js on use', async () => {
  const lazy: esbuild.Plugin = {
    name: 'lazy-tokenizer',
    setup(build) {
      build.onResolve({ filter: /^engram-lazy:tokenizer$/ }, () => ({ path: './tokenizer.js', external: true }));
    },
  };
  const out = await esbuild.build({
    entryPoints: [path.join(REPO_ROOT, 'src/core/tokens/tokenizer.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
    plugins: [lazy],
  });
  const text = out.outputFiles[0].text;
  assert.ok(text.includes('require("./tokenizer.js")'));
  assert.ok(!text.includes('bpe_ranks') && !text.includes('pat_str'), 'ranks were bundled in');
  assert.ok(text.length < 20_000, `bundle is ${text.length} bytes`);
});
