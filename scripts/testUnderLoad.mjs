#!/usr/bin/env node
// `npm run test:under-load`: the integration suite in the real VS Code host, several times in a row, with
// a CPU hog on every core beside it (busy Node processes), as when a build or a second test run shares the
// machine. A host test that waits on a fixed delay, or reads a view before the product says it changed,
// fails here first. Flags: --runs=N (default 3), --hogs=N (default: one per core).
// Exits non-zero when any run failed; prints one line per run and a total.
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';

const flag = (name, fallback) => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = arg ? Number(arg.slice(name.length + 3)) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number`);
  return value;
};
const runs = flag('runs', 3);
const hogCount = flag('hogs', os.availableParallelism?.() ?? os.cpus().length);

const hogs = Array.from({ length: hogCount }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopHogs = () => {
  for (const hog of hogs) hog.kill('SIGKILL');
};
process.on('exit', stopHogs);
process.on('SIGINT', () => process.exit(130));

console.log(`${hogCount} CPU hog(s) running; the integration suite ${runs} time(s)`);
const results = [];
for (let i = 1; i <= runs; i++) {
  const started = Date.now();
  console.log(`\n=== run ${i} of ${runs} ===`);
  const r = spawnSync(process.execPath, ['test/host/runHost.mjs'], { stdio: 'inherit' });
  results.push({ run: i, ok: r.status === 0, seconds: Math.round((Date.now() - started) / 1000) });
}
stopHogs();

console.log('\n=== under load ===');
for (const r of results) console.log(`run ${r.run}: ${r.ok ? 'passed' : 'FAILED'} (${r.seconds} s)`);
const failed = results.filter((r) => !r.ok).length;
console.log(`${runs - failed} of ${runs} runs passed with ${hogCount} CPU hog(s)`);
process.exit(failed === 0 ? 0 : 1);
