import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../support/tempDirs';

const script = path.resolve(__dirname, '../../../scripts/lintCore.mjs');

function lint(files: Record<string, string>): { status: number | null; output: string } {
  const dir = tempDir('engram-lint-');
  try {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
    return { status: r.status, output: r.stdout + r.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('the layer lint fails when src/core imports vscode, in any import form', () => {
  for (const line of [
    "import * as vscode from 'vscode';",
    "import type { Uri } from 'vscode';",
    "const vscode = require('vscode');",
    "export { window } from 'vscode';",
    "const v = await import('vscode');",
  ]) {
    const r = lint({ 'src/core/agent/bad.ts': `${line}\n` });
    assert.equal(r.status, 1, `not caught: ${line}`);
    assert.match(r.output, /src\/core must not import 'vscode'/);
  }
});

test('the layer lint passes clean code and ignores the word vscode in strings and comments', () => {
  const r = lint({
    'src/core/ok.ts':
      "// talks about 'vscode' only in a comment\nexport const hint = \"import from 'vscode' is banned\";\nimport fs from 'node:fs';\n",
    'src/protocol/messages.ts': 'export type A = { type: "a" };\n',
    'webview/main.ts': "import type { A } from '../src/protocol/messages';\n",
  });
  assert.equal(r.status, 0, r.output);
});

test('the layer lint refuses webview code that reaches into the host side', () => {
  const r = lint({ 'webview/main.ts': "import { x } from '../src/core/ports';\n" });
  assert.equal(r.status, 1);
  assert.match(r.output, /may only import src\/protocol/);
});

test('the layer lint keeps src/core folders to their layer order', () => {
  const refused: Array<[string, string, RegExp]> = [
    [
      'src/core/conversation/a.ts',
      "import { x } from '../memory/m';",
      /src\/core\/conversation must not import the higher layer src\/core\/memory/,
    ],
    [
      'src/core/agent/a.ts',
      "import type { X } from '../memory/autoMemory/m';",
      /src\/core\/agent must not import the higher layer src\/core\/memory/,
    ],
    [
      'src/core/tools/a.ts',
      "export { y } from '../agent/b';",
      /src\/core\/tools must not import the higher layer src\/core\/agent/,
    ],
    [
      'src/core/fs/a.ts',
      "const t = require('../tools/t');",
      /src\/core\/fs must not import the higher layer src\/core\/tools/,
    ],
    [
      'src/core/ports.ts',
      "import type { Y } from './conversation/types';",
      /the files directly in src\/core must not import the higher layer src\/core\/conversation/,
    ],
    [
      'src/core/tokens/a.ts',
      "import { c } from '../llm/client';",
      /src\/core\/tokens must not import its peer src\/core\/llm/,
    ],
    [
      'src/core/widgets/a.ts',
      "import { c } from '../agent/agent';",
      /src\/core\/widgets has no place in the layer order/,
    ],
    [
      'src/core/security/a.ts',
      "import { t } from '../tools/tool';",
      /src\/core\/security must not import the higher layer src\/core\/tools/,
    ],
    [
      'src/core/fs/a.ts',
      "import { s } from '../security/secretScan';",
      /src\/core\/fs must not import the higher layer src\/core\/security/,
    ],
  ];
  for (const [file, line, message] of refused) {
    const r = lint({ [file]: `${line}\n` });
    assert.equal(r.status, 1, `not caught: ${file}: ${line}`);
    assert.match(r.output, message);
  }
  const allowed = lint({
    'src/core/thresholds.ts': 'export const T = 1;\n',
    'src/core/fs/atomic.ts': "import { T } from '../thresholds';\n",
    'src/core/conversation/types.ts': "import { T } from '../thresholds';\n",
    'src/core/memory/m.ts':
      "import { a } from '../agent/agent';\nimport { w } from '../fs/atomic';\nimport { T } from '../thresholds';\n",
    'src/core/agent/agent.ts':
      "import type { M } from '../conversation/types';\nimport { r } from '../security/secretScan';\n",
    'src/core/security/secretScan.ts': "import { g } from '../fs/atomic';\n",
    'src/core/tools/readTool.ts': "import { p } from '../security/secretScan';\n",
    'src/core/session/s.ts': "import { m } from '../memory/m';\nimport { c } from '../compaction/c';\n",
    'src/core/compaction/c.ts': "import { m } from '../memory/m';\n",
  });
  assert.equal(allowed.status, 0, allowed.output);
});

test('the layer lint keeps the hosts above core and src/protocol for the webview boundary', () => {
  const refused: Array<[string, string, RegExp]> = [
    [
      'src/core/agent/a.ts',
      "import { v } from '../../vscode/chatView';",
      /src\/core must not import the VS Code adapters/,
    ],
    ['src/core/memory/a.ts', "import { p } from '../../cli/printCommand';", /src\/core must not import src\/cli/],
    [
      'src/core/agent/a.ts',
      "import type { M } from '../../protocol/messages';",
      /only src\/core\/inspection and the layers above it may import src\/protocol/,
    ],
    ['src/cli/a.ts', "import * as vscode from 'vscode';", /src\/cli must not import 'vscode'/],
    ['src/cli/a.ts', "import { s } from '../vscode/statusBar';", /src\/cli must not import src\/vscode/],
    ['src/testServer/a.ts', "import { p } from '../cli/printCommand';", /src\/testServer must not import src\/cli/],
    [
      'packages/team-server/src/a.ts',
      "import { p } from '../../../src/cli/printCommand';",
      /packages\/team-server must not import src\/cli/,
    ],
    ['src/protocol/messages.ts', "import type { X } from '../core/ports';", /src\/protocol must stay dependency-free/],
  ];
  for (const [file, line, message] of refused) {
    const r = lint({ [file]: `${line}\n` });
    assert.equal(r.status, 1, `not caught: ${file}: ${line}`);
    assert.match(r.output, message);
  }
  const allowed = lint({
    'src/extension.ts': "import * as vscode from 'vscode';\nimport { c } from './vscode/chatView';\n",
    'src/vscode/chatView.ts':
      "import * as vscode from 'vscode';\nimport type { M } from '../protocol/messages';\nimport { a } from '../core/host/sessions';\nimport { s } from '../testServer/anthropicTestServer';\n",
    'src/cli/main.ts':
      "import { a } from '../core/host/sessions';\nimport { s } from '../testServer/anthropicTestServer';\n",
    'src/testServer/anthropicTestServer.ts': "import type { T } from '../core/conversation/types';\n",
    'packages/team-server/src/teamHttp.ts': "import { p } from '../../../src/core/memory/team/teamProtocol';\n",
    'src/core/inspection/view.ts': "import type { M } from '../../protocol/messages';\n",
    'src/protocol/messages.ts': 'export type M = { type: "m" };\n',
  });
  assert.equal(allowed.status, 0, allowed.output);
});

test('the layer lint lets the hosts reach core only through src/core/host, at most 10 modules each', () => {
  const refused: Array<[string, string]> = [
    ['src/vscode/a.ts', "import { a } from '../core/agent/agent';"],
    ['src/extension.ts', "import type { L } from './core/ports';"],
    ['src/cli/a.ts', "import { v } from '../core/version';"],
  ];
  for (const [file, line] of refused) {
    const r = lint({ [file]: `${line}\n` });
    assert.equal(r.status, 1, `not caught: ${file}: ${line}`);
    assert.match(r.output, /must reach the engine through the host API in src\/core\/host\//);
  }
  const doors = (n: number, from: string) =>
    Array.from({ length: n }, (_, i) => `import { x${i} } from '${from}core/host/door${i}';`).join('\n');
  assert.equal(lint({ 'src/cli/main.ts': `${doors(10, '../')}\n` }).status, 0);
  // The extension's two parts count as one host.
  const extension = lint({ 'src/vscode/a.ts': `${doors(6, '../')}\n`, 'src/extension.ts': `${doors(11, './')}\n` });
  assert.equal(extension.status, 1);
  assert.match(extension.output, /the extension \(src\/vscode, src\/extension\.ts\) imports 11 host API modules/);
  const cli = lint({ 'src/cli/main.ts': `${doors(11, '../')}\n` });
  assert.equal(cli.status, 1);
  assert.match(cli.output, /the CLI \(src\/cli\) imports 11 host API modules .*; at most 10/);
});

test('the layer lint finds import cycles, type-only ones included, and names one way round', () => {
  const two = lint({
    'src/core/tools/tool.ts': "import { readTool } from './readTool';\n",
    'src/core/tools/readTool.ts': "import type { Tool } from './tool';\n",
  });
  assert.equal(two.status, 1);
  assert.match(
    two.output,
    /import cycle: src\/core\/tools\/readTool\.ts -> src\/core\/tools\/tool\.ts -> src\/core\/tools\/readTool\.ts/,
  );

  const long = lint({
    'src/vscode/a.ts': "import { b } from './b';\n",
    'src/vscode/b.ts': "import { c } from './c.js';\n",
    'src/vscode/c.ts': "import { d } from './d';\nimport { a } from './a';\n",
    'src/vscode/d/index.ts': "import { a } from '../a';\n",
  });
  assert.equal(long.status, 1);
  assert.match(
    long.output,
    /import cycle: src\/vscode\/a\.ts -> src\/vscode\/b\.ts -> src\/vscode\/c\.ts -> src\/vscode\/a\.ts \(4 files in the circle in all\)/,
  );
  assert.equal(long.output.match(/import cycle/g)?.length, 1, 'one circle is reported once');

  const self = lint({ 'src/cli/a.ts': "export * from './a';\n" });
  assert.equal(self.status, 1);
  assert.match(self.output, /import cycle: src\/cli\/a\.ts -> src\/cli\/a\.ts/);

  const diamond = lint({
    'src/cli/main.ts': "import { b } from './b';\nimport { c } from './c';\n",
    'src/cli/b.ts': "import { d } from './d';\n",
    'src/cli/c.ts': "import { d } from './d';\n",
    'src/cli/d.ts': 'export const d = 1;\n',
  });
  assert.equal(diamond.status, 0, diamond.output);
});
