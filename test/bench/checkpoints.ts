// Checkpoints (issue 33): what a checkpoint costs per turn and on disk, on the shape: a 10,000-file
// git workspace of source-like files (1–20 KB of varied text each), a .gitignore, a node_modules folder,
// a 12 MB generated file (over the 10 MB limit) and an ignored 4 MB bundle; 20 turns that each change 30
// files by plain fs calls, as Bash would (24 edits, 3 new files, 3 deletions), between beforeChange and
// endTurn. The first turn starts right as the store opens, so it waits for the baseline snapshot.
// checkpoint_turn_ms: beforeChange + endTurn per turn, the p95 over the 20 turns (nearest rank; the median
// and the max are in the note; turn 1 without its wait for the baseline, reported as
// checkpoint_baseline_wait_ms). checkpoint_disk_mb: the shadow repository's real disk use (st_blocks * 512)
// after the 20 turns, once packing settled (the store packs in a quiet gap between turns; these turns come
// back to back, so it packs as the store is disposed, which waits for it).
// checkpoint_baseline_ms: the first full snapshot. rewind_20_turns_ms: plan + apply of a rewind of all 20
// turns (back to before turn 1) by a store opened afresh; the workspace must then match the first commit.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CheckpointStore, openCheckpoints } from '../../src/core/checkpoints/checkpointStore';
import { silentLogger } from '../../src/core/ports';
import { seededRandom } from './pythonProject';

type Metrics = Record<string, { value: number; unit: string; target?: number; note?: string }>;

const FILES = 10_000;
const TURNS = 20;
const PER_TURN = 30;

const random = seededRandom(33);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
const WORDS =
  'value count item list map node user order price total index state event token range buffer file path name key entry cache query result error config option handle parse render update create remove fetch load store check build'.split(
    ' ',
  );
const KEYWORDS = ['const', 'let', 'return', 'if', 'for', 'await', 'export function', 'import', 'throw new Error', '//'];

function ident(): string {
  const n = 1 + Math.floor(random() * 3);
  const parts = Array.from({ length: n }, () => pick(WORDS));
  return (
    parts.map((w, i) => (i ? w[0]?.toUpperCase() + w.slice(1) : w)).join('') +
    (random() < 0.3 ? String(Math.floor(random() * 100)) : '')
  );
}

/** Source-like text of about `bytes` bytes: varied identifiers, numbers, strings, indentation. */
function sourceText(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const indent = '  '.repeat(Math.floor(random() * 4));
    const kind = random();
    const line =
      kind < 0.15
        ? `${indent}// ${Array.from({ length: 4 + Math.floor(random() * 8) }, () => pick(WORDS)).join(' ')}`
        : kind < 0.3
          ? `${indent}export function ${ident()}(${ident()}: number, ${ident()}: string): ${pick(['void', 'number', 'string'])} {`
          : kind < 0.4
            ? `${indent}}`
            : `${indent}${pick(KEYWORDS)} ${ident()} = ${ident()}(${Math.floor(random() * 10000)}, '${ident()}') + ${ident()}.${ident()};`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** 1–20 KB, most files small (log-uniform). */
const fileSize = (): number => Math.round(1024 * 20 ** random());
const fileOf = (i: number): string => `packages/pkg${i % 25}/src/area${Math.floor(i / 25) % 20}/module${i}.ts`;

function buildWorkspace(root: string): void {
  for (let i = 0; i < FILES; i++) {
    const file = path.join(root, fileOf(i));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, sourceText(fileSize()));
  }
  fs.writeFileSync(path.join(root, '.gitignore'), 'dist/\n*.log\n');
  for (let i = 0; i < 300; i++) {
    const file = path.join(root, 'node_modules', `dep${i % 30}`, `lib${i}.js`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, sourceText(fileSize()));
  }
  fs.mkdirSync(path.join(root, 'generated'), { recursive: true });
  fs.writeFileSync(path.join(root, 'generated', 'schema.json'), sourceText(12 * 1024 * 1024));
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
  fs.writeFileSync(path.join(root, 'dist', 'bundle.js'), sourceText(4 * 1024 * 1024));
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

/** One turn's changes, as a Bash command would make them: edits, new files, deletions. */
function changeFiles(root: string, turn: number): void {
  for (let k = 0; k < PER_TURN; k++) {
    if (k < 24) {
      const file = path.join(root, fileOf(Math.floor(random() * FILES)));
      if (!fs.existsSync(file)) continue;
      const text = fs.readFileSync(file, 'utf8');
      const at = Math.floor(random() * text.length);
      fs.writeFileSync(file, `${text.slice(0, at)}\n${sourceText(200)}${text.slice(at)}`);
    } else if (k < 27) {
      const file = path.join(root, 'packages', 'new', `turn${turn}`, `file${k}.ts`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, sourceText(fileSize()));
    } else fs.rmSync(path.join(root, fileOf(Math.floor(random() * FILES))), { force: true });
  }
}

function diskBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += diskBytes(p);
    else total += fs.lstatSync(p).blocks * 512;
  }
  return total + fs.lstatSync(dir).blocks * 512;
}

async function openStore(dataDir: string, workspace: string): Promise<CheckpointStore> {
  const store = await openCheckpoints({
    dataDir,
    workspace,
    sessionId: 'bench',
    maxFileBytes: 10 * 1024 * 1024,
    logger: silentLogger,
  });
  if (!(store instanceof CheckpointStore)) throw new Error(`checkpoints are unavailable: ${store.reason}`);
  return store;
}

const round = (n: number): number => Math.round(n * 10) / 10;

export async function run(): Promise<Metrics> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-checkpoints-'));
  const workspace = path.join(root, 'ws');
  const dataDir = path.join(root, 'data');
  fs.mkdirSync(workspace);
  try {
    buildWorkspace(workspace);
    const store = await openStore(dataDir, workspace);
    const turnMs: number[] = [];
    for (let t = 1; t <= TURNS; t++) {
      store.beginTurn(t, `prompt-${t}`);
      let started = performance.now();
      await store.beforeChange();
      let ms = performance.now() - started - (t === 1 ? (store.baseline.waitedMs ?? 0) : 0);
      changeFiles(workspace, t);
      started = performance.now();
      const line = await store.endTurn();
      ms += performance.now() - started;
      if (!line?.files.length) throw new Error(`turn ${t} recorded no change`);
      turnMs.push(ms);
    }
    const { tookMs = 0, waitedMs = 0 } = store.baseline;
    await store.dispose(); // waits for the background repack
    const repo = path.join(
      dataDir,
      'checkpoints',
      fs.readdirSync(path.join(dataDir, 'checkpoints')).find((n) => n.startsWith('-')) as string,
    );
    const diskMb = diskBytes(repo) / 2 ** 20;

    const again = await openStore(dataDir, workspace);
    const started = performance.now();
    const plan = await again.planCodeRewind(0);
    const planned = performance.now() - started;
    const result = await again.applyCodeRewind(plan);
    const rewindMs = performance.now() - started;
    await again.dispose();
    const status = execFileSync('git', ['status', '--porcelain'], { cwd: workspace }).toString();
    if (status.trim() || result.conflicts.length || result.failed.length)
      throw new Error(`the rewind did not bring the workspace back: ${status.slice(0, 300)}`);
    const sorted = [...turnMs].sort((a, b) => a - b);
    const rank = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
    return {
      checkpoint_turn_ms: {
        value: round(rank(0.95)),
        unit: 'ms',
        target: 300,
        note:
          `p95 (nearest rank) of beforeChange+endTurn over ${TURNS} turns of ${PER_TURN} files, ${FILES}-file ` +
          `workspace; median ${round(rank(0.5))} ms, max ${round(sorted[sorted.length - 1] ?? 0)} ms`,
      },
      checkpoint_disk_mb: {
        value: round(diskMb),
        unit: 'MB',
        target: 50,
        note: `shadow repository on disk (st_blocks) after ${TURNS} turns and the background repack`,
      },
      checkpoint_baseline_ms: { value: round(tookMs), unit: 'ms', note: 'first full snapshot, in the background' },
      checkpoint_baseline_wait_ms: {
        value: round(waitedMs),
        unit: 'ms',
        note: 'how long turn 1 waited for the baseline',
      },
      rewind_20_turns_ms: {
        value: round(rewindMs),
        unit: 'ms',
        note: `plan ${round(planned)} ms + apply, ${result.written.length} written, ${result.deleted.length} deleted`,
      },
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
