import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const script = path.resolve(__dirname, '../../../scripts/lintCore.mjs');

function lint(files: Record<string, string>): { status: number | null; output: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-lint-'));
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
    'src/core/ok.ts': "// talks about 'vscode' only in a comment\nexport const hint = \"import from 'vscode' is banned\";\nimport fs from 'node:fs';\n",
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
