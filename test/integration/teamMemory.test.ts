import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { projectDir } from '../../src/core/conversation/projectKey';
import type { TeamSyncState } from '../../src/core/memory/team/teamSyncTypes';
import type { EngramApi } from '../../src/extension';
import type { TeamSyncOutcome } from '../../src/vscode/teamMemory';
import { topicText, writeFile } from '../unit/inspection/inspectorFixtures';
import { engram, freshChat, sendFromUi, useTestServer } from './support';
import { ui, waitUntil } from './ui';

// Team memory in the real host against the real reference server (dist/teamServer.js, SQLite, its own
// process on 127.0.0.1): the workspace is a git repository whose origin names acme/widgets, the server
// holds the team's files (put there over HTTP), and the local team folder has an index of its own, a
// file of its own and one with a planted GitHub token. "Engram: Sync Team Memory" from the palette pulls
// the team's files (the server's index wins over ours, which is kept in .conflicts), pushes the clean file
// and blocks the other; the server's storage file never holds the token; the inspector's team group shows
// each state, the rule and line, the kept copy; screenshots in a light and a dark theme.

const REPO = 'acme/widgets';
// Built from parts so that this file itself carries no token-shaped string.
const PLANTED = ['ghp', 'Q7nd2KfLp9sX4vB8mR1tZ6wY3cH5jA0eU2gN'].join('_');
const SERVER_FILES: Record<string, string> = {
  'MEMORY.md':
    '- [Deploy steps](deploy-steps.md) — how a release goes out\n- [Architecture](architecture.md) — the services and who owns them\n',
  'deploy-steps.md': topicText('Deploy steps', 'project'),
  'architecture.md': topicText('Architecture', 'reference'),
};
const LOCAL_CLEAN = 'testing.md';
const LOCAL_SECRET = 'ci-access.md';
const CLEAN_MARKER = 'Run the widget tests with npm run test:widgets before pushing.';
const LOCAL_INDEX = '- [Testing](testing.md) — how we test\n- [CI access](ci-access.md) — how the CI bot logs in\n';

const workspace = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
const teamDir = () => path.join(projectDir(process.env.ENGRAM_DATA_DIR!, workspace()), 'memory', 'team');
const runDir = () => path.join(process.env.ENGRAM_DATA_DIR!, '..', 'team-server');
const node = () => process.env.ENGRAM_TEST_NODE || 'node';
const bundle = () => path.join(process.env.ENGRAM_REPO_ROOT!, 'dist', 'teamServer.js');

/** The reference server as its own process (the system Node: its SQLite addon is built for it, not for the host's). */
function startServer(db: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(node(), [bundle(), '--host', '127.0.0.1', '--port', '0', '--db', db], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the team server exited (${code}) before it listened: ${err}`)));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /on (http:\/\/127\.0\.0\.1:\d+) /.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
  });
}

/** Everything the SQLite storage holds, as bytes on disk (the database and its write-ahead log). */
function storedBytes(db: string): string {
  return [db, `${db}-wal`]
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f).toString('latin1'))
    .join('\n');
}

function git(...args: string[]): void {
  execFileSync('git', ['-C', workspace(), ...args], { stdio: 'ignore' });
}

async function openInspector(api: EngramApi): Promise<void> {
  await vscode.commands.executeCommand('engram.openInspector');
  await waitUntil('the inspector panel', () => api.inspector() !== undefined);
  await ui.text('inspector', '#memory-section');
}

suite('team memory', () => {
  const model = useTestServer();
  let server: { child: ChildProcess; url: string } | undefined;
  let db = '';
  let token = '';
  let synced: Promise<string> | undefined;
  /** The first sync, from the palette as a person runs it (once, whichever test needs it first); the state file's path. */
  const firstSync = (): Promise<string> =>
    (synced ??= (async () => {
      const stateFile = path.join(teamDir(), '.sync', 'state.json');
      await ui.palette('Engram: Sync Team Memory');
      await waitUntil('the sync to record its report', () => fs.existsSync(stateFile), 45_000);
      return stateFile;
    })());

  suiteSetup(async function () {
    this.timeout(60_000);
    fs.rmSync(runDir(), { recursive: true, force: true });
    fs.mkdirSync(runDir(), { recursive: true });
    db = path.join(runDir(), 'team.db');
    token = execFileSync(node(), [bundle(), 'token', 'add', '--repo', REPO, '--db', db], { encoding: 'utf8' }).trim();
    server = await startServer(db);
    // The team's files, on the server before this machine ever synced.
    const put = await fetch(`${server.url}/api/team_memory?repo=${REPO}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'if-match': '"0"' },
      body: JSON.stringify({ entries: SERVER_FILES }),
    });
    assert.equal(put.status, 200, await put.text());

    git('remote', 'add', 'origin', 'git@github.com:acme/widgets.git');
    fs.rmSync(teamDir(), { recursive: true, force: true });
    writeFile(path.join(teamDir(), 'MEMORY.md'), LOCAL_INDEX);
    writeFile(path.join(teamDir(), LOCAL_CLEAN), `${topicText('Testing', 'project')}\n${CLEAN_MARKER}\n`);
    writeFile(
      path.join(teamDir(), LOCAL_SECRET),
      `${topicText('CI access', 'reference')}\nThe CI bot logs in with\n\n    token: ${PLANTED}\n`,
    );

    const api = await engram();
    api.chat().newChat();
    const config = vscode.workspace.getConfiguration('engram.teamMemory');
    await config.update('enabled', true, vscode.ConfigurationTarget.Global);
    await config.update('serverUrl', server.url, vscode.ConfigurationTarget.Global);
    // The command's own code path: what a person types in its password box.
    assert.equal(await vscode.commands.executeCommand('engram.setTeamMemoryToken', token), true);
  });

  suiteTeardown(async () => {
    await vscode.workspace
      .getConfiguration('workbench')
      .update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    const config = vscode.workspace.getConfiguration('engram.teamMemory');
    await config.update('enabled', undefined, vscode.ConfigurationTarget.Global);
    await config.update('serverUrl', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('engram.setTeamMemoryToken', '');
    (await engram()).inspector()?.dispose();
    try {
      git('remote', 'remove', 'origin');
    } catch {
      /* not added */
    }
    server?.child.kill('SIGTERM');
    fs.rmSync(teamDir(), { recursive: true, force: true });
  });

  test('[ui] team memory: "Engram: Sync Team Memory" pulls the team\'s files, pushes ours, and never uploads the planted token', async function () {
    this.timeout(90_000);
    const api = await engram();
    const stateFile = await firstSync();
    const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as TeamSyncState;
    const last = state.lastSync!;
    assert.equal(last.ok, true, last.error);
    assert.equal(state.repo, REPO);

    // Pulled: the server's files are here, as the server has them.
    for (const [file, content] of Object.entries(SERVER_FILES)) {
      assert.equal(fs.readFileSync(path.join(teamDir(), file), 'utf8'), content, file);
    }
    assert.deepEqual(last.pulled.map((p) => `${p.path}:${p.reason}`).sort(), [
      'MEMORY.md:conflict',
      'architecture.md:new',
      'deploy-steps.md:new',
    ]);
    // Our index lost to the server's, and is kept where the inspector links to it.
    const kept = state.files['MEMORY.md'];
    assert.equal(kept?.state, 'conflict');
    assert.equal(
      fs.readFileSync(path.join(teamDir(), kept.state === 'conflict' ? kept.keptAt : ''), 'utf8'),
      LOCAL_INDEX,
    );
    // Pushed the clean file; blocked the other, naming the rule and the line.
    assert.deepEqual(
      last.pushed.map((p) => p.path),
      [LOCAL_CLEAN],
    );
    assert.equal(last.blocked.length, 1);
    const blocked = last.blocked[0];
    assert.equal(blocked.path, LOCAL_SECRET);
    assert.match(blocked.rule, /github/);
    const secretLine =
      fs
        .readFileSync(path.join(teamDir(), LOCAL_SECRET), 'utf8')
        .split('\n')
        .findIndex((l) => l.includes(PLANTED)) + 1;
    assert.equal(blocked.line, secretLine);
    assert.deepEqual(state.files[LOCAL_SECRET], {
      state: 'blocked',
      rule: blocked.rule,
      kind: blocked.kind,
      line: secretLine,
    });

    // What the server stored, read from its storage file, not from its replies.
    const stored = storedBytes(db);
    assert.ok(stored.includes(CLEAN_MARKER), 'the pushed file is in the storage (so the next check can fail)');
    assert.ok(!stored.includes(PLANTED), "the planted token reached the server's storage");
    assert.ok(!stored.includes(LOCAL_SECRET), "the blocked file reached the server's storage");

    // The status bar tooltip tells the last sync.
    await waitUntil('the status bar tooltip to tell the sync', () =>
      api.statusBar.tooltip.includes('Team memory of acme/widgets: last sync'),
    );
    assert.match(api.statusBar.tooltip, /3 pulled, 1 pushed, 0 skipped, 1 blocked/);
  });

  test("[ui] team memory: the inspector's team group shows each file's sync state and the blocked file's rule; screenshots in light and dark", async function () {
    this.timeout(120_000);
    const api = await engram();
    await firstSync();
    await openInspector(api);
    await api.inspector()!.refresh();
    await ui.waitForText('inspector', '#team-sync-summary', '3 pulled · 1 pushed · 1 blocked · 1 in conflict', 20_000);
    const group = await ui.evaluate<string | null>(
      'inspector',
      `document.querySelector('[data-key="group:team"]')?.getAttribute('aria-expanded') ?? null`,
    );
    if (group === 'false') await ui.click('inspector', '[data-key="group:team"] > .tree-row');

    const rows = await ui.evaluate<Array<{ file: string; sync: string; text: string }>>(
      'inspector',
      `[...document.querySelectorAll('[data-key="group:team"] [role="treeitem"]')].map((el) => ({ file: el.dataset.file, sync: el.dataset.sync, text: el.textContent }))`,
    );
    const byFile = new Map(rows.map((r) => [r.file, r]));
    for (const file of ['deploy-steps.md', 'architecture.md', LOCAL_CLEAN])
      assert.equal(byFile.get(file)?.sync, 'synced', `${file}: ${JSON.stringify(rows)}`);
    const blockedRow = byFile.get(LOCAL_SECRET);
    assert.equal(blockedRow?.sync, 'blocked', JSON.stringify(rows));
    assert.match(blockedRow!.text, /blocked: @secretlint\/secretlint-rule-github/);
    assert.match(byFile.get('deploy-steps.md')!.text, /new from the server/, 'the last pull says what it wrote');
    assert.equal(byFile.get('MEMORY.md')?.sync, 'conflict', JSON.stringify(rows));

    // The blocked file's details: the rule and the line, in words.
    await ui.click('inspector', `[data-key="group:team"] [data-file="${LOCAL_SECRET}"] > .tree-row`);
    const details = await ui.waitForText('inspector', '#entry-sync', 'never uploaded');
    assert.match(details, /a secret \(github, rule @secretlint\/secretlint-rule-github\) on line \d+/);
    assert.ok(
      !(await ui.text('inspector', '#memory-section')).includes(PLANTED),
      'the inspector never shows the secret itself in the tree',
    );

    for (const [theme, kind] of [
      ['Default Light Modern', 'light'],
      ['Default Dark Modern', 'dark'],
    ] as const) {
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await waitUntil(
        `the ${kind} theme in the webview`,
        async () =>
          (await ui.evaluate<boolean>('inspector', `document.body.classList.contains('vscode-${kind}')`)) === true,
      );
      await ui.evaluate(
        'inspector',
        `document.querySelector('[data-key="group:team"]').scrollIntoView({ block: 'start' })`,
      );
      const shot = await ui.screenshot(`team-memory-blocked-${kind}`);
      assert.ok(shot.bytes > 10_000, `${shot.file} is ${shot.bytes} bytes`);
    }
    // The group's own details: repository, server, the last sync in full, and "Sync now".
    await ui.click('inspector', '[data-key="group:team"] > .tree-row');
    assert.match(
      await ui.waitForText('inspector', '#team-last-sync', 'pulled'),
      /^3 pulled · 1 pushed · 0 skipped · 1 blocked · 1 in conflict$/,
    );
    assert.match(await ui.text('inspector', '#entry-details'), /acme\/widgets.*http:\/\/127\.0\.0\.1:\d+/s);
    await ui.text('inspector', '#team-sync-now');
    // Opening the group collapsed it: open it again (it stays selected).
    if (
      (await ui.evaluate<string | null>(
        'inspector',
        `document.querySelector('[data-key="group:team"]').getAttribute('aria-expanded')`,
      )) === 'false'
    ) {
      await ui.click('inspector', '[data-key="group:team"] > .tree-row');
    }
    for (const [theme, kind] of [
      ['Default Dark Modern', 'dark'],
      ['Default Light Modern', 'light'],
    ] as const) {
      await vscode.workspace
        .getConfiguration('workbench')
        .update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await waitUntil(
        `the ${kind} theme in the webview`,
        async () =>
          (await ui.evaluate<boolean>('inspector', `document.body.classList.contains('vscode-${kind}')`)) === true,
      );
      await ui.evaluate(
        'inspector',
        `document.querySelector('[data-key="group:team"]').scrollIntoView({ block: 'start' })`,
      );
      await ui.screenshot(`team-memory-sync-${kind}`);
    }

    // The conflict's row opens the copy of our index that the server's version replaced.
    await ui.click('inspector', '[data-key="group:team"] [data-file="MEMORY.md"] > .tree-row');
    await ui.click('inspector', '#entry-open-kept');
    await waitUntil(
      'the kept copy to open',
      () => vscode.window.activeTextEditor?.document.uri.fsPath.includes(`${path.sep}.conflicts${path.sep}`) === true,
    );
    assert.equal(vscode.window.activeTextEditor!.document.getText(), LOCAL_INDEX);
  });

  test('[ui] team memory: a sync with nothing new says so in words, names the blocked file again, and the inspector follows', async function () {
    this.timeout(90_000);
    const api = await engram();
    await firstSync();
    await openInspector(api); // back in front of the kept copy's editor
    await ui.waitForText('inspector', '#team-sync-summary', '1 in conflict', 20_000);
    const again = await vscode.commands.executeCommand<TeamSyncOutcome>('engram.syncTeamMemory');
    assert.equal(again.ok, true, again.text);
    assert.match(
      again.text,
      /^Engram: team memory of acme\/widgets synced: 0 pulled, 0 pushed, 0 skipped, 1 blocked\./,
    );
    const state = JSON.parse(fs.readFileSync(path.join(teamDir(), '.sync', 'state.json'), 'utf8')) as TeamSyncState;
    const blocked = state.lastSync!.blocked[0];
    assert.ok(
      again.text.includes(
        `${LOCAL_SECRET} was not uploaded: it holds a secret (${blocked.kind}, rule ${blocked.rule}, line ${blocked.line})`,
      ),
      again.text,
    );
    assert.ok(!storedBytes(db).includes(PLANTED));
    assert.match(api.statusBar.tooltip, /0 pulled, 0 pushed, 0 skipped, 1 blocked/);
    // Without a refresh asked for: the sync itself tells the open inspector.
    await waitUntil('the team group to show the new sync', async () =>
      /^synced .*: 1 blocked$/.test(await ui.text('inspector', '#team-sync-summary')),
    );
  });
  test('[ui] team memory: a chat session syncs as it opens and says so in the chat; the command syncs through it; a new token reaches it', async function () {
    this.timeout(120_000);
    await firstSync();
    model().setResponder(() => ({ content: [{ type: 'text', text: 'Noted.' }] }));
    const api = await freshChat();
    await sendFromUi('What does the team know about deploys?');
    // The session's own sync at start met the planted token again, and the chat says which file and rule.
    const notice = await ui.waitForText('chat', '.item-notice', 'not uploaded', 45_000);
    assert.ok(notice.includes(LOCAL_SECRET) && notice.includes('secretlint-rule-github'), notice);
    await waitUntil('the turn to end', () => !api.chat().snapshot().busy, 30_000);
    await api.chat().idleForTests();

    // The command goes through the open session (its scheduler, its events: one more notice in the chat), and the tooltip follows.
    const blockedNotices = () =>
      ui.evaluate<number>(
        'chat',
        `[...document.querySelectorAll('.item-notice')].filter((n) => n.textContent.includes('not uploaded')).length`,
      );
    const before = await blockedNotices();
    const viaSession = await vscode.commands.executeCommand<TeamSyncOutcome>('engram.syncTeamMemory');
    assert.equal(viaSession.ok, true, viaSession.text);
    await waitUntil('the session to tell the chat of the sync', async () => (await blockedNotices()) === before + 1);
    // The pull let the server's index win, so our two files had no team/MEMORY.md line: the session, as it
    // opened (after its first sync), indexed them as recovered memories. This sync pushes that index and
    // testing.md (its front matter now says recovered); ci-access.md stays blocked.
    assert.match(
      api.statusBar.tooltip,
      /Team memory of acme\/widgets: last sync .*, 0 pulled, 2 pushed, 0 skipped, 1 blocked\./,
    );
    assert.match(
      fs.readFileSync(path.join(teamDir(), 'MEMORY.md'), 'utf8'),
      /\(testing\.md\)[\s\S]*\(ci-access\.md\)|\(ci-access\.md\)[\s\S]*\(testing\.md\)/,
    );

    // Clearing the token reaches the open session: nothing syncs, and the command says what to do.
    await vscode.commands.executeCommand('engram.setTeamMemoryToken', '');
    const noToken = await vscode.commands.executeCommand<TeamSyncOutcome>('engram.syncTeamMemory');
    assert.equal(noToken.ok, false);
    assert.match(noToken.text, /no team memory token\. Run "Engram: Set Team Memory Token"/);
    // A wrong one: the server refuses it, and the words say so.
    await vscode.commands.executeCommand('engram.setTeamMemoryToken', 'engram_team_not-a-real-token');
    const refused = await vscode.commands.executeCommand<TeamSyncOutcome>('engram.syncTeamMemory');
    assert.equal(refused.ok, false);
    assert.match(refused.text, /^Engram: the team memory sync of acme\/widgets failed: /);
    assert.match(api.statusBar.tooltip, /the last sync \(.*\) failed/);
    await vscode.commands.executeCommand('engram.setTeamMemoryToken', token);
    assert.equal((await vscode.commands.executeCommand<TeamSyncOutcome>('engram.syncTeamMemory')).ok, true);
    api.chat().newChat();
  });
  test('[ui] team memory: hostile text in the sync state (a rule, an error, a kept path) is shown as text; no script runs', async function () {
    this.timeout(60_000);
    const api = await engram();
    await firstSync();
    const xss = '<img src=x onerror=window.__engramXss=3>';
    const state = JSON.parse(fs.readFileSync(path.join(teamDir(), '.sync', 'state.json'), 'utf8')) as TeamSyncState;
    state.files[LOCAL_SECRET] = { state: 'blocked', rule: xss, kind: `<script>window.__engramXss=4</script>`, line: 1 };
    state.files['MEMORY.md'] = { state: 'conflict', keptAt: `.conflicts/${xss}.md` };
    state.lastSync = { ...state.lastSync!, ok: false, error: xss };
    fs.writeFileSync(path.join(teamDir(), '.sync', 'state.json'), JSON.stringify(state));
    await openInspector(api);
    await api.inspector()!.refresh();
    const summary = await ui.waitForText('inspector', '#team-sync-summary', 'failed', 20_000);
    assert.ok(summary.includes(xss), summary);
    const row = await ui.text('inspector', `[data-key="group:team"] [data-file="${LOCAL_SECRET}"]`);
    assert.ok(row.includes(`blocked: ${xss}`), row);
    await ui.click('inspector', '[data-key="group:team"] [data-file="MEMORY.md"] > .tree-row');
    assert.ok((await ui.waitForText('inspector', '#entry-sync', 'kept at')).includes(`.conflicts/${xss}.md`));
    assert.equal(await ui.evaluate('inspector', 'window.__engramXss ?? null'), null);
    assert.equal(await ui.evaluate('inspector', `document.querySelectorAll('#memory-section img').length`), 0);
  });
});
