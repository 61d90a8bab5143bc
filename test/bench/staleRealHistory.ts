// Stale-detection precision and recall on this repository's own history: memories written against old
// commits (a tenth, a fifth, ... half of the way into the history, the same number from each, so that
// some name what has since moved however long the history grows), each naming a source file and an
// exported function or class of its commit, checked against the working tree as it is now. The truth is decided another
// way than the checker decides it: a path is gone when `git cat-file -e HEAD:<path>` fails, a symbol is
// gone when no `function|class|interface|type|const|let|enum NAME` definition is left in HEAD's TypeScript
// (the checker only asks whether the word appears in a source file). Needs the full history: a shallow
// clone is skipped.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { MemoryHealthIndex } from '../../src/core/memory/health/healthIndex';
import { seededRandom } from './pythonProject';

const MEMORIES = 60;

export interface RealHistoryScore {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  /** The commits the memories were written at. */
  commits: string[];
}

/** Where in the history the memories are written: fractions of the way from the first commit. */
const AT = [0.1, 0.2, 0.3, 0.4, 0.5];

function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

function gitOk(root: string, ...args: string[]): boolean {
  try {
    execFileSync('git', args, { cwd: root, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Scores the checker on memories drawn from old commits of the repository at `root`; undefined without history. */
export async function scoreRealHistory(root: string): Promise<RealHistoryScore | undefined> {
  const commits = git(root, 'rev-list', '--reverse', 'HEAD').trim().split('\n');
  if (commits.length < 30) return undefined;
  const olds = AT.map((f) => commits[Math.floor(commits.length * f)] as string);
  const rand = seededRandom(32);
  const memories: Drawn[] = [];
  const seen = new Set<string>();
  for (const [k, old] of olds.entries()) {
    const files = git(root, 'ls-tree', '-r', '--name-only', old, '--', 'src')
      .split('\n')
      .filter((f) => /\.ts$/.test(f));
    const upTo = Math.round((MEMORIES * (k + 1)) / olds.length);
    for (let tries = 0; memories.length < upTo && tries < 2000; tries++)
      drawOne(root, old, files, rand, seen, memories);
  }
  const index = await MemoryHealthIndex.open(root);
  await index.setMemories(memories);
  const score: RealHistoryScore = { tp: 0, fp: 0, fn: 0, tn: 0, commits: olds.map((c) => c.slice(0, 7)) };
  for (const m of memories) {
    const flagged = (index.result(m.file)?.stale.length ?? 0) > 0;
    if (flagged) score[m.stale ? 'tp' : 'fp']++;
    else score[m.stale ? 'fn' : 'tn']++;
  }
  return score;
}

interface Drawn {
  file: string;
  text: string;
  stale: boolean;
}

/** Draws one memory from `old`: a file not drawn yet and one of its exported functions or classes. */
function drawOne(
  root: string,
  old: string,
  files: string[],
  rand: () => number,
  seen: Set<string>,
  memories: Drawn[],
): void {
  const file = files[Math.floor(rand() * files.length)];
  if (seen.has(file)) return;
  const text = git(root, 'show', `${old}:${file}`);
  const names = [...text.matchAll(/export (?:async )?(?:function|class) ([A-Za-z_]\w+)/g)].map((m) => m[1]);
  const name = names[Math.floor(rand() * names.length)];
  if (!name || !/[A-Z_]/.test(name.slice(1))) return; // a name the extractor takes on its own
  seen.add(file);
  const pathGone = !gitOk(root, 'cat-file', '-e', `HEAD:${file}`);
  const symbolGone = !gitOk(
    root,
    'grep',
    '-q',
    '-E',
    `(function|class|interface|type|const|let|enum) ${name}\\b`,
    'HEAD',
    '--',
    '*.ts',
    '*.tsx',
    '*.mjs',
  );
  memories.push({
    file: `m${memories.length}.md`,
    text: `The code in ${file} is where \`${name}()\` lives; read it before changing ${path.basename(file)}.`,
    stale: pathGone || symbolGone,
  });
}
