import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it } from 'node:test';
import { runRg } from '../../../../src/core/tools/search/rgProcess';
import { globNameTails, linesEndingWith } from '../../../../src/core/tools/search/searchOrder';

// The line splitting under every ripgrep run, on a real child process (Node standing in for rg) that
// writes its output in pieces: lines and characters cut between two writes, CRLF, a last line without
// a terminator, and a line far longer than one read of the pipe.

/** Runs a Node script as the "rg" and collects its stdout lines (through `pick` when given). */
async function linesOf(script: string, pick?: Parameters<typeof runRg>[5]['pickStdout']): Promise<string[]> {
  const lines: string[] = [];
  const run = await runRg(process.execPath, ['-e', script], os.tmpdir(), new AbortController().signal, 30_000, {
    onStdout: (l) => lines.push(l),
    onStderr: () => undefined,
    pickStdout: pick,
  });
  assert.equal(run.code, 0);
  return lines;
}

/** A script writing `pieces` one after the other, each in its own write after a pause. */
function writes(pieces: string[]): string {
  return `const p=${JSON.stringify(pieces)};let i=0;const next=()=>{if(i<p.length)process.stdout.write(Buffer.from(p[i++],'base64'),()=>setTimeout(next,5))};next();`;
}
const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');

describe('ripgrep output lines', () => {
  it('joins lines and characters cut between two writes, and keeps a last line without a terminator', async () => {
    const text = Buffer.from('alpha\nbé\r\ngamma é漢字\nlast');
    // Cut inside "é" (two bytes) and inside "漢" (three bytes).
    const cuts = [3, 8, 18, 20, text.length];
    const pieces: string[] = [];
    let from = 0;
    for (const to of cuts) {
      pieces.push(b64(text.subarray(from, to)));
      from = to;
    }
    assert.deepEqual(await linesOf(writes(pieces)), ['alpha', 'bé\r', 'gamma é漢字', 'last']);
  });

  it('reads a line of 3 MB written in many pieces, whole', async () => {
    const script = `const big='x'.repeat(3*1024*1024);let i=0;const step=100000;const next=()=>{if(i<big.length){process.stdout.write(big.slice(i,i+step),()=>setImmediate(next));i+=step}else process.stdout.write('\\nafter\\n')};next();`;
    const lines = await linesOf(script);
    assert.equal(lines.length, 2);
    assert.equal(lines[0]?.length, 3 * 1024 * 1024);
    assert.equal(lines[1], 'after');
  });

  it('picks the lines that end with a glob tail, and only those, each once', async () => {
    const listing = ['./a/App.tsx', './a/App.ts', './b/x.d.ts', './c/file.tsx.bak', './d/win.tsx\r', './e/y.ts'];
    const text = `${listing.join('\n')}\n./f/last.tsx`;
    const pieces = [b64(text.slice(0, 20)), b64(text.slice(20, 41)), b64(text.slice(41))];
    const tsx = globNameTails('**/*.tsx');
    assert.ok(tsx);
    assert.deepEqual((await linesOf(writes(pieces), linesEndingWith(tsx))).sort(), [
      './a/App.tsx',
      './d/win.tsx',
      './f/last.tsx',
    ]);
    // Two choices that both end "./b/x.d.ts": taken once.
    const both = globNameTails('**/*.{ts,d.ts}');
    assert.ok(both);
    assert.deepEqual((await linesOf(writes(pieces), linesEndingWith(both))).sort(), [
      './a/App.ts',
      './b/x.d.ts',
      './e/y.ts',
    ]);
  });

  it('has no tail to test when some choice of the pattern can end any way', () => {
    assert.equal(globNameTails('src/**'), null);
    assert.equal(globNameTails('{src/**,*.md}'), null);
    assert.deepEqual(
      globNameTails('**/src/index.ts')?.map((b) => b.toString()),
      ['index.ts'],
      'the last name only, so it holds whatever separator rg prints',
    );
  });
});
