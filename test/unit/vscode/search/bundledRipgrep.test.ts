// Where the chat finds the editor's ripgrep and which workspace excludes it honours (issue 35): the
// layouts are checked against the real VS Code server the host tests run in, when it is installed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { bundledRipgrepPaths, workspaceExcludes } from '../../../../src/vscode/search/bundledRipgrep';
import { pickRipgrep, describeRipgrepChoice } from '../../../../src/core/tools/ripgrepLocation';

/** The test host's VS Code (code-server): its appRoot is lib/vscode. */
const TEST_HOST_APP_ROOT = path.resolve('.vscode-test/cs/node_modules/code-server/lib/vscode');

describe("VS Code's bundled ripgrep", () => {
  it('looks where VS Code and its server keep it, rg.exe on Windows', () => {
    const linux = bundledRipgrepPaths('/app', 'linux', 'x64');
    assert.equal(linux[0], '/app/node_modules/@vscode/ripgrep-universal/bin/linux-x64/rg');
    assert.ok(linux.includes('/app/node_modules/@vscode/ripgrep/bin/rg'));
    assert.ok(linux.includes('/app/node_modules.asar.unpacked/@vscode/ripgrep/bin/rg'));
    const win = bundledRipgrepPaths('C:/VSCode/resources/app', 'win32', 'arm64');
    assert.ok(win.every((p) => p.endsWith('rg.exe')));
    assert.ok(win.some((p) => p.includes(path.join('ripgrep-universal', 'bin', 'win32-arm64'))));
  });

  it('finds the copy of the VS Code server the host tests use, and it runs', async (t) => {
    if (!fs.existsSync(TEST_HOST_APP_ROOT)) return t.skip('no VS Code test host installed here');
    const choice = await pickRipgrep(
      bundledRipgrepPaths(TEST_HOST_APP_ROOT, process.platform, process.arch).map((p) => ({
        path: p,
        source: "VS Code's bundled copy",
      })),
    );
    assert.ok(choice.found, describeRipgrepChoice(choice));
    assert.match(describeRipgrepChoice(choice), /^ripgrep \d+\.\d+\.\d+ \(VS Code's bundled copy at .+ripgrep/);
  });

  it('says where it looked when there is none', async () => {
    const choice = await pickRipgrep(
      bundledRipgrepPaths('/nowhere', 'linux', 'x64').map((p) => ({ path: p, source: "VS Code's bundled copy" })),
    );
    assert.equal(choice.found, false);
    assert.match(
      describeRipgrepChoice(choice),
      /^the JavaScript engine \(no ripgrep found: no VS Code's bundled copy \(looked for \/nowhere\/node_modules\/@vscode\/ripgrep-universal\/bin\/linux-x64\/rg, .+, and 4 more places\)\)$/,
    );
  });
});

describe('workspace excludes', () => {
  it('takes the patterns set to true from files.exclude and search.exclude, anchored as VS Code matches them', () => {
    const { globs, conditional } = workspaceExcludes(
      { '**/.git': true, '**/.DS_Store': true, 'out/gen': true, '**/tmp': false },
      { '**/node_modules': true, build: true, './vendor/**': true, '**/*.js': { when: '$(basename).ts' } },
    );
    assert.deepEqual(globs, ['**/.git', '**/.DS_Store', '/out/gen', '**/node_modules', '/build', '/vendor/**']);
    assert.deepEqual(conditional, ['**/*.js']);
  });

  it('lets search.exclude turn off what files.exclude hides, as VS Code does', () => {
    assert.deepEqual(workspaceExcludes({ '**/dist': true }, { '**/dist': false }).globs, []);
    assert.deepEqual(workspaceExcludes(undefined, undefined), { globs: [], conditional: [] });
  });
});
