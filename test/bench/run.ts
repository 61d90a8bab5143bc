// `npm run bench`: runs every benchmark module, prints a table and writes bench-results.json at the
// repository root: {"metrics": {name: {value, unit, target}}, "machine": "..."} (DESIGN section 8).
// A module exports `run(): Promise<Metrics>`. Flags: --only=name,name (module names), --no-host (the parts
// that start the real VS Code host are skipped). A part that needs the test host sets it up through
// hostSetup.ts, or throws BenchSkipped: its metrics are written as {"skipped": "<reason>"} and the table
// says "skipped: <reason>" (not a pass, and not a failure: the exit code ignores it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BenchSkipped, type PlannedMetrics, requireTestHost } from './hostSetup';

export type Metrics = Record<string, { value: number; unit: string; target?: number; note?: string }>;

const root = path.resolve(__dirname, '../..');
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');

const modules: Array<[string, () => Promise<{ run(): Promise<Metrics> }>]> = [
  ['accounting', () => import('./accounting')],
  ['transcriptLoad', () => import('./transcriptLoad')],
  ['bigTranscript', () => import('./bigTranscript')],
  ['compaction', () => import('./compaction')],
  ['sessionCost', () => import('./sessionCost')],
  ['cacheGaps', () => import('./cacheGaps')],
  ['inspectorRender', () => import('./inspectorRender')],
  ['teamSync', () => import('./teamSync')],
  ['recall', () => import('./recall')],
  ['mcpRecall', () => import('./mcpRecall')],
  ['memoryHealth', () => import('./memoryHealth')],
  ['checkpoints', () => import('./checkpoints')],
  ['search', () => import('./search')],
];

/** Activation is measured in the real VS Code host: the integration test that activates Engram reports it. */
async function activation(): Promise<Metrics> {
  requireTestHost({ activation_ms: { unit: 'ms', target: 50 } }, { vscode: true });
  const out = path.join(root, 'test-artifacts', 'bench-activation.json');
  fs.rmSync(out, { force: true });
  const r = spawnSync(process.execPath, [path.join(root, 'test/host/runHost.mjs')], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ENGRAM_TEST_GREP: 'activates in the real host', ENGRAM_BENCH_OUT: out },
  });
  if (r.status !== 0 || !fs.existsSync(out)) throw new Error('the activation run in the VS Code host failed');
  const { activationMs } = JSON.parse(fs.readFileSync(out, 'utf8')) as { activationMs: number };
  return { activation_ms: { value: round(activationMs), unit: 'ms', target: 50 } };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

async function main(): Promise<void> {
  const metrics: Metrics = {};
  const failures: string[] = [];
  const skipped: Record<string, PlannedMetrics[string] & { skipped: string }> = {};
  const skippedParts: string[] = [];
  const runs: Array<[string, () => Promise<Metrics>]> = modules.map(([name, load]) => [
    name,
    async () => (await load()).run(),
  ]);
  runs.push(['activation', activation], ['chatResume', async () => (await import('./chatResume')).run()]);
  for (const [name, run] of runs) {
    if (only && !only.includes(name)) continue;
    process.stdout.write(`bench ${name} ... `);
    const started = Date.now();
    try {
      Object.assign(metrics, await run());
      console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (error) {
      if (error instanceof BenchSkipped) {
        for (const [metric, planned] of Object.entries(error.metrics))
          skipped[metric] = { ...planned, skipped: error.reason };
        skippedParts.push(`${name}: ${error.reason}`);
        console.log(`skipped: ${error.reason}`);
        continue;
      }
      failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      console.log('FAILED');
    }
  }
  const cpus = `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}`;
  const memory = `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`;
  const machine = `${cpus}, ${memory}, ${os.platform()} ${os.release()}, node ${process.version}`;
  const file = path.join(root, 'bench-results.json');
  const previous = fs.existsSync(file)
    ? ((JSON.parse(fs.readFileSync(file, 'utf8')) as { metrics?: Metrics }).metrics ?? {})
    : {};
  // Each target says which way it points: a hit rate must reach it, a cost must stay under it.
  const withGoal = Object.fromEntries(
    Object.entries({ ...metrics, ...skipped }).map(([name, m]) => [
      name,
      m.target === undefined ? m : { ...m, goal: isAtLeast(name) ? 'at least' : 'at most' },
    ]),
  );
  fs.writeFileSync(
    file,
    JSON.stringify(
      { metrics: { ...(only ? previous : {}), ...withGoal }, machine, at: new Date().toISOString() },
      null,
      2,
    ),
  );
  console.log('\n| metric | value | unit | target | ok |\n|---|---|---|---|---|');
  for (const [name, m] of Object.entries(metrics)) {
    const ok = m.target === undefined ? '' : isWithin(name, m.value, m.target) ? 'yes' : 'NO';
    console.log(`| ${name} | ${m.value} | ${m.unit} | ${m.target ?? ''} | ${ok} |`);
  }
  for (const [name, m] of Object.entries(skipped))
    console.log(`| ${name} | - | ${m.unit} | ${m.target ?? ''} | skipped: ${m.skipped} |`);
  console.log(`\nmachine: ${machine}\nwritten: ${file}`);
  for (const p of skippedParts) console.log(`bench skipped: ${p}`);
  for (const f of failures) console.error(`bench failed: ${f}`);
  if (failures.length) process.exit(1);
}

/** Rates (MB/s), shares that must be whole, counts of good outcomes and floors must reach their target; times and costs must stay under it. */
/** Figures where more is better: the target is a floor. */
function isAtLeast(name: string): boolean {
  return /_mb_s$|^resume_prefix_identical|_hit_rate$|_stale_precision$|_stale_recall$|_turns_ok|_edits_ok|_min_kept_tokens|_identical_share$/.test(
    name,
  );
}

function isWithin(name: string, value: number, target: number): boolean {
  return isAtLeast(name) ? value >= target : value <= target;
}

void main();
