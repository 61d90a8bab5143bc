// `engram gauge` and `engram compact` on a 200 MB transcript (DESIGN 8, issue #13 class 8): the built CLI
// (dist/cli.js, as people run it) in a child process, timed, with its peak RSS read in the child at exit
// (process.resourceUsage().maxRSS; /usr/bin/time is not everywhere). The transcript is transcriptLoad's
// generated session (Claude Code's line format, a compaction every ~1 MB), written to a temp dir and
// deleted after. Targets: <= 20 s and <= 300 MB each. The same size with no compaction in it (every line
// reachable, so held) is reported as *_uncompacted, with targets of <= 20 s and <= 400 MB (issue 31).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Metrics } from './run';
import { generate } from './transcriptLoad';

const MB = 1024 * 1024;
const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'dist', 'cli.js');

/** Runs the CLI with `args` under a wrapper that reports peak RSS (KB) on stderr at exit. */
const WRAPPER = `const cli = process.argv[2];
process.argv = [process.argv[0], cli, ...process.argv.slice(3)];
process.on('exit', () => { require('fs').writeSync(2, '\\nENGRAM_BENCH_MAXRSS_KB ' + process.resourceUsage().maxRSS + '\\n'); });
require(cli);
`;

export async function run(): Promise<Metrics> {
  if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run node esbuild.mjs first');
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'engram-bench-big-'));
  try {
    const file = path.join(dir, 'session.jsonl');
    const wrapper = path.join(dir, 'wrapper.cjs');
    await fs.promises.writeFile(wrapper, WRAPPER);
    const bytes = await generate(file, 200 * MB);
    const gauge = await runCli(wrapper, ['gauge', file, '--json'], dir);
    const compact = await runCli(wrapper, ['compact', file, '--json'], dir);
    const out = JSON.parse(compact.stdout) as { tokensAfter?: number; error?: string };
    if (out.error === undefined && !(Number(out.tokensAfter) > 0))
      throw new Error(`compact reported tokensAfter ${String(out.tokensAfter)}`);
    // The worst case, reported: a session never compacted, so every line stays reachable and is held.
    const flat = path.join(dir, 'flat.jsonl');
    await fs.promises.rm(file);
    await generate(flat, 200 * MB, Number.POSITIVE_INFINITY);
    const flatGauge = await runCli(wrapper, ['gauge', flat, '--json'], dir);
    const flatCompact = await runCli(wrapper, ['compact', flat, '--json', '--stage', 'micro'], dir);
    return {
      gauge_ms_200mb_uncompacted: { value: Math.round(flatGauge.ms), unit: 'ms', target: 20_000 },
      gauge_rss_mb_200mb_uncompacted: { value: Math.round(flatGauge.rssMb), unit: 'MB', target: 400 },
      compact_ms_200mb_uncompacted: { value: Math.round(flatCompact.ms), unit: 'ms', target: 20_000 },
      compact_rss_mb_200mb_uncompacted: { value: Math.round(flatCompact.rssMb), unit: 'MB', target: 400 },
      gauge_ms_200mb: { value: Math.round(gauge.ms), unit: 'ms', target: 20_000 },
      gauge_rss_mb_200mb: { value: Math.round(gauge.rssMb), unit: 'MB', target: 300 },
      compact_ms_200mb: { value: Math.round(compact.ms), unit: 'ms', target: 20_000 },
      compact_rss_mb_200mb: { value: Math.round(compact.rssMb), unit: 'MB', target: 300 },
      big_transcript_file_mb: { value: Math.round(bytes / MB), unit: 'MB' },
    };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

function runCli(wrapper: string, args: string[], home: string): Promise<{ ms: number; rssMb: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // No API key: an automatic compaction must not call a model in the bench.
    const child = spawn(process.execPath, [wrapper, cli, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: home, TMPDIR: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => stdout.push(d));
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      const kb = /ENGRAM_BENCH_MAXRSS_KB (\d+)/.exec(stderr)?.[1];
      if (!kb)
        return reject(
          new Error(`engram ${args[0]} exited ${String(code)} without reporting its memory: ${stderr.slice(0, 500)}`),
        );
      // 3 is "the stage could not run" (e.g. nothing to compact): still a measured run.
      if (code !== 0 && code !== 3)
        return reject(new Error(`engram ${args[0]} exited ${String(code)}: ${stderr.slice(0, 500)}`));
      resolve({ ms, rssMb: Number(kb) / 1024, stdout: Buffer.concat(stdout).toString() });
    });
  });
}
