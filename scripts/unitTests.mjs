#!/usr/bin/env node
// Runs the unit tests of src/core (and the CLI and servers) in plain Node with node:test, TypeScript via tsx.
// Usage: node scripts/unitTests.mjs [filter]   Writes the counts to $ENGRAM_UNIT_COUNTS
// (default test-artifacts/unit-counts.json).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const filter = process.argv[2];
function findTests(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return findTests(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}
const files = findTests('test/unit')
  .filter((f) => !filter || f.includes(filter))
  .sort();
fs.mkdirSync('test-artifacts', { recursive: true });
const countsFile = process.env.ENGRAM_UNIT_COUNTS || path.join('test-artifacts', 'unit-counts.json');
fs.rmSync(countsFile, { force: true });
if (files.length === 0) {
  console.error('no unit test files found');
  process.exit(1);
}
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/countReporter.mjs',
    `--test-reporter-destination=${countsFile}`,
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, ENGRAM_TEST: '1' } },
);
process.exit(r.status ?? 1);
