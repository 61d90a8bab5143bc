// Memory health (issue 32): how fast stale references are found and how well.
// memory_check_cold_ms: `memoryHealth` (what `engram memory check` runs) on a 200-entry memory folder
// against a generated 10,000-file git repository (source-like TypeScript files), from nothing: list the
// repository, read the memories, one search of every source file for all symbols, check; median of 5 runs.
// memory_check_changed_file_ms: then one file event at a time on that index (a file changed so a named
// function disappears, a file deleted, a file created), re-checking the memories it touches; the median
// of 60 events. memory_stale_precision / memory_stale_recall: per memory, flagged stale against the labels
// of test/bench/staleHistory.ts (a 6-commit history of renames, deletes, removed functions, a renamed
// script and make target, with 16 memories written at its first commit, 8 truly stale, checked at the last);
// memory_repo_stale_*: the same on this repository's own history (staleRealHistory.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryHealthIndex } from '../../src/core/memory/health/healthIndex';
import { memoryHealth } from '../../src/core/memory/health/memoryHealth';
import { buildStaleHistory } from './staleHistory';
import { scoreRealHistory } from './staleRealHistory';

type Metrics = Record<string, { value: number; unit: string; target?: number; note?: string }>;

const FILES = 10_000;
const MEMORIES = 200;

function fnName(i: number): string {
  return `compute${(i * 7919).toString(36)}Value`;
}

function fileOf(i: number): string {
  return `packages/pkg${i % 20}/src/mod${Math.floor(i / 20) % 25}/file${i}.ts`;
}

function source(i: number, drop = false): string {
  const lines = [`import { ${fnName(i + 1)} } from './dep';`, `export class Widget${i}Store {`, '  open() {}', '}'];
  if (!drop) lines.push(`export function ${fnName(i)}(x: number): number {`, '  return x * 2;', '}');
  for (let k = 0; k < 20; k++) lines.push(`// filler line ${k} for file ${i}: the quick brown fox jumps over the dog`);
  return `${lines.join('\n')}\n`;
}

function buildRepo(root: string): void {
  for (let i = 0; i < FILES; i++) {
    const file = path.join(root, fileOf(i));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, source(i));
  }
  const scripts = { build: 'tsc', test: 'node --test', lint: 'biome lint' };
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'big', scripts }));
  fs.writeFileSync(path.join(root, 'Makefile'), 'build:\n\techo build\n');
  const git = (...args: string[]): void => {
    execFileSync('git', ['-c', 'user.name=B', '-c', 'user.email=b@example.com', ...args], {
      cwd: root,
      stdio: 'ignore',
    });
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'generated');
}

function buildMemory(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const index: string[] = [];
  for (let m = 0; m < MEMORIES; m++) {
    const i = (m * 37) % FILES;
    const gone = m % 5 === 0;
    const body = [
      `The ${fnName(i)}() helper in ${fileOf(i)} doubles its input; \`${fnName(i)}()\` is the one to call.`,
      `Stores: \`Widget${i}Store.open\`, and \`${gone ? 'removedHelper' : fnName(i + 1)}\`.`,
      `Run \`npm run ${gone ? 'old-script' : 'build'}\` then \`make build\`; see ${gone ? 'src/gone.ts' : fileOf(i + 1)}.`,
    ].join('\n');
    const file = `project_${m}.md`;
    fs.writeFileSync(
      path.join(dir, file),
      `---\nname: memory ${m}\ndescription: about file ${i}\ntype: project\n---\n\n${body}\n`,
    );
    index.push(`- [Memory ${m}](${file}) — about file ${i}`);
  }
  fs.writeFileSync(path.join(dir, 'MEMORY.md'), `${index.join('\n')}\n`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)] * 100) / 100;
}

export async function run(): Promise<Metrics> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-health-'));
  try {
    const root = path.join(base, 'repo');
    const memoryDir = path.join(base, 'memory');
    fs.mkdirSync(root);
    buildRepo(root);
    buildMemory(memoryDir);
    const cold: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t = performance.now();
      const health = await memoryHealth({ memoryDir, team: false }, root);
      cold.push(performance.now() - t);
      if (health.length !== MEMORIES) throw new Error(`checked ${health.length} memories, not ${MEMORIES}`);
    }
    const index = await MemoryHealthIndex.open(root);
    await memoryHealth({ memoryDir, team: false }, index);
    const changed: number[] = [];
    for (let e = 0; e < 60; e++) {
      const i = ((e * 37) % FILES) + (e % 3 === 0 ? 0 : 1);
      const rel = fileOf(i);
      const abs = path.join(root, rel);
      const kind = e % 3 === 2 ? 'delete' : 'change';
      if (kind === 'delete') fs.rmSync(abs);
      else fs.writeFileSync(abs, source(i, true));
      const t = performance.now();
      await index.onFileEvents([{ kind, path: rel }]);
      changed.push(performance.now() - t);
      fs.writeFileSync(abs, source(i));
      await index.onFileEvents([{ kind: kind === 'delete' ? 'create' : 'change', path: rel }]);
    }
    return {
      memory_check_cold_ms: {
        value: median(cold),
        unit: 'ms',
        target: 2000,
        note: `${MEMORIES} memories, ${FILES}-file git repository; median of 5`,
      },
      memory_check_changed_file_ms: {
        value: median(changed),
        unit: 'ms',
        target: 50,
        note: 'one file event (change that drops a function, or delete) on a warm index; median of 60',
      },
      ...(await staleQuality(base)),
      ...(await repoQuality()),
    };
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

async function staleQuality(base: string): Promise<Metrics> {
  const root = path.join(base, 'history');
  fs.mkdirSync(root);
  const labelled = buildStaleHistory(root);
  const index = await MemoryHealthIndex.open(root);
  await index.setMemories(labelled);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const m of labelled) {
    const flagged = (index.result(m.file)?.stale.length ?? 0) > 0;
    if (flagged && m.stale) tp++;
    else if (flagged) fp++;
    else if (m.stale) fn++;
  }
  const note = `staleHistory.ts: ${labelled.length} memories, ${tp + fn} truly stale; flagged ${tp} of them and ${fp} valid`;
  return {
    memory_stale_precision: { value: tp / Math.max(1, tp + fp), unit: 'share', target: 0.8, note },
    memory_stale_recall: { value: tp / Math.max(1, tp + fn), unit: 'share', target: 0.8, note },
  };
}

/** The same on this repository's own history (staleRealHistory.ts); left out of a shallow clone. */
async function repoQuality(): Promise<Metrics> {
  const score = await scoreRealHistory(path.resolve(__dirname, '../..'));
  if (!score) return {};
  const { tp, fp, fn, tn, commits } = score;
  const note =
    `${tp + fp + fn + tn} memories written at ${commits.join(', ')} (a file and an exported function each), checked now: ` +
    `${tp + fn} truly stale, flagged ${tp} of them and ${fp} of the ${fp + tn} valid`;
  return {
    memory_repo_stale_precision: { value: tp / Math.max(1, tp + fp), unit: 'share', target: 0.8, note },
    memory_repo_stale_recall: { value: tp / Math.max(1, tp + fn), unit: 'share', target: 0.8, note },
  };
}
