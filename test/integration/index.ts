// Entry point of the integration tests, loaded by VS Code's extension host (extensionTestsPath).
// Runs mocha 11 (12 is ESM-only and cannot load here) over every *.test.js beside this file and writes
// the counts for the runner, which sums them with the other suites.
import fs from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';

/**
 * Phases of the runner other than "main": a test tagged [after-reload], [zh-cn] or [untrusted] runs only in
 * its own.
 */
const TAGGED_PHASES = ['after-reload', 'zh-cn', 'untrusted'];

/**
 * Which tests run: the phase ([after-reload] after the runner reloads the window, [zh-cn] in Chinese,
 * [untrusted] in a folder opened in Restricted Mode), plus filters.
 */
function testFilter(phase: string): RegExp {
  const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const parts = TAGGED_PHASES.includes(phase) ? [`(?=.*\\[${phase}\\])`] : TAGGED_PHASES.map((p) => `(?!.*\\[${p}\\])`);
  if (process.env.ENGRAM_TEST_GREP) parts.push(`(?=.*${escapeRegExp(process.env.ENGRAM_TEST_GREP)})`);
  if (process.env.ENGRAM_TEST_EXCLUDE) parts.push(`(?!.*${escapeRegExp(process.env.ENGRAM_TEST_EXCLUDE)})`);
  return new RegExp(`^${parts.join('')}`);
}

function readPhase(): { phase: string; results?: string } {
  const file = process.env.ENGRAM_TEST_PHASE_FILE;
  if (!file || !fs.existsSync(file)) return { phase: 'main' };
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { phase: string; results: string };
}

export function run(): Promise<void> {
  const { phase, results } = readPhase();
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 60_000, reporter: 'spec', grep: testFilter(phase) });
  const files = fs
    .readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] as string[] };
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      if (results) fs.writeFileSync(results, JSON.stringify(counts));
      if (failures > 0) reject(new Error(`${failures} integration tests failed`));
      else resolve();
    });
    runner.on('pass', () => {
      counts.passed++;
    });
    runner.on('fail', (t, err: Error) => {
      counts.failed++;
      // The title and the error's first line, so the closing summary of `npm test` names what failed.
      counts.failures.push(
        `[${phase}] ${t.fullTitle()}: ${String(err?.message ?? err)
          .split('\n')[0]
          .slice(0, 300)}`,
      );
    });
    runner.on('pending', () => {
      counts.skipped++;
    });
  });
}
