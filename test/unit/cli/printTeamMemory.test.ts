// `engram -p` with a team server in the environment: team memory is on, the run pulls as it starts (the
// team index reaches the first system prompt), and a team memory the model writes is pushed before the
// process exits. Real CLI process, real team server process, the Anthropic test server.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { autoMemoryDir, teamMemoryDir } from '../../../src/core/memory/autoMemory/memoryPaths';
import { syncTeamMemory } from '../../../src/core/memory/team/teamSync';
import { runEngram } from '../support/cliProcess';
import { startTeamServerProcess, type TeamServerProcess } from '../support/teamServerProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';

const REPO = 'acme/widgets';
const model = useTestServer();
const tempDir = useTempDirs('all');
let team: TeamServerProcess;
let token: string;

before(async () => {
  await model.ready();
  team = await startTeamServerProcess({ db: path.join(tempDir('engram-team-db-'), 'team.db'), quiet: true });
  token = await team.addToken(REPO);
  const other = tempDir('engram-other-');
  fs.writeFileSync(path.join(other, 'MEMORY.md'), '- [Deploy steps](deploy.md) — make deploy from main\n');
  fs.writeFileSync(
    path.join(other, 'deploy.md'),
    '---\nname: Deploy steps\ndescription: how widgets is deployed\ntype: project\n---\n\nRun make deploy from main.\n',
  );
  const seeded = await syncTeamMemory({ teamDir: other, repo: REPO, serverUrl: team.url, token });
  assert.equal(seeded.ok, true, seeded.error);
});
after(() => team?.stop());

describe('engram -p with team memory', () => {
  it('pulls as the run starts and pushes a team memory the model wrote before it exits', async () => {
    const cwd = tempDir('engram-clone-');
    execFileSync('git', ['init', '-q', cwd]);
    execFileSync('git', ['-C', cwd, 'remote', 'add', 'origin', `https://github.com/${REPO}.git`]);
    const dataDir = tempDir('engram-data-');
    const teamDir = teamMemoryDir(await autoMemoryDir(dataDir, cwd));
    const conventions = path.join(teamDir, 'conventions.md');
    model.enqueue(
      {
        content: [
          {
            type: 'tool_use',
            name: 'Write',
            input: {
              file_path: conventions,
              content:
                '---\nname: Conventions\ndescription: code conventions of widgets\ntype: project\n---\n\nErrors are values.\n',
            },
          },
        ],
      },
      { content: [{ type: 'text', text: 'Saved for the team.' }] },
    );
    const first = model.requests.length;
    const run = await runEngram(
      ['-p', 'Remember for the team: errors are values.', '--cwd', cwd, '--allowed-tools', 'Write'],
      {
        home: tempDir('engram-home-'),
        env: {
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: 'k',
          ENGRAM_DATA_DIR: dataDir,
          ENGRAM_TEAM_SERVER: team.url,
          ENGRAM_TEAM_TOKEN: token,
        },
      },
    );
    assert.equal(run.code, 0, run.stderr);
    const system = JSON.stringify(model.requests[first].body.system);
    assert.match(system, /make deploy from main/, 'the pulled team index is in the first prompt');
    assert.ok(fs.existsSync(path.join(teamDir, 'deploy.md')));
    const stored = await team.readStoredEntries(REPO);
    assert.match(stored['conventions.md'] ?? '', /Errors are values/);
    assert.match(stored['MEMORY.md'] ?? '', /\(conventions\.md\)/);
    assert.match(stored['MEMORY.md'] ?? '', /\(deploy\.md\)/);
  });

  it('leaves team memory off without a team server', async () => {
    const cwd = tempDir('engram-clone-');
    execFileSync('git', ['init', '-q', cwd]);
    execFileSync('git', ['-C', cwd, 'remote', 'add', 'origin', `https://github.com/${REPO}.git`]);
    model.enqueue({ content: [{ type: 'text', text: 'Hello.' }] });
    const first = model.requests.length;
    const run = await runEngram(['-p', 'hi', '--cwd', cwd], {
      home: tempDir('engram-home-'),
      env: { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'k', ENGRAM_DATA_DIR: tempDir('engram-data-') },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(JSON.stringify(model.requests[first].body.system), /Team memory/);
  });
});
