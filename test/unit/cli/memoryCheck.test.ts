// `engram memory check` as a user runs it (a real process): on a repository with history and a memory
// folder written at its first commit (private and team, with use counts), the JSON has the documented
// shape, stale references carry their reason, the text lists them, a Claude Code folder given as
// `--data-dir ~/.claude` is read and left unchanged, and the exit code is 0 with or without problems.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { buildStaleHistory } from '../../bench/staleHistory';
import { runEngram } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs('all');

function memoryDirOf(dataDir: string, root: string): string {
  return path.join(dataDir, 'projects', root.replace(/[^a-zA-Z0-9]/g, '-'), 'memory');
}

describe('engram memory check', () => {
  let home: string;
  let root: string;
  let dataDir: string;
  before(() => {
    home = tempDir('engram-memcheck-');
    root = path.join(home, 'repo');
    fs.mkdirSync(root);
    const memories = buildStaleHistory(root);
    dataDir = path.join(home, '.claude');
    const dir = memoryDirOf(dataDir, root);
    fs.mkdirSync(path.join(dir, 'team'), { recursive: true });
    for (const m of memories.slice(0, 4)) fs.writeFileSync(path.join(dir, m.file), m.text);
    fs.writeFileSync(path.join(dir, 'team', 'project_deploy.md'), memories[4].text);
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '- [Session](project_session.md) — where sessions live\n');
    const usage = {
      version: 1,
      entries: {
        'project_session.md': { recalls: 3, reads: 1, lastUsed: '2026-01-02T03:04:05.000Z', notRelevant: [['auth']] },
      },
    };
    fs.writeFileSync(path.join(dir, '.usage.json'), JSON.stringify(usage));
  });

  it('prints the documented JSON, stale references with reasons, counts; exit 0', async () => {
    const before = fs.readFileSync(path.join(memoryDirOf(dataDir, root), '.usage.json'), 'utf8');
    const run = await runEngram(['memory', 'check', '--cwd', root, '--data-dir', dataDir, '--json'], { home });
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { memories: Array<Record<string, unknown>> };
    const byFile = new Map(out.memories.map((m) => [m.file as string, m]));
    assert.deepEqual([...byFile.keys()].sort(), [
      'feedback_dates.md',
      'feedback_lint.md',
      'project_session.md',
      'project_tokens.md',
      'team/project_deploy.md',
    ]);
    const session = byFile.get('project_session.md');
    assert.deepEqual(session?.stale, [
      { ref: 'src/auth/session.ts', kind: 'path', reason: 'no file or folder src/auth/session.ts in the workspace' },
    ]);
    for (const key of ['duplicates', 'contradicts']) assert.deepEqual(session?.[key], []);
    assert.equal(session?.recalled, 3);
    assert.equal(session?.notRelevant, 1);
    assert.equal(session?.used, 0);
    assert.equal(session?.corrected, 0);
    assert.deepEqual(byFile.get('team/project_deploy.md')?.stale, [
      { ref: 'make deploy', kind: 'command', reason: 'no target "deploy" in the Makefile' },
    ]);
    // Read only: the use counts are as they were.
    assert.equal(fs.readFileSync(path.join(memoryDirOf(dataDir, root), '.usage.json'), 'utf8'), before);
  });

  it('prints each stale reference as text, and reads ~/.claude when asked so', async () => {
    const run = await runEngram(['memory', 'check', '--cwd', root, '--data-dir', '~/.claude'], { home });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /5 memories: 5 stale/);
    assert.match(run.stdout, /stale command npm run lint: no script "lint" in package\.json/);
    assert.match(run.stdout, /project_session\.md {2}\(recalled 3, used 0, not relevant 1, corrected 0\)/);
  });

  const dist = path.resolve('dist/cli.js');
  it('runs from the built dist/cli.js', {
    skip: fs.existsSync(dist) ? false : 'dist/cli.js is not built (node esbuild.mjs)',
  }, async () => {
    const run = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        [dist, 'memory', 'check', '--cwd', root, '--data-dir', dataDir, '--json'],
        { env: { PATH: process.env.PATH ?? '', HOME: home } },
        (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
      );
    });
    assert.equal(run.code, 0);
    const out = JSON.parse(run.stdout) as { memories: Array<{ file: string; stale: unknown[] }> };
    assert.equal(out.memories.length, 5);
    assert.ok(out.memories.every((m) => m.stale.length > 0));
  });

  it('exits 0 with no memories, and 2 on a bad --cwd', async () => {
    const empty = await runEngram(['memory', 'check', '--cwd', root, '--data-dir', path.join(home, 'none')], { home });
    assert.equal(empty.code, 0);
    assert.match(empty.stdout, /No memories to check/);
    const bad = await runEngram(['memory', 'check', '--cwd', path.join(home, 'missing')], { home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /is not a folder/);
  });
});
