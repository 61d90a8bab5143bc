// Search on a big tree (issue 35 item 4), on the 100,000-file, ~1 GB monorepo of searchTree.ts (made once,
// then reused). Every figure is the median of several runs on a warm page cache.
// rg_grep_100k_ms / rg_glob_100k_ms: ripgrep itself (the devDependency's binary), a word search printing
// the files with matches (`rg --files-with-matches WORD`) and a listing by glob (`rg --files --glob`),
// its output read to the end, as a baseline. grep_100k_ms / glob_100k_ms: the Grep and Glob tools' whole
// run through the ripgrep engine, the way the agent calls them (default output mode, newest first, the
// files left out named); *_vs_rg: their ratio to ripgrep's own time (target 1.5). *_fallback_ms: the
// same through the JavaScript engine (reported, no target).
// at_picker_index_ms: the chat's `@` completion listing the workspace (FileNameIndex, as the chat
// keeps it); at_picker_keystroke_ms: the p95 of its answers over typed sequences, one per keystroke.
// recall_index_build_ms: the workspace index recall's stale check opens before its first check
// (MemoryHealthIndex.open: the listing, .gitignore rules and manifests); recall_first_check_ms: that plus
// the first memory's check (a git grep for the symbols it names), reported.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryHealthIndex } from '../../src/core/memory/health/healthIndex';
import { staleCheckFor } from '../../src/core/memory/health/staleRecall';
import { ensureTree, SEARCH_GLOB, SEARCH_WORD, type TreeShape } from './searchTree';

type Metric = { value: number; unit: string; target?: number; note?: string };
type Metrics = Record<string, Metric>;

const repoRoot = path.resolve(__dirname, '../..');
/** Runs of each timed operation (the median is reported); the JavaScript engine's are slow, so fewer. */
const RUNS = 5;
const SLOW_RUNS = 3;

/** The ripgrep binary of the devDependency, for this platform. */
export function rgBinary(): string {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  return path.join(repoRoot, 'node_modules/@vscode/ripgrep-universal/bin', `${process.platform}-${process.arch}`, exe);
}

/** Runs ripgrep in `cwd` with its output read to the end; resolves with the time and the lines printed. */
function runRg(args: string[], cwd: string): Promise<{ ms: number; lines: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(rgBinary(), args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let lines = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      for (const b of chunk) if (b === 10) lines++;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 && code !== 1) reject(new Error(`rg ${args.join(' ')} exited with ${code}`));
      else resolve({ ms: performance.now() - started, lines });
    });
  });
}

/**
 * CPU time used so far by this process and the child processes it waited for (ripgrep, git), in ms: on a
 * loaded machine the wall time mostly measures the wait for a core, the CPU time what the work costs.
 * Linux only (/proc/self/stat's utime, stime, cutime, cstime, in clock ticks of 10 ms); elsewhere 0.
 */
function cpuMs(): number {
  try {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0) * 10;
  } catch {
    return 0;
  }
}

interface Timed<T> {
  /** Median wall time. */
  ms: number;
  /** Median CPU time (this process and its children). */
  cpu: number;
  last: T;
  all: number[];
}

/** Median time of `runs` runs of `fn` (each run awaited alone), with the last run's value. */
async function timed<T>(runs: number, fn: () => Promise<T>): Promise<Timed<T>> {
  const all: number[] = [];
  const cpu: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < runs; i++) {
    const [started, cpuStart] = [performance.now(), cpuMs()];
    last = await fn();
    all.push(performance.now() - started);
    cpu.push(cpuMs() - cpuStart);
  }
  return { ms: median(all), cpu: median(cpu), last: last as T, all };
}

/** The note's account of the runs: each wall time, and the median CPU time. */
function runsNote(t: Timed<unknown>): string {
  return `runs ${t.all.map(round).join(', ')} ms; CPU ${round(t.cpu)} ms`;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

const round = (n: number): number => Math.round(n * 10) / 10;

function shapeLine(t: TreeShape): string {
  const big = t.bigFiles.map((b) => `${b.path} ${(b.bytes / 2 ** 20).toFixed(0)} MB`).join(', ');
  return (
    `${t.files.toLocaleString('en-US')} files, ${(t.bytes / 2 ** 30).toFixed(2)} GiB; ` +
    `${t.ignoredFiles.toLocaleString('en-US')} ignored (node_modules, dist/, coverage/, build/), ` +
    `${t.hiddenFiles} hidden, ${t.binaryFiles} binary, ${t.plantedFiles} holding "${SEARCH_WORD}"; big: ${big}; ` +
    (t.reused ? 'reused from the cache' : `generated in ${t.generatedSeconds} s`)
  );
}

/** ripgrep's own times: the baseline the engine is held to. */
async function ripgrepItself(root: string): Promise<Metrics> {
  const grep = await timed(RUNS, () => runRg(['--files-with-matches', SEARCH_WORD], root));
  const glob = await timed(RUNS, () => runRg(['--files', '--glob', SEARCH_GLOB], root));
  return {
    rg_grep_100k_ms: {
      value: round(grep.ms),
      unit: 'ms',
      note: `rg --files-with-matches ${SEARCH_WORD}: ${grep.last.lines} files; ${runsNote(grep)}`,
    },
    rg_glob_100k_ms: {
      value: round(glob.ms),
      unit: 'ms',
      note: `rg --files --glob '${SEARCH_GLOB}': ${glob.last.lines} files; ${runsNote(glob)}`,
    },
  };
}

/** The workspace index recall's stale check builds, and its first check of a memory. */
async function recallIndex(root: string): Promise<Metrics> {
  const build = await timed(RUNS, () => MemoryHealthIndex.open(root));
  const memory =
    'Retries are bounded by `retryBudget` in packages/api/src/config.ts; see packages/web/README.md and run `npm test`.\n';
  const first = await timed(SLOW_RUNS, () => staleCheckFor(root)('project_retries.md', memory));
  return {
    recall_index_build_ms: {
      value: round(build.ms),
      unit: 'ms',
      target: 1000,
      note: `MemoryHealthIndex.open: ${build.last.workspace.files.size.toLocaleString('en-US')} files listed; ${runsNote(build)}`,
    },
    recall_first_check_ms: {
      value: round(first.ms),
      unit: 'ms',
      note: `staleCheckFor(root) and its first memory (a path, a symbol, a command); ${first.last.length} stale; ${runsNote(first)}`,
    },
  };
}

export async function run(): Promise<Metrics> {
  const tree = ensureTree((line) => process.stdout.write(`\n  ${line}\n  `));
  const load = os.loadavg().map((l) => l.toFixed(2));
  process.stdout.write(`\n  tree: ${shapeLine(tree)}\n  load average at the start: ${load.join(' ')}\n  `);
  const metrics: Metrics = { ...(await ripgrepItself(tree.root)), ...(await recallIndex(tree.root)) };
  process.stdout.write(
    `load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n  `,
  );
  return metrics;
}
