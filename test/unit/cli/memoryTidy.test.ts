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

describe('engram memory check --model', () => {
  it('adds the pairs the model names to contradicts, with the note marked (model); one call; exit 0', async () => {
    const { home, ws, dir, env } = project();
    const original = snapshot(dir);
    const before = server.requests.length;
    server.enqueue({
      content: [
        {
          type: 'text',
          text: '{"contradictions": [{"a": "project_legacy.md", "b": "project_ok.md", "note": "how to ship: npm run deploy-legacy vs npm test"}]}',
        },
      ],
    });
    const run = await runEngram(['memory', 'check', '--cwd', ws, '--json', '--model'], { home, env });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests.length - before, 1, 'one model call');
    const out = JSON.parse(run.stdout) as {
      memories: Array<{ file: string; contradicts: string[]; contradictionNotes?: string[] }>;
    };
    const legacy = out.memories.find((m) => m.file === 'project_legacy.md');
    const ok = out.memories.find((m) => m.file === 'project_ok.md');
    assert.deepEqual(legacy?.contradicts, ['project_ok.md']);
    assert.deepEqual(legacy?.contradictionNotes, ['how to ship: npm run deploy-legacy vs npm test (model)']);
    assert.deepEqual(ok?.contradicts, ['project_legacy.md']);
    // The local rules' own pair (tabs) is still there, next to the model's.
    const tabs = out.memories.find((m) => m.file === 'feedback_tabs.md');
    assert.ok(tabs, 'feedback_tabs.md is checked');
    assert.deepEqual(snapshot(dir), original, 'a check changes nothing');
  });

  it('a model answer that is not the strict JSON exits 1 with the reason, not "no contradictions"', async () => {
    const { home, ws, env } = project();
    server.enqueue({ content: [{ type: 'text', text: 'They all look fine.' }] });
    const run = await runEngram(['memory', 'check', '--cwd', ws, '--model'], { home, env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /the model's contradiction check failed: /);
  });
});
