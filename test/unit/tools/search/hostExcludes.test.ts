// The host's excludes (VS Code's files.exclude / search.exclude) on both engines (issue 35): what they leave
// out is counted and named in Grep's and Glob's result, apart from node_modules, and patterns written
// relative to the workspace folder apply there when the search runs in a folder below it (or above it).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { globTool } from '../../../../src/core/tools/globTool';
import { grepTool } from '../../../../src/core/tools/grepTool';
import { excludesFor } from '../../../../src/core/tools/search/hostExcludes';
import type { ToolContext } from '../../../../src/core/tools/tool';
import { useTempDirs } from '../../support/tempDirs';
import { makeCtx, write } from '../toolTestKit';
import { bothEngines } from './engines';

const tempDir = useTempDirs();

/** A workspace with a top-level build folder, a src/build folder, generated folders and a log. */
async function workspace(): Promise<string> {
  const ws = tempDir('engram-excludes-');
  for (const rel of ['build/a.txt', 'src/build/b.txt', 'src/main.txt', 'src/gen/c.txt', 'x/gen/d.txt', 'src/e.log'])
    await write(ws, rel, 'pineapple\n');
  await write(ws, 'node_modules/m/f.txt', 'pineapple\n');
  return ws;
}

function ctx(ws: string, engine: ToolContext['search'], excludes: string[], cwd = ws): ToolContext {
  return makeCtx(cwd, {
    search: engine,
    searchBounds: { maxFileBytes: 1 << 20, timeLimitMs: 60_000, excludes, excludesRoot: ws },
  });
}

describe('host excludes', () => {
  it('rebases patterns from the workspace folder to the searched folder', () => {
    const ws = path.resolve('/ws');
    const bounds = { timeLimitMs: 1, maxFileBytes: 1, excludesRoot: ws };
    const excludes = ['/build', '/src/gen', '/src/**/tmp', '**/out', '/*/cache/', '*.log', 'src/a/b', '!x'];
    const below = excludesFor({ ...bounds, excludes, root: path.join(ws, 'src') });
    assert.deepEqual(below, ['/gen', '**/tmp', '**/out', '/cache/', '*.log', '/a/b']);
    assert.deepEqual(excludesFor({ ...bounds, excludes, root: path.join(ws, 'src', 'gen') }), [
      '**/tmp',
      '**/out',
      '*.log',
    ]);
    const above = excludesFor({ ...bounds, excludes: ['/build', '**/out', 'src/gen'], root: path.dirname(ws) });
    assert.deepEqual(above, ['/ws/build', '**/out', '/ws/src/gen']);
    const elsewhere = excludesFor({ ...bounds, excludes: ['/build', '**/out'], root: path.resolve('/other') });
    assert.deepEqual(elsewhere, ['**/out']);
    assert.deepEqual(excludesFor({ ...bounds, excludesRoot: undefined, excludes, root: ws }), excludes.slice(0, -1));
  });

  for (const [label, engine] of bothEngines()) {
    it(`names what the excludes left out, apart from node_modules (${label})`, async () => {
      const ws = await workspace();
      const r = await grepTool().run(
        { pattern: 'pineapple', output_mode: 'files_with_matches' },
        ctx(ws, engine, ['**/gen', '/build', '**/*.log']),
      );
      const [list] = r.content.split('\n[');
      assert.deepEqual(list.split('\n').sort(), ['src/build/b.txt', 'src/main.txt']);
      assert.match(
        r.content,
        /\[4 folders and files excluded by the editor's files\.exclude \/ search\.exclude settings not searched: build, src\/e\.log, src\/gen, x\/gen\. Pass one as path to search it\.\]/,
      );
      assert.match(r.content, /\[1 node_modules folder not searched: node_modules\./);
    });

    it(`says nothing of VS Code's default **/.git exclude: a .git folder is skipped anyway (${label})`, async () => {
      const ws = await workspace();
      await write(ws, '.git/HEAD', 'pineapple\n');
      await write(ws, 'sub/.hg/store.txt', 'pineapple\n');
      const r = await grepTool().run(
        { pattern: 'pineapple', output_mode: 'files_with_matches' },
        ctx(ws, engine, ['**/.git', '**/.hg', '**/gen']),
      );
      assert.doesNotMatch(r.content, /HEAD|store\.txt/);
      assert.match(r.content, /\[2 folders excluded by the editor's .* not searched: src\/gen, x\/gen\./);
      assert.doesNotMatch(r.content, /\.git|\.hg/, 'no word of the VCS folders');
    });

    it(`anchors /build at the workspace's build when Grep searches src/ (${label})`, async () => {
      const ws = await workspace();
      const r = await grepTool().run(
        { pattern: 'pineapple', path: 'src', output_mode: 'files_with_matches' },
        ctx(ws, engine, ['/build', '/src/gen']),
      );
      assert.match(r.content, /src\/build\/b\.txt/, 'src/build is not the workspace build folder');
      assert.doesNotMatch(r.content, /c\.txt/);
      assert.match(r.content, /\[1 folder excluded by .* not searched: src\/gen\. Pass it as path to search it\.\]/);
    });

    it(`names excluded files Glob's pattern would have listed, and no others (${label})`, async () => {
      const ws = await workspace();
      const r = await globTool().run({ pattern: 'src/**/*.log' }, ctx(ws, engine, ['**/*.log', '/x']));
      assert.match(r.content, /\[1 file excluded by .* not searched: src\/e\.log\. Pass it as path to search it\.\]/);
      assert.doesNotMatch(r.content, /\bx\b/);
    });
  }
});
