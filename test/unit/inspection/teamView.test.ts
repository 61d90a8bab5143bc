// The team group's sync states in the memory model: what `.sync/state.json` says of each team file (as
// the sync writes it) reaches the entries, the rows the index has none for, and the group's header.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../../../src/cli/dispatcher';
import { buildMemoryView } from '../../../src/core/inspection/memoryView';
import { writeTeamSyncState } from '../../../src/core/memory/team/syncStateFile';
import type { TeamSyncState } from '../../../src/core/memory/team/teamSyncTypes';
import { useTempDirs } from '../support/tempDirs';
import { topicText, writeFile } from './inspectorFixtures';

const tempDir = useTempDirs();

function teamFolder(dir = tempDir('engram-teamview-')): { dir: string; team: string } {
  const team = path.join(dir, 'team');
  writeFile(path.join(dir, 'MEMORY.md'), '- [Mine](mine.md) — private\n');
  writeFile(path.join(dir, 'mine.md'), topicText('Mine', 'user'));
  writeFile(
    path.join(team, 'MEMORY.md'),
    [
      '- [Build](build.md) — how to build',
      '- [Deploy](deploy.md) — has a key in it',
      '- [Huge](huge.md) — too big to share',
      '- [Style](style.md) — edited here and on the server',
      '- [Fresh](fresh.md) — written after the last sync',
      '',
    ].join('\n'),
  );
  for (const [file, type] of [
    ['build.md', 'project'],
    ['deploy.md', 'reference'],
    ['huge.md', 'project'],
    ['style.md', 'feedback'],
    ['fresh.md', 'project'],
  ]) {
    writeFile(path.join(team, file), topicText(file.slice(0, -3), type));
  }
  writeFile(path.join(team, 'notes', 'loose.md'), 'no front matter, no index line\n');
  writeFile(path.join(team, '.conflicts', 'style.md.2026-12-02T01-00-00Z.md'), 'my edit\n');
  return { dir, team };
}

function state(over: Partial<TeamSyncState> = {}): TeamSyncState {
  return {
    repo: 'acme/widgets',
    server: 'http://127.0.0.1:9',
    etag: '"7"',
    serverChecksums: {},
    serverMaxEntries: 300,
    files: {
      'MEMORY.md': { state: 'synced' },
      'build.md': { state: 'synced' },
      'deploy.md': { state: 'blocked', rule: '@secretlint/secretlint-rule-aws', kind: 'AWS access key', line: 9 },
      'huge.md': { state: 'skipped', reason: 'too_large', detail: '300 KB' },
      'style.md': { state: 'conflict', keptAt: '.conflicts/style.md.2026-12-02T01-00-00Z.md' },
      'notes/loose.md': { state: 'local-change' },
      'gone.md': { state: 'synced' },
    },
    lastSync: {
      repo: 'acme/widgets',
      server: 'http://127.0.0.1:9',
      at: '2026-12-02T01:00:00.000Z',
      ok: true,
      version: 7,
      pulled: [
        { path: 'build.md', reason: 'new' },
        { path: 'style.md', reason: 'conflict', keptAt: '.conflicts/style.md.2026-12-02T01-00-00Z.md' },
      ],
      pushed: [{ path: 'notes/loose.md' }],
      skipped: [{ path: 'huge.md', reason: 'too_large', detail: '300 KB' }],
      blocked: [{ path: 'deploy.md', rule: '@secretlint/secretlint-rule-aws', kind: 'AWS access key', line: 9 }],
      retries: 1,
    },
    ...over,
  };
}

describe('team sync states in the memory view', () => {
  it('gives each team file its state from .sync/state.json, and the group the last sync', async () => {
    const { dir, team } = teamFolder();
    await writeTeamSyncState(team, state());
    const view = await buildMemoryView({ dir });
    const sync = (file: string) =>
      [...view.entries, ...view.unindexed].find((e) => e.group === 'team' && e.file === file)?.sync;

    assert.deepEqual(sync('build.md'), { status: { state: 'synced' }, pulled: 'new' });
    assert.deepEqual(sync('deploy.md'), {
      status: { state: 'blocked', rule: '@secretlint/secretlint-rule-aws', kind: 'AWS access key', line: 9 },
    });
    assert.deepEqual(sync('huge.md'), { status: { state: 'skipped', reason: 'too_large', detail: '300 KB' } });
    assert.deepEqual(sync('style.md'), {
      status: {
        state: 'conflict',
        keptAt: '.conflicts/style.md.2026-12-02T01-00-00Z.md',
        keptPath: path.join(team, '.conflicts', 'style.md.2026-12-02T01-00-00Z.md'),
      },
      pulled: 'conflict',
    });
    assert.deepEqual(sync('fresh.md'), { status: { state: 'unsynced' } }, 'a file the last sync did not see');
    assert.deepEqual(sync('notes/loose.md'), { status: { state: 'local-change' } });
    assert.equal(
      view.entries.find((e) => e.group === 'private')?.sync,
      undefined,
      'private entries have no sync state',
    );

    assert.deepEqual(view.team?.lastSync, {
      at: '2026-12-02T01:00:00.000Z',
      ok: true,
      version: 7,
      pulled: 2,
      pushed: 1,
      skipped: 1,
      blocked: 1,
      conflicts: 1,
      retries: 1,
    });
    assert.equal(view.team?.repo, 'acme/widgets');
    assert.equal(view.team?.serverMaxEntries, 300);
    // The team index has a row of its own; a synced file deleted here since has none.
    assert.deepEqual(view.team?.files, [
      { file: 'MEMORY.md', path: path.join(team, 'MEMORY.md'), sync: { status: { state: 'synced' } } },
    ]);
  });

  it('a failed last sync keeps its error; a kept copy outside .conflicts is never pointed at', async () => {
    const { dir, team } = teamFolder();
    const failed = state({
      files: { 'style.md': { state: 'conflict', keptAt: '../../../etc/passwd' } },
      lastSync: {
        ...state().lastSync!,
        ok: false,
        error: 'the server refused the token (401): set it again with "Engram: Set Team Memory Token"',
        pulled: [],
        pushed: [],
        skipped: [],
        blocked: [],
      },
    });
    await writeTeamSyncState(team, failed);
    const view = await buildMemoryView({ dir });
    assert.equal(view.team?.lastSync?.ok, false);
    assert.match(view.team?.lastSync?.error ?? '', /401/);
    const style = view.entries.find((e) => e.group === 'team' && e.file === 'style.md');
    assert.deepEqual(style?.sync?.status, {
      state: 'conflict',
      keptAt: '../../../etc/passwd',
      keptPath: path.join(team, '.conflicts'),
    });
  });

  it('no state file (never synced) or a broken one: no sync states, no team header data', async () => {
    const { dir, team } = teamFolder();
    let view = await buildMemoryView({ dir });
    assert.equal(view.team, undefined);
    assert.ok(view.entries.filter((e) => e.group === 'team').every((e) => e.sync === undefined));
    writeFile(path.join(team, '.sync', 'state.json'), '{"repo": "acme/widgets", "files": ');
    view = await buildMemoryView({ dir });
    assert.equal(view.team, undefined);
  });

  it('`engram inspect` prints the same team sync: the JSON the model, the text a line per state', async () => {
    const root = tempDir('engram-teamview-root-');
    const { team } = teamFolder(path.join(root, 'projects', '-w-widgets', 'memory'));
    await writeTeamSyncState(team, state());
    const view = await buildMemoryView({ dir: path.join(root, 'projects', '-w-widgets', 'memory') });
    const run = async (json: boolean) => {
      let stdout = '';
      const code = await runCli(['inspect', '--root', root, ...(json ? ['--json'] : [])], {
        stdout: (t) => void (stdout += t),
        stderr: () => undefined,
        env: {},
        cwd: root,
        signal: new AbortController().signal,
      });
      assert.equal(code, 0);
      return stdout;
    };
    const printed = JSON.parse(await run(true)) as {
      projects: Array<{ memory: { team?: unknown; unindexedEntries: Array<{ file: string; sync?: unknown }> } }>;
    };
    assert.deepEqual(printed.projects[0].memory.team, view.team);
    assert.deepEqual(printed.projects[0].memory.unindexedEntries.find((e) => e.file === 'notes/loose.md')?.sync, {
      status: { state: 'local-change' },
    });
    const text = await run(false);
    assert.match(
      text,
      /Team sync: acme\/widgets on http:\/\/127\.0\.0\.1:9, last sync 2026-12-02T01:00:00\.000Z: 2 pulled, 1 pushed, 1 skipped, 1 blocked, 1 in conflict/,
    );
    assert.match(text, /Deploy \(deploy\.md\) .*\[team, blocked: @secretlint\/secretlint-rule-aws line 9, reference/);
    assert.match(text, /Build \(build\.md\) .*\[team, synced, pulled \(new\), project/);
    assert.match(
      text,
      /Style \(style\.md\) .*\[team, conflict, yours kept at \.conflicts\/style\.md\.2026-12-02T01-00-00Z\.md/,
    );
    assert.match(text, /- MEMORY\.md \[team, synced\]/);
  });
});

describe('the team index against its caps', () => {
  it('has its own figures and level beside the private one, from 80% of a cap', async () => {
    const dir = tempDir('engram-teamcap-');
    writeFile(path.join(dir, 'MEMORY.md'), '- [Mine](mine.md) — private\n');
    writeFile(path.join(dir, 'mine.md'), topicText('Mine', 'user'));
    const lines = Array.from({ length: 170 }, (_, i) => `- [Team ${i}](t${i}.md) — shared fact ${i}`);
    writeFile(path.join(dir, 'team', 'MEMORY.md'), `${lines.join('\n')}\n`);
    const view = await buildMemoryView({ dir });
    assert.equal(view.cap?.level, 'ok');
    assert.equal(view.cap?.lines, 1);
    assert.equal(view.teamCap?.level, 'near');
    assert.equal(view.teamCap?.lines, 170);
    assert.equal(view.teamCap?.maxLines, 200);
  });

  it('is absent without a team index', async () => {
    const dir = tempDir('engram-teamcap-');
    writeFile(path.join(dir, 'MEMORY.md'), '- [Mine](mine.md) — private\n');
    assert.equal((await buildMemoryView({ dir })).teamCap, undefined);
  });
});
