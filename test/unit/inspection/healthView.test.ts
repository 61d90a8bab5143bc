// The Health view's engine side (issue 32): a real git workspace whose memories name a file that was
// deleted and a script package.json no longer has; the view lists them first with the reference, its
// kind, the reason and the line Update opens at, titles from MEMORY.md, and the summary counts; a file
// event (the file comes back) clears its memory after an incremental re-check.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { buildHealthView, WorkspaceHealth } from '../../../src/core/inspection/healthView';
import { buildMemoryView } from '../../../src/core/inspection/memoryView';
import type { MemoryView } from '../../../src/protocol/messages';
import { autoMemoryDir } from '../../../src/core/memory/autoMemory/memoryPaths';
import { topicText, writeFile } from './inspectorFixtures';

const EMPTY_MEMORY: MemoryView = {
  exists: true,
  instructions: [],
  entries: [],
  unindexed: [],
  loadedLines: 0,
  totalLines: 0,
  maxLines: 200,
  warnings: [],
  trash: [],
};

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

async function fixture(): Promise<{ repo: string; data: string; memoryDir: string }> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-health-view-'));
  const repo = path.join(base, 'repo');
  const data = path.join(base, 'data');
  writeFile(path.join(repo, 'package.json'), JSON.stringify({ scripts: { test: 'node t.js' } }));
  writeFile(path.join(repo, 'src', 'auth', 'login.ts'), 'export function signIn() {}\n');
  git(repo, 'init', '-q');
  git(repo, 'add', '.');
  git(repo, '-c', 'user.email=t@e.st', '-c', 'user.name=t', 'commit', '-qm', 'first');
  const memoryDir = await autoMemoryDir(data, repo);
  const body = (name: string, text: string) => `${topicText(name, 'project').split('\n\n')[0]}\n\n${text}\n`;
  writeFile(path.join(memoryDir, 'project_session.md'), body('Session', 'Sessions live in `src/auth/session.ts`.'));
  writeFile(path.join(memoryDir, 'project_lint.md'), body('Lint', 'Before a commit, run `npm run lint:strict`.'));
  writeFile(path.join(memoryDir, 'project_login.md'), body('Login', 'Sign-in is in `src/auth/login.ts`.'));
  writeFile(
    path.join(memoryDir, 'MEMORY.md'),
    '- [Where sessions live](project_session.md) — session\n' +
      '- [Lint before commit](project_lint.md) — lint\n' +
      '- [Where sign-in lives](project_login.md) — login\n',
  );
  return { repo, data, memoryDir };
}

test('the Health view lists stale memories first with the reference, its kind, why and its line', async () => {
  const { repo, data, memoryDir } = await fixture();
  const health = await WorkspaceHealth.open(data, repo, false);
  const result = await health.check();
  const memory = await buildMemoryView({ dir: memoryDir });
  const view = buildHealthView({ result, checking: false }, memory);
  assert.equal(view.stale, 2, JSON.stringify(view.entries.map((e) => [e.file, e.stale])));
  assert.equal(view.workspace, fs.realpathSync(repo));
  assert.deepEqual(
    view.entries.map((e) => e.title),
    ['Lint before commit', 'Where sessions live', 'Where sign-in lives'],
  );
  const session = view.entries.find((e) => e.file === 'project_session.md')!;
  assert.equal(session.stale[0].kind, 'path');
  assert.equal(session.stale[0].ref, 'src/auth/session.ts');
  assert.match(session.stale[0].reason, /session\.ts/);
  assert.equal(session.stale[0].line, 7);
  assert.equal(session.group, 'private');
  assert.equal(session.path, path.join(memoryDir, 'project_session.md'));
  const lint = view.entries.find((e) => e.file === 'project_lint.md')!;
  assert.equal(lint.stale[0].kind, 'command');
  assert.equal(view.entries[2].stale.length, 0);
});

test('a file event re-checks the memories it touches: the file comes back, its memory is no longer stale', async () => {
  const { repo, data, memoryDir } = await fixture();
  const health = await WorkspaceHealth.open(data, repo, false);
  await health.check();
  writeFile(path.join(repo, 'src', 'auth', 'session.ts'), 'export const s = 1;\n');
  assert.equal(
    await health.onFileEvents([{ kind: 'create', path: path.join(repo, 'src', 'auth', 'session.ts') }]),
    true,
  );
  const view = buildHealthView(
    { result: await health.check(), checking: false },
    await buildMemoryView({ dir: memoryDir }),
  );
  assert.deepEqual(
    view.entries.filter((e) => e.stale.length > 0).map((e) => e.file),
    ['project_lint.md'],
  );
});

test('without a result the view says why: checking, another source, or the error', () => {
  assert.deepEqual(buildHealthView({ checking: true }, EMPTY_MEMORY), {
    entries: [],
    stale: 0,
    duplicatePairs: 0,
    contradictions: 0,
    checking: true,
  });
  assert.equal(
    buildHealthView({ checking: false, unavailable: 'otherSource' }, EMPTY_MEMORY).unavailable,
    'otherSource',
  );
  assert.equal(buildHealthView({ checking: false, error: 'git failed' }, EMPTY_MEMORY).error, 'git failed');
});

test('a duplicate or contradicting pair named from both sides counts once, and sorts after the stale', () => {
  const m = (file: string, extra: Record<string, unknown>) => ({
    file,
    stale: [],
    duplicates: [],
    contradicts: [],
    recalled: 0,
    used: 0,
    notRelevant: 0,
    corrected: 0,
    ...extra,
  });
  const view = buildHealthView(
    {
      checking: false,
      result: {
        memoryDir: '/m',
        workspace: '/w',
        checkedAt: 1,
        lines: {},
        memories: [
          m('a.md', { duplicates: ['b.md'] }),
          m('b.md', { duplicates: ['a.md'] }),
          m('c.md', { contradicts: ['team/d.md'], contradictionNotes: ['indentation: tabs vs spaces'] }),
          m('team/d.md', { contradicts: ['c.md'] }),
          m('e.md', { stale: [{ ref: 'x', kind: 'symbol', reason: 'no symbol x' }] }),
          m('f.md', {}),
        ],
      },
    },
    EMPTY_MEMORY,
  );
  assert.deepEqual([view.stale, view.duplicatePairs, view.contradictions], [1, 1, 1]);
  assert.deepEqual(
    view.entries.map((e) => e.file),
    ['e.md', 'c.md', 'd.md', 'a.md', 'b.md', 'f.md'].map((f) => (f === 'd.md' ? 'team/d.md' : f)),
  );
  const d = view.entries.find((e) => e.file === 'team/d.md')!;
  assert.deepEqual([d.group, d.entryFile, d.contradicts[0].title], ['team', 'd.md', 'c.md']);
});

test('a folder opened through a link: file events named by the link still reach the index (git names the real path)', async () => {
  const { repo, data, memoryDir } = await fixture();
  const link = path.join(path.dirname(repo), 'linked');
  fs.symlinkSync(repo, link);
  // Memory is keyed by the folder as opened.
  fs.cpSync(memoryDir, await autoMemoryDir(data, link), { recursive: true });
  const health = await WorkspaceHealth.open(data, link, false);
  await health.check();
  fs.rmSync(path.join(repo, 'src', 'auth', 'login.ts'));
  assert.equal(await health.onFileEvents([{ kind: 'delete', path: path.join(link, 'src', 'auth', 'login.ts') }]), true);
  const stale = (await health.check()).memories.filter((m) => m.stale.length > 0).map((m) => m.file);
  assert.deepEqual(stale.sort(), ['project_lint.md', 'project_login.md', 'project_session.md']);
});
