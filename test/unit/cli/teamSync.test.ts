// `engram team sync` as a real CLI process against the reference team server as a real process
// (SQLite): the repository from the origin remote of --cwd, the JSON report, the human summary, exit
// codes, and usage errors for what is missing.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { autoMemoryDir, teamMemoryDir } from '../../../src/core/memory/autoMemory/memoryPaths';
import type { TeamSyncReport } from '../../../src/core/memory/team/teamSyncTypes';
import { PLANTED_SECRETS, topicWithSecret } from '../memory/team/plantedSecrets';
import { runCli } from '../../../src/cli/dispatcher';
import { runEngram, type CliRun } from '../support/cliProcess';
import { startTeamServerProcess, type TeamServerProcess } from '../support/teamServerProcess';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs('all');
const REPO = 'acme/widgets';
let server: TeamServerProcess;
let token: string;
let home: string;

before(async () => {
  home = tempDir('engram-team-cli-');
  server = await startTeamServerProcess({ db: path.join(home, 'team.db'), quiet: true });
  token = await server.addToken(REPO);
});
after(() => server?.stop());

/** A clone of acme/widgets (its own folder and data dir), and its team folder. */
async function clone(
  origin = `git@github.com:${REPO}.git`,
): Promise<{ cwd: string; dataDir: string; teamDir: string }> {
  const cwd = tempDir('engram-clone-');
  execFileSync('git', ['init', '-q', cwd]);
  execFileSync('git', ['-C', cwd, 'remote', 'add', 'origin', origin]);
  const dataDir = tempDir('engram-data-');
  return { cwd, dataDir, teamDir: teamMemoryDir(await autoMemoryDir(dataDir, cwd)) };
}

function write(teamDir: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(teamDir, rel)), { recursive: true });
  fs.writeFileSync(path.join(teamDir, rel), text);
}

function sync(c: { cwd: string; dataDir: string }, extra: string[] = [], env: Record<string, string> = {}) {
  return runEngram(['team', 'sync', '--cwd', c.cwd, ...extra], {
    home,
    env: { ENGRAM_DATA_DIR: c.dataDir, ENGRAM_TEAM_SERVER: server.url, ENGRAM_TEAM_TOKEN: token, ...env },
  });
}

/** The same command in this process (the dispatcher maps errors to exit codes as main.ts does): fast for the many usage errors. */
async function syncInProcess(
  c: { cwd: string; dataDir: string },
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['team', 'sync', '--cwd', c.cwd, ...extra], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: { ENGRAM_DATA_DIR: c.dataDir, ENGRAM_TEAM_SERVER: server.url, ENGRAM_TEAM_TOKEN: token, ...env },
    cwd: home,
    signal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}

describe('engram team sync', () => {
  it('prints help for team and team sync', async () => {
    const team = await runEngram(['team', '--help'], { home });
    assert.equal(team.code, 0);
    assert.match(team.stdout, /engram team <subcommand>/);
    const help = await runEngram(['team', 'sync', '--help'], { home });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: engram team sync \[--cwd DIR\]/);
    assert.match(help.stdout, /ENGRAM_TEAM_TOKEN/);
    const overall = await runEngram(['--help'], { home });
    assert.match(overall.stdout, /team\s+Sync a repository's team memory/);
  });

  it('syncs: pushes clean files, reports the blocked secret and the skipped 300 KB file as JSON; exit 0', async () => {
    const a = await clone();
    write(a.teamDir, 'MEMORY.md', '- [Build](build.md) — how to build\n');
    write(a.teamDir, 'build.md', '---\nname: build\ndescription: build\ntype: project\n---\nnpm run build\n');
    const { text, line } = topicWithSecret('aws', PLANTED_SECRETS.aws);
    write(a.teamDir, 'aws.md', text);
    write(a.teamDir, 'huge.md', 'x'.repeat(300 * 1024));
    const run = await sync(a, ['--json']);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as TeamSyncReport;
    assert.equal(report.ok, true);
    assert.equal(report.repo, REPO);
    assert.deepEqual(
      report.pushed.map((p) => p.path),
      ['MEMORY.md', 'build.md'],
    );
    assert.deepEqual(
      report.blocked.map((b) => [b.path, b.kind, b.line]),
      [['aws.md', 'aws', line]],
    );
    assert.deepEqual(
      report.skipped.map((s) => [s.path, s.reason]),
      [['huge.md', 'too_large']],
    );
    assert.deepEqual(Object.keys(await server.readStoredEntries(REPO)).sort(), ['MEMORY.md', 'build.md']);

    // A second clone over https pulls them; the human summary says so.
    const b = await clone(`https://github.com/${REPO}`);
    const human = await sync(b);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^Team memory of acme\/widgets at http:\/\/127\.0\.0\.1:\d+ \(version 1\): synced$/m);
    assert.match(human.stdout, /pulled 2, pushed 0, skipped 0, blocked 0/);
    assert.match(human.stdout, /pulled {3}build\.md \(new\)/);
    assert.equal(
      fs.readFileSync(path.join(b.teamDir, 'build.md'), 'utf8'),
      fs.readFileSync(path.join(a.teamDir, 'build.md'), 'utf8'),
    );

    // b edits build.md while a changes it too: b's summary says where its copy went.
    write(a.teamDir, 'build.md', 'npm run build -- --prod\n');
    assert.equal((await sync(a)).code, 0);
    write(b.teamDir, 'build.md', 'make build\n');
    const conflict = await sync(b);
    assert.equal(conflict.code, 0, conflict.stderr);
    const m = /conflict build\.md: the server's version won; your copy is kept at (.+)$/m.exec(conflict.stdout);
    assert.ok(m, conflict.stdout);
    assert.equal(fs.readFileSync(m[1], 'utf8'), 'make build\n');
    assert.ok(m[1].startsWith(path.join(b.teamDir, '.conflicts')));
    // a's second human run names the blocked file by path:line and rule.
    const again = await sync(a);
    assert.match(again.stdout, new RegExp(`blocked {2}aws\\.md:${line}: a secret \\(aws, rule [^)]+\\); not uploaded`));
    assert.match(again.stdout, /skipped {2}huge\.md: 300 KB is over the 250 KB limit/);
  });

  it('exits 1 with what to do when the server refuses the token', async () => {
    const a = await clone();
    const run = await sync(a, [], { ENGRAM_TEAM_TOKEN: 'engram_team_wrong-token-value' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /401/);
    assert.match(run.stderr, /ENGRAM_TEAM_TOKEN/);
    assert.match(run.stdout, /failed/);
    const json = await sync(a, ['--json'], { ENGRAM_TEAM_TOKEN: 'engram_team_wrong-token-value' });
    assert.equal(json.code, 1);
    assert.equal((JSON.parse(json.stdout) as TeamSyncReport).ok, false);
  });

  it('is a usage error (exit 2) without a server, a token or a repository', async () => {
    const a = await clone();
    const noServer = await syncInProcess(a, [], { ENGRAM_TEAM_SERVER: '' });
    assert.equal(noServer.code, 2);
    assert.match(noServer.stderr, /no team server: set ENGRAM_TEAM_SERVER or pass --server URL/);
    const badServer = await syncInProcess(a, ['--server', 'ftp://team.example.com']);
    assert.equal(badServer.code, 2);
    assert.match(badServer.stderr, /not an http\(s\) URL/);
    const noToken = await syncInProcess(a, [], { ENGRAM_TEAM_TOKEN: ' ' });
    assert.equal(noToken.code, 2);
    assert.match(noToken.stderr, /no team token: set ENGRAM_TEAM_TOKEN/);
    const notRepo = await syncInProcess({ cwd: tempDir(), dataDir: a.dataDir });
    assert.equal(notRepo.code, 2);
    assert.match(notRepo.stderr, /not in a git repository with an origin remote.*--repo OWNER\/REPO/);
    const missing = await syncInProcess({ cwd: path.join(a.cwd, 'no-such-folder'), dataDir: a.dataDir });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--cwd .*no-such-folder is not a folder/);
    const badRepo = await syncInProcess(a, ['--repo', 'just-a-name']);
    assert.equal(badRepo.code, 2);
    assert.match(badRepo.stderr, /--repo must be OWNER\/REPO/);
    let pushErr = '';
    const unknown = await runCli(['team', 'push'], {
      stdout: () => undefined,
      stderr: (t) => void (pushErr += t),
      env: {},
      cwd: home,
      signal: new AbortController().signal,
    });
    assert.equal(unknown, 2);
    assert.match(pushErr, /Unknown team subcommand: push/);
  });

  it('--repo overrides the origin remote', async () => {
    const other = 'acme/other';
    const otherToken = await server.addToken(other);
    const a = await clone();
    write(a.teamDir, 'x.md', 'for the other repository\n');
    const run = await sync(a, ['--repo', other, '--json'], { ENGRAM_TEAM_TOKEN: otherToken });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(await server.readStoredEntries(other), { 'x.md': 'for the other repository\n' });
  });
});
