// Entry point of the integration tests, loaded by VS Code's extension host (extensionTestsPath).
// Runs mocha 11 (12 is ESM-only and cannot load here) over every *.test.js beside this file and writes
// the counts for the runner, which sums them with the other suites.
import fs from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'tdd', color: false, timeout: 60_000, reporter: 'spec',
    grep: process.env.ENGRAM_TEST_GREP, invert: process.env.ENGRAM_TEST_GREP_INVERT === '1',
  });
  const files = fs.readdirSync(__dirname).filter((f) => f.endsWith('.test.js')).sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] as string[] };
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const out = process.env.ENGRAM_TEST_RESULTS;
      if (out) fs.writeFileSync(out, JSON.stringify(counts));
      if (failures > 0) reject(new Error(`${failures} integration tests failed`));
      else resolve();
    });
    runner.on('pass', () => { counts.passed++; });
    runner.on('fail', (t) => { counts.failed++; counts.failures.push(t.fullTitle()); });
    runner.on('pending', () => { counts.skipped++; });
  });
}
