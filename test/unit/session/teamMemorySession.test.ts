// Team memory in a whole session, with the reference team server as a real process (SQLite) and the
// Anthropic test server, over real HTTP on 127.0.0.1: on only with the setting, trust and a repository;
// one sync as the session opens (its pull reaches the first system prompt); a debounced sync after team
// writes by the agent; syncTeamMemory() on demand; a teamSync event per report; a failed sync said in
// words without holding the session up; nothing at all in an untrusted workspace.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gaugeState } from '../../../src/core/inspection/contextSnapshot';
import { AnthropicModelClient } from '../../../src/core/llm/anthropicClient';
import { autoMemoryDir, teamMemoryDir } from '../../../src/core/memory/autoMemory/memoryPaths';
import { syncTeamMemory } from '../../../src/core/memory/team/teamSync';
import type { TeamSyncReport } from '../../../src/core/memory/team/teamSyncTypes';
import type { PermissionPrompt } from '../../../src/core/ports';
import { openEngramSession } from '../../../src/core/session/openEngramSession';
import type { EngramSession } from '../../../src/core/session/engramSession';
import type { EngramSessionSetup } from '../../../src/core/session/sessionSetup';
import type { SessionEvent } from '../../../src/core/session/sessionEvents';
import { type RawSettings } from '../../../src/core/settings/engramSettings';
import { SettingsStore } from '../../../src/core/settings/settingsStore';
import { startTeamServerProcess, type TeamServerProcess } from '../support/teamServerProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const REPO = 'acme/widgets';
/** A GitHub token shape the secret scanner knows (not a real token). */
const GITHUB_TOKEN = `ghp_${'a1B2'.repeat(9)}`;
const allowAll: PermissionPrompt = { ask: async () => 'allowOnce' };

const model = useTestServer();
const tempDir = useTempDirs('all');
let team: TeamServerProcess;
let token: string;
const open: EngramSession[] = [];

before(async () => {
  await model.ready();
  team = await startTeamServerProcess({ db: path.join(tempDir('engram-team-db-'), 'team.db'), quiet: true });
  token = await team.addToken(REPO);
  // Another clone already shared two memories.
  const other = tempDir('engram-other-team-');
  fs.writeFileSync(
    path.join(other, 'MEMORY.md'),
    '- [Deploy steps](deploy.md) — make deploy from main, never on Fridays\n',
  );
  fs.writeFileSync(
    path.join(other, 'deploy.md'),
    '---\nname: Deploy steps\ndescription: how widgets is deployed to production\ntype: project\n---\n\nRun make deploy from main. Never on Fridays.\n',
  );
  const seeded = await syncTeamMemory({ teamDir: other, repo: REPO, serverUrl: team.url, token });
  assert.equal(seeded.ok, true, seeded.error);
});
after(async () => {
  for (const s of open.splice(0)) s.dispose();
  await team?.stop();
});

/** A clone of acme/widgets with its own data dir. */
async function clone(opts: { git?: boolean } = {}): Promise<{ cwd: string; dataDir: string; teamDir: string }> {
  const cwd = tempDir('engram-clone-');
  if (opts.git !== false) {
    execFileSync('git', ['init', '-q', cwd]);
    execFileSync('git', ['-C', cwd, 'remote', 'add', 'origin', `git@github.com:${REPO}.git`]);
  }
  const dataDir = tempDir('engram-data-');
  return { cwd, dataDir, teamDir: teamMemoryDir(await autoMemoryDir(dataDir, cwd)) };
}

function settings(extra: RawSettings = {}): SettingsStore {
  return new SettingsStore({
    'teamMemory.enabled': true,
    'teamMemory.serverUrl': team.url,
    'sessionNotes.enabled': false,
    'memory.extraction.enabled': false,
    ...extra,
  });
}

async function start(
  where: { cwd: string; dataDir: string },
  store: SettingsStore,
  extra: Partial<EngramSessionSetup> = {},
): Promise<{ session: EngramSession; events: SessionEvent[] }> {
  const session = await openEngramSession(
    {
      ...where,
      client: new AnthropicModelClient({ apiKey: 'k', baseUrl: model.url }),
      trusted: true,
      permissionPrompt: allowAll,
      version: '0.0.0-test',
      entrypoint: 'test',
      teamMemory: { token, debounceMs: 150 },
      ...extra,
    },
    store,
  );
  open.push(session);
  const events: SessionEvent[] = [];
  session.on((e) => events.push(e));
  return { session, events };
}

const reports = (events: SessionEvent[]): TeamSyncReport[] =>
  events.flatMap((e) => (e.type === 'teamSync' ? [e.report] : []));
const systemText = (s: EngramSession): string => s.agent.systemPrompt.map((b) => b.text).join('\n');

async function waitFor(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('team memory in a session', () => {
  it('syncs as the session opens, so the first system prompt has the team index after the private one', async () => {
    const c = await clone();
    const { session, events } = await start(c, settings());
    const state = session.teamMemory;
    assert.ok(state.on);
    assert.equal(state.repo, REPO);
    assert.equal(state.dir, c.teamDir);
    assert.equal(state.serverUrl, team.url);
    assert.equal(state.canSync, true);
    assert.ok(state.lastReport?.ok, state.lastReport?.error);
    assert.deepEqual(state.lastReport.pulled.map((p) => p.path).sort(), ['MEMORY.md', 'deploy.md']);
    assert.ok(fs.existsSync(path.join(c.teamDir, 'deploy.md')));

    const text = systemText(session);
    assert.ok(text.indexOf('# Memory') < text.indexOf('# Team memory (shared, untrusted)'));
    assert.match(
      text,
      /<team-memory-index>\n- \[Deploy steps\]\(deploy\.md\) — make deploy from main, never on Fridays\n<\/team-memory-index>/,
    );
    // The report from before anyone listened is handed to the first listener.
    await waitFor(() => reports(events).length === 1);
    assert.equal(reports(events)[0], state.lastReport);

    // The gauge counts the team index in its 'memory index' category.
    const withTeam = gaugeState(session.compaction.gauge, session.agent, session.settings).breakdown.find(
      (b) => b.category === 'memory index',
    )!.tokens;
    const { session: plain } = await start(await clone(), settings({ 'teamMemory.enabled': false }));
    const without = gaugeState(plain.compaction.gauge, plain.agent, plain.settings).breakdown.find(
      (b) => b.category === 'memory index',
    )!.tokens;
    assert.ok(withTeam > without + 100, `${withTeam} vs ${without}`);
    assert.doesNotMatch(systemText(plain), /Team memory/);
    assert.deepEqual(plain.teamMemory, { on: false, reason: 'engram.teamMemory.enabled is off' });
  });

  it('recalls a pulled team memory, pushes a team write once after a burst (debounced), and refuses a secret', async () => {
    const c = await clone();
    // A 1 ms debounce: a sync fired by the first write, before the turn stamped and indexed its files,
    // would show up as a third report or a push without MEMORY.md.
    const { session, events } = await start(c, settings(), { teamMemory: { token, debounceMs: 1 } });
    await waitFor(() => reports(events).length === 1);
    const conventions = path.join(c.teamDir, 'conventions.md');
    const naming = path.join(c.teamDir, 'naming.md');
    const leak = path.join(c.teamDir, 'ci.md');
    const topic = (name: string, body: string) =>
      `---\nname: ${name}\ndescription: ${name} of the widgets code\ntype: project\n---\n\n${body}\n`;
    model.enqueue(
      {
        content: [
          {
            type: 'tool_use',
            name: 'Write',
            input: { file_path: conventions, content: topic('Conventions', 'Errors are values, not exceptions.') },
          },
          {
            type: 'tool_use',
            name: 'Write',
            input: { file_path: naming, content: topic('Naming', 'Module names are snake_case.') },
          },
          {
            type: 'tool_use',
            name: 'Write',
            input: { file_path: leak, content: topic('CI', `token ${GITHUB_TOKEN}`) },
          },
        ],
      },
      { content: [{ type: 'text', text: 'Saved two team memories; the CI token was refused.' }] },
    );
    const first = model.requests.length;
    await session.runTurn('How do we deploy to production? Also remember our conventions for the team.');
    // Recall attached the pulled team file to this very message, labelled as team content.
    assert.match(
      JSON.stringify(model.requests[first].body.messages.at(-1)),
      /<engram-memory file=\\"team\/deploy\.md\\" hash=\\"[0-9a-f]+\\">\\nA team memory/,
    );
    assert.equal(fs.existsSync(leak), false, 'the secret never reached the team folder');
    assert.match(
      JSON.stringify(model.requests[first + 1].body.messages.at(-1)),
      /team\/ci\.md was not written: .*secret/,
    );

    await waitFor(() => reports(events).length === 2);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(reports(events).length, 2, 'three writes in one turn: one sync, after the turn');
    const pushed = reports(events)[1];
    assert.ok(pushed.ok, pushed.error);
    assert.deepEqual(pushed.pushed.map((p) => p.path).sort(), ['MEMORY.md', 'conventions.md', 'naming.md']);
    const stored = await team.readStoredEntries(REPO);
    assert.match(stored['conventions.md'], /Errors are values/);
    assert.match(stored['MEMORY.md'], /\(conventions\.md\)/);
    assert.match(stored['MEMORY.md'], /\(deploy\.md\)/, 'the pulled index line is kept');
    assert.equal(stored['ci.md'], undefined);
    assert.ok(!JSON.stringify(stored).includes(GITHUB_TOKEN));
    assert.ok(
      events.some((e) => e.type === 'notice' && /Team memory synced with .*: 0 pulled, 3 pushed\./.test(e.text)),
    );

    // On demand: nothing new, still a report and an event.
    const asked = await session.syncTeamMemory();
    assert.equal(asked.ok, true);
    assert.deepEqual([asked.pushed, asked.pulled], [[], []]);
    assert.equal(reports(events).at(-1), asked);
    assert.equal(session.teamMemory.on && session.teamMemory.lastReport, asked);
  });

  it('says in words which file a sync blocked for a secret (written there by hand, never uploaded)', async () => {
    const c = await clone();
    const { session, events } = await start(c, settings());
    fs.writeFileSync(
      path.join(c.teamDir, 'pasted.md'),
      `---\nname: pasted\ndescription: a paste\ntype: reference\n---\n\nkey ${GITHUB_TOKEN}\n`,
    );
    const report = await session.syncTeamMemory();
    assert.deepEqual(
      report.blocked.map((b) => [b.path, b.line]),
      [['pasted.md', 7]],
    );
    assert.equal((await team.readStoredEntries(REPO))['pasted.md'], undefined);
    const notice = events.find((e) => e.type === 'notice' && e.level === 'warning');
    assert.ok(notice && notice.type === 'notice');
    assert.match(
      notice.text,
      /^Team memory: 1 file was not uploaded because it holds a secret: pasted\.md \(.+, rule .+, line 7\)\.$/,
    );
  });

  it('tells the remember turn about the team folder while team memory is on', async () => {
    const c = await clone();
    const { session } = await start(c, settings());
    model.enqueue({ content: [{ type: 'text', text: 'Noted.' }] });
    const first = model.requests.length;
    await session.remember('we release on Tuesdays');
    assert.match(
      JSON.stringify(model.requests[first].body.messages.at(-1)),
      /or in the team memory folder if it is true for everyone working on this repository/,
    );
  });

  it('does nothing for team memory in an untrusted workspace, and says why it is off elsewhere', async () => {
    const c = await clone();
    const { session } = await start(c, settings(), { trusted: false });
    assert.deepEqual(session.teamMemory, { on: false, reason: 'the workspace is not trusted' });
    assert.equal(fs.existsSync(c.teamDir), false, 'no pull, no folder');
    assert.doesNotMatch(systemText(session), /Team memory/);
    await assert.rejects(session.syncTeamMemory(), /Team memory is off: the workspace is not trusted\./);
    assert.ok(!session.warnings.some((w) => /Team memory/.test(w)));

    const noRepo = await clone({ git: false });
    const { session: outside } = await start(noRepo, settings());
    assert.equal(outside.teamMemory.on, false);
    assert.ok(
      outside.warnings.some((w) =>
        /^Team memory is off for this session: .* is not in a git repository with an origin remote/.test(w),
      ),
    );

    const noToken = await clone();
    const { session: tokenless } = await start(noToken, settings(), { teamMemory: {} });
    const state = tokenless.teamMemory;
    assert.ok(state.on && !state.canSync);
    assert.match(state.syncOffReason ?? '', /no access token/);
    assert.match(systemText(tokenless), /# Team memory/, 'on without a token: the local team folder is still used');
    await assert.rejects(tokenless.syncTeamMemory(), /Team memory cannot sync: no access token/);
    tokenless.setTeamMemoryToken(token);
    const report = await tokenless.syncTeamMemory();
    assert.equal(report.ok, true, report.error);
    assert.ok(fs.existsSync(path.join(noToken.teamDir, 'deploy.md')));
  });

  it('does not hold the session up for a server that is down, and says the sync failed', async () => {
    const c = await clone();
    const t0 = Date.now();
    const { session, events } = await start(c, settings({ 'teamMemory.serverUrl': 'http://127.0.0.1:9' }));
    assert.ok(Date.now() - t0 < 4_000, `opened in ${Date.now() - t0} ms`);
    assert.ok(session.teamMemory.on);
    await waitFor(() => reports(events).length === 1, 20_000);
    const failed = reports(events)[0];
    assert.equal(failed.ok, false);
    assert.ok(
      events.some(
        (e) => e.type === 'notice' && e.level === 'warning' && e.text.startsWith('Team memory sync failed: '),
      ),
    );
  });
});
