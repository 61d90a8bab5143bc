#!/usr/bin/env node
// `npm test`: type checks, the formatting check and the linter (Biome), the layer lint, the unused-code
// check (knip), the build, unit tests in plain Node, the packaged .vsix in a second VS Code server, then
// the integration tests in a real VS Code extension host. Ends with one line summing every suite:
// `N passed, N failed`.
// Flags: --no-integration (quick local loop). Exits non-zero when anything failed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const skipIntegration = process.argv.includes('--no-integration');
const results = [];

// Each run counts into its own folder, so two runs at once cannot mix their numbers.
const countsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-test-counts-'));

function stage(name, cmd, args, countsFile) {
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  if (countsFile) fs.rmSync(countsFile, { force: true });
  const env = {
    ...process.env,
    ENGRAM_UNIT_COUNTS: path.join(countsDir, 'unit.json'),
    ENGRAM_INTEGRATION_COUNTS: path.join(countsDir, 'integration.json'),
  };
  const r = spawnSync(cmd, args, { stdio: 'inherit', shell: false, env });
  const ok = r.status === 0;
  let passed = ok ? 1 : 0;
  let failed = ok ? 0 : 1;
  let failures = [];
  if (countsFile) {
    try {
      const counts = JSON.parse(fs.readFileSync(countsFile, 'utf8'));
      passed = counts.passed;
      // A suite that crashed before reporting still counts as a failure.
      failed = Math.max(counts.failed, ok ? 0 : 1);
      failures = counts.failures ?? [];
    } catch {
      passed = 0;
      failed = 1;
    }
  }
  results.push({ name, passed, failed, failures, seconds: (Date.now() - started) / 1000 });
  return ok;
}

const npx = (bin, ...args) => [process.execPath, [`node_modules/${bin}`, ...args]];
stage('type check (extension host, core, tests)', ...npx('typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit'));
stage('type check (webviews)', ...npx('typescript/bin/tsc', '-p', 'webview/tsconfig.json', '--noEmit'));
// Biome: the formatting check (120 columns) and the lint rules of biome.json, zero findings allowed.
stage('format and lint (Biome, biome.json)', ...npx('@biomejs/biome/bin/biome', 'ci', '--colors=off', '.'));
stage('lint: layers', process.execPath, ['scripts/lintCore.mjs']);
stage('lint: unused files, exports and dependencies (knip)', ...npx('knip/bin/knip.js', '--no-progress'));
const built = stage('build', process.execPath, ['esbuild.mjs']);
stage('unit tests (plain Node)', process.execPath, ['scripts/unitTests.mjs'], path.join(countsDir, 'unit.json'));
if (skipIntegration) {
  console.log('\n(integration tests skipped: --no-integration)');
} else if (built) {
  // The .vsix a user installs, in a second VS Code server with no development path: does it activate?
  stage('packaged .vsix installs and activates (test/host/vsixCheck.mjs)', process.execPath, [
    'test/host/vsixCheck.mjs',
  ]);
  stage(
    'integration tests (real VS Code host)',
    process.execPath,
    ['test/host/runHost.mjs'],
    path.join(countsDir, 'integration.json'),
  );
} else {
  results.push({ name: 'integration tests (not run: build failed)', passed: 0, failed: 1, seconds: 0 });
}

console.log('\n=== summary ===');
for (const r of results) {
  console.log(
    `${r.failed ? 'FAIL' : 'ok  '}  ${r.name}: ${r.passed} passed, ${r.failed} failed (${r.seconds.toFixed(1)} s)`,
  );
  // Named here as well as in the suite's own output, so the last lines of a CI log say what failed.
  for (const f of (r.failures ?? []).slice(0, 10)) console.log(`        ✗ ${f}`);
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
fs.rmSync(countsDir, { recursive: true, force: true });
process.exit(failed > 0 ? 1 : 0);
