// Tidy with review over real HTTP: the test server's scripted model answers the one tidy request with a
// merge, a rewrite, a deletion and hostile changes (a `..` path, an absolute path, the index, a file that
// links out); the hostile ones are refused with the reason, a subset is applied with MEMORY.md in the
// same step, undo gives back the exact bytes, a file changed since the proposal stops the apply, and an
// apply that fails (a thrown hook) or is killed (a real process dying between renames) is rolled back.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AnthropicModelClient } from '../../../../src/core/llm/anthropicClient';
import { applyTidy, listTidies, recoverTidy, undoTidy } from '../../../../src/core/memory/tidy/tidyApply';
import { keepPendingTidy, noteSessionForTidy, pendingTidy } from '../../../../src/core/memory/tidy/tidyCadence';
import { proposeTidy, TIDY_REQUEST_MARKER } from '../../../../src/core/memory/tidy/tidyPropose';
import type { TidyProposal } from '../../../../src/core/memory/tidy/tidyTypes';
import { useTempDirs } from '../../support/tempDirs';
import { MEMORIES, MERGED, REWRITE, scriptTidy, setupTidyFolder, snapshot, topic } from '../../support/tidyFolder';
import { useTestServer } from '../../support/testServerFixture';

const server = useTestServer();
const tempDir = useTempDirs();

async function propose(dir: string, ws: string): Promise<TidyProposal> {
  scriptTidy(server);
  const client = new AnthropicModelClient({ apiKey: 'k', baseUrl: server.url });
  return proposeTidy({ client, model: 'claude-test' }, { memoryDir: dir, workspace: ws });
}

describe('memory tidy', () => {
  it('asks the model once with the health and hints, and refuses changes that leave the folder', async () => {
    const { ws, dir, outside } = setupTidyFolder(tempDir('engram-tidy-'));
    const before = server.requests.length;
    const proposal = await propose(dir, ws);
    assert.equal(server.requests.length - before, 1, 'one call');
    const sent = JSON.stringify(server.requests[before].body.messages);
    assert.ok(sent.includes(TIDY_REQUEST_MARKER));
    assert.match(sent, /stale path src\/auth\/session\.ts: [^"]*the workspace now has: src\/session\/session\.ts/);
    assert.match(sent, /stale command npm run deploy-legacy/);
    assert.deepEqual(
      proposal.changes.map((c) => [c.id, c.kind, c.files.map((f) => [f.file, f.after === null])]),
      [
        [
          'c1',
          'merge',
          [
            ['feedback_tabs.md', false],
            ['feedback_indent.md', true],
          ],
        ],
        ['c2', 'rewrite', [['project_session.md', false]]],
        ['c3', 'delete', [['project_legacy.md', true]]],
      ],
    );
    assert.equal(proposal.refused.length, 4);
    assert.match(
      proposal.refused[0].reason,
      /^Refused memory file "\.\.\/x\.md": the file name must not contain "\.\."/,
    );
    assert.match(proposal.refused[1].reason, /^Refused memory file "\/etc\/passwd": the file name must be relative/);
    assert.match(proposal.refused[2].reason, /MEMORY\.md is the index/);
    assert.match(proposal.refused[3].reason, /project_link\.md": it resolves outside the memory folder/);
    for (const r of proposal.refused) assert.match(r.reason, /Changes stay inside the memory folder\.$/);
    assert.equal(fs.readFileSync(outside, 'utf8'), topic('Secret', 'Outside the folder.'));
  });

  it('applies the accepted subset with MEMORY.md in one step, and undo restores the exact bytes', async () => {
    const { ws, dir } = setupTidyFolder(tempDir('engram-tidy-'));
    const proposal = await propose(dir, ws);
    const original = snapshot(dir);
    const record = await applyTidy(dir, proposal, ['c2', 'c3']);
    assert.equal(fs.readFileSync(path.join(dir, 'project_session.md'), 'utf8'), REWRITE);
    assert.equal(fs.existsSync(path.join(dir, 'project_legacy.md')), false);
    const index = fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8');
    assert.doesNotMatch(index, /project_legacy/);
    assert.match(index, /feedback_indent\.md/, 'the merge was not accepted');
    assert.equal(fs.readFileSync(path.join(dir, 'feedback_indent.md'), 'utf8'), MEMORIES['feedback_indent.md']);
    assert.deepEqual(
      (await listTidies(dir)).map((r) => r.id),
      [record.id],
    );
    await undoTidy(dir, record.id);
    assert.deepEqual(snapshot(dir), original);
    assert.deepEqual(await listTidies(dir), []);

    const merge = await applyTidy(dir, proposal, ['c1']);
    assert.equal(fs.readFileSync(path.join(dir, 'feedback_tabs.md'), 'utf8'), MERGED);
    assert.equal(fs.existsSync(path.join(dir, 'feedback_indent.md')), false);
    assert.doesNotMatch(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'), /feedback_indent/);
    await undoTidy(dir, merge.id);
    assert.deepEqual(snapshot(dir), original);
  });

  it('refuses to apply over a file changed since the proposal, and to undo over a later edit', async () => {
    const { ws, dir } = setupTidyFolder(tempDir('engram-tidy-'));
    const proposal = await propose(dir, ws);
    fs.appendFileSync(path.join(dir, 'project_legacy.md'), 'Edited by hand.\n');
    const edited = snapshot(dir);
    await assert.rejects(applyTidy(dir, proposal, ['c2', 'c3']), /project_legacy\.md changed since the tidy/);
    assert.deepEqual(snapshot(dir), edited, 'nothing was written');
    await assert.rejects(applyTidy(dir, proposal, ['c9']), /No change c9/);
    const record = await applyTidy(dir, proposal, ['c2']);
    fs.appendFileSync(path.join(dir, 'project_session.md'), 'Later note.\n');
    await assert.rejects(undoTidy(dir, record.id), /changed after the tidy/);
    await assert.rejects(undoTidy(dir, '../x'), /Not a tidy id/);
  });

  it('puts everything back when the apply fails between renames', async () => {
    const { ws, dir } = setupTidyFolder(tempDir('engram-tidy-'));
    const proposal = await propose(dir, ws);
    const original = snapshot(dir);
    const beforeRename = (_file: string, n: number): void => {
      if (n === 2) throw new Error('disk full');
    };
    await assert.rejects(applyTidy(dir, proposal, ['c1', 'c2', 'c3'], { beforeRename }), /disk full/);
    assert.deepEqual(snapshot(dir), original);
    assert.deepEqual(fs.readdirSync(path.join(dir, '.tidy')), []);
  });

  it('rolls back on the next start a tidy whose process died between renames', async () => {
    const { ws, dir } = setupTidyFolder(tempDir('engram-tidy-'));
    const proposal = await propose(dir, ws);
    const original = snapshot(dir);
    const proposalFile = path.join(path.dirname(dir), 'proposal.json');
    fs.writeFileSync(proposalFile, JSON.stringify(proposal));
    const script = path.join(path.dirname(dir), 'crash.ts');
    const applyModule = path.resolve('src/core/memory/tidy/tidyApply.ts');
    fs.writeFileSync(
      script,
      `import fs from 'node:fs';\nimport { applyTidy } from ${JSON.stringify(applyModule)};\n` +
        `const p = JSON.parse(fs.readFileSync(${JSON.stringify(proposalFile)}, 'utf8'));\n` +
        `void applyTidy(${JSON.stringify(dir)}, p, ['c1', 'c2', 'c3'], { beforeRename: (_f, n) => {\n` +
        `  if (n === 3) process.kill(process.pid, 'SIGKILL');\n} });\n`,
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
    assert.equal(run.signal, 'SIGKILL', run.stderr);
    assert.notDeepEqual(snapshot(dir), original, 'the killed apply had renamed some files');
    const said = await recoverTidy(dir);
    assert.equal(said.length, 1);
    assert.match(said[0], /interrupted/);
    assert.deepEqual(snapshot(dir), original);
    assert.deepEqual(await recoverTidy(dir), [], 'nothing left to recover');
  });

  it('prepares a background tidy at most once a day after five sessions, only when opted in', async () => {
    const { dir } = setupTidyFolder(tempDir('engram-tidy-'));
    const t0 = new Date('2026-01-01T10:00:00Z');
    for (let i = 0; i < 6; i++) assert.equal(await noteSessionForTidy(dir, 'off', t0), false);
    const due: boolean[] = [];
    for (let i = 0; i < 5; i++) due.push(await noteSessionForTidy(dir, 'daily', t0));
    assert.deepEqual(due, [false, false, false, false, true]);
    const proposal: TidyProposal = {
      id: 'p1',
      memoryDir: dir,
      createdAt: t0.toISOString(),
      changes: [{ id: 'c1', kind: 'delete', reason: 'gone', files: [], proposedAt: t0.toISOString() }],
      refused: [],
    };
    await keepPendingTidy(dir, proposal, t0);
    assert.equal((await pendingTidy(dir))?.id, 'p1');
    const soon = new Date(t0.getTime() + 60 * 60_000);
    for (let i = 0; i < 5; i++) assert.equal(await noteSessionForTidy(dir, 'daily', soon), false, 'not twice a day');
    const nextDay = new Date(t0.getTime() + 25 * 60 * 60_000);
    assert.equal(await noteSessionForTidy(dir, 'daily', nextDay), true);
  });
});
