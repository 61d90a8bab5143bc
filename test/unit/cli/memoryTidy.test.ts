// `engram memory tidy` as a user runs it (a real process against the test server over HTTP): without a
// terminal or --yes it prints each change as a unified diff and what was refused, applies nothing and
// says how to apply; with --yes --json it applies every change (MEMORY.md too) and --undo gives back
// the exact bytes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runEngram } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';
import { MEMORIES, scriptTidy, setupTidyFolder, snapshot } from '../support/tidyFolder';

const server = useTestServer();
const tempDir = useTempDirs('all');

function project(): { home: string; ws: string; dir: string; dataDir: string; env: Record<string, string> } {
  const home = tempDir('engram-tidy-cli-');
  const dataDir = path.join(home, 'data');
  const ws = path.join(home, 'ws');
  const dir = path.join(dataDir, 'projects', ws.replace(/[^a-zA-Z0-9]/g, '-'), 'memory');
  setupTidyFolder(home, dir);
  const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url, ENGRAM_DATA_DIR: dataDir };
  return { home, ws, dir, dataDir, env };
}

describe('engram memory tidy', () => {
  it('prints the proposal as unified diffs and applies nothing without --yes off a terminal', async () => {
    const { home, ws, dir, env } = project();
    const original = snapshot(dir);
    scriptTidy(server);
    const run = await runEngram(['memory', 'tidy', '--cwd', ws], { home, env });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\[c1\] merge feedback_tabs\.md \+ feedback_indent\.md: Both say tabs\./);
    assert.match(run.stdout, /--- a\/project_legacy\.md\n\+\+\+ \/dev\/null\n/);
    assert.match(run.stdout, /^-Deploy with npm run deploy-legacy/m);
    assert.match(run.stdout, /^-Sessions are stored by `saveSession` in src\/auth\/session\.ts\.$/m);
    assert.match(run.stdout, /^\+Sessions are stored by `saveSession` in src\/session\/session\.ts\.$/m);
    assert.match(run.stdout, /--- a\/MEMORY\.md\n\+\+\+ b\/MEMORY\.md\n[\s\S]*^-- \[project_legacy\.md\]/m);
    assert.match(run.stdout, /Refused 4 proposed change\(s\):\n {2}rewrite \.\.\/x\.md: Refused memory file/);
    assert.match(run.stdout, /Nothing was applied\. To apply every change: .*memory tidy --yes\n$/);
    assert.deepEqual(snapshot(dir), original);
  });

  it('applies every change with --yes and undoes them with --undo', async () => {
    const { home, ws, dir, env } = project();
    const original = snapshot(dir);
    scriptTidy(server);
    const run = await runEngram(['memory', 'tidy', '--cwd', ws, '--yes', '--json'], { home, env });
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { proposal: { changes: unknown[] }; applied: { id: string } };
    assert.equal(out.proposal.changes.length, 3);
    assert.match(out.applied.id, /^\d{8}T\d+Z-[0-9a-f]{6}$/);
    for (const gone of ['feedback_indent.md', 'project_legacy.md'])
      assert.equal(fs.existsSync(path.join(dir, gone)), false, gone);
    assert.deepEqual(Object.keys(snapshot(dir)).sort(), [
      'MEMORY.md',
      'feedback_tabs.md',
      'project_ok.md',
      'project_session.md',
    ]);
    assert.equal(fs.readFileSync(path.join(dir, 'project_ok.md'), 'utf8'), MEMORIES['project_ok.md']);
    const undo = await runEngram(['memory', 'tidy', '--cwd', ws, '--undo'], { home, env });
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(undo.stdout, /Undid the tidy of .* \(c1, c2, c3\)/);
    assert.deepEqual(snapshot(dir), original);
    const again = await runEngram(['memory', 'tidy', '--cwd', ws, '--undo'], { home, env });
    assert.match(again.stdout, /No applied tidy to undo/);
  });
});
