// The bounds of a search, on each engine: Stop ends it (ripgrep's process is gone), the time limit ends it
// with what it had and says so, a pattern ripgrep rejects comes back in its words, and a regex that would
// backtrack for ever is refused by the JavaScript engine and run by ripgrep.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { grepTool } from '../../../../src/core/tools/grepTool';
import { jsSearchEngine } from '../../../../src/core/tools/search/jsEngine';
import { ripgrepSearchEngine } from '../../../../src/core/tools/search/ripgrepEngine';
import { runRg } from '../../../../src/core/tools/search/rgProcess';
import { useTempDirs } from '../../support/tempDirs';
import { makeCtx, write } from '../toolTestKit';
import { testRgPath } from './engines';
import { alive } from '../../support/processes';

const tempDir = useTempDirs();
const grep = grepTool();

/** A folder big enough that a search of it takes a while: many files of text. */
async function manyFiles(n: number): Promise<string> {
  const dir = tempDir('engram-bounds-');
  const body = 'some text that does not match anything in particular\n'.repeat(200);
  for (let i = 0; i < n; i++) await write(dir, `d${i % 20}/f${i}.txt`, body);
  return dir;
}

describe('search bounds', () => {
  it('Stop kills ripgrep: the process is gone when the search returns', async () => {
    const ac = new AbortController();
    let pid: number | undefined;
    // Listing every file from / takes seconds; Stop comes 100 ms in.
    setTimeout(() => ac.abort(), 100);
    const run = await runRg(testRgPath(), ['--no-config', '--files', '/'], '/', ac.signal, 60_000, {
      onStdout: () => undefined,
      onStderr: () => undefined,
      started: (_stop, p) => {
        pid = p;
      },
    });
    assert.equal(run.stopped, true);
    assert.ok(pid !== undefined && !alive(pid), `rg (pid ${pid}) is still running`);
  });

  it('Stop cancels Grep on the ripgrep engine mid-search and leaves no rg running', async () => {
    const ac = new AbortController();
    const engine = ripgrepSearchEngine(testRgPath(), 'test');
    setTimeout(() => ac.abort(), 150);
    const started = Date.now();
    // A search of /usr for a pattern that rarely matches takes seconds.
    const r = await grep.run(
      { pattern: 'q[xz]{3}j', path: '/usr' },
      makeCtx(tempDir(), { signal: ac.signal, search: engine }),
    );
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    assert.deepEqual([r.isError, r.content], [true, 'Grep was cancelled.']);
    if (process.platform === 'linux') {
      const children = execFileSync('ps', ['-o', 'comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
      assert.doesNotMatch(children, /^rg$/m);
    }
  });

  for (const [label, engine] of [
    ['javascript', jsSearchEngine()],
    ['ripgrep', ripgrepSearchEngine(testRgPath(), 'test')],
  ] as const)
    it(`stops at the time limit and says so (${label})`, async () => {
      const dir = await manyFiles(120);
      const started = Date.now();
      const r = await grep.run(
        { pattern: 'particular', output_mode: 'count', head_limit: 0 },
        makeCtx(dir, { search: engine, searchBounds: { timeLimitMs: 1 } }),
      );
      assert.ok(Date.now() - started < 10_000);
      assert.match(r.content, /The search stopped after 0 s \(its time limit\); these results are partial/);
    });

  it('gives ripgrep’s own words for a pattern it rejects', async () => {
    const dir = await manyFiles(1);
    const engine = ripgrepSearchEngine(testRgPath(), 'test');
    const r = await grep.run({ pattern: 'a{2,1}' }, makeCtx(dir, { search: engine }));
    assert.equal(r.isError, true);
    assert.match(r.content, /^ripgrep cannot use this pattern: regex parse error/);
  });

  it('refuses a catastrophic regex in the JavaScript engine, and ripgrep runs it', async () => {
    const dir = tempDir('engram-bounds-');
    await write(dir, 'evil.txt', `${'a'.repeat(40)}!\nxaaab\n`);
    const js = await grep.run({ pattern: '(a+)+$' }, makeCtx(dir, { search: jsSearchEngine() }));
    assert.equal(js.isError, true);
    assert.match(js.content, /does not run this pattern: it repeats a group that itself repeats/);
    const backref = await grep.run({ pattern: '(a)\\1' }, makeCtx(dir));
    assert.match(backref.content, /backreference/);
    const engine = ripgrepSearchEngine(testRgPath(), 'test');
    const rg = await grep.run({ pattern: '(a+)+b$', output_mode: 'content' }, makeCtx(dir, { search: engine }));
    assert.deepEqual([rg.isError, rg.content], [false, 'evil.txt:2:xaaab']);
    const rgBackref = await grep.run({ pattern: '(a)\\1', output_mode: 'count' }, makeCtx(dir, { search: engine }));
    assert.deepEqual([rgBackref.isError, rgBackref.content], [false, 'evil.txt:2']);
  });

  it('asks for multiline when a pattern matches a line break, and allows [^\\n]', async () => {
    const dir = tempDir('engram-bounds-');
    await write(dir, 'f.txt', 'alpha\nbeta\n');
    for (const search of [jsSearchEngine(), ripgrepSearchEngine(testRgPath(), 'test')]) {
      const r = await grep.run({ pattern: 'alpha\\nbeta' }, makeCtx(dir, { search }));
      assert.deepEqual(
        [r.isError, r.content],
        [true, 'The pattern has \\n, which only matches across lines: set multiline to true.'],
      );
      const ok = await grep.run(
        { pattern: 'alpha\\nbeta', multiline: true, output_mode: 'count' },
        makeCtx(dir, { search }),
      );
      assert.equal(ok.content, 'f.txt:2');
      const cls = await grep.run({ pattern: 'al[^\\n]*a', output_mode: 'content' }, makeCtx(dir, { search }));
      assert.equal(cls.content, 'f.txt:1:alpha');
    }
  });
});
