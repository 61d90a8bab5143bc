// The offline demo answers "Tidy memory" (issue 32): a newcomer on the demo who runs it gets a proposal
// made from the health report alone (a repeated pair merged into the first, a moved file rewritten to
// its new place, a memory naming only what is gone offered for deletion), through the real tidy over
// HTTP, applied only with --yes, as with a real model.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runEngram } from '../support/cliProcess';
import { useTempDirs } from '../support/tempDirs';
import { useTestServer } from '../support/testServerFixture';
import { setupTidyFolder, snapshot } from '../support/tidyFolder';

const server = useTestServer({ demo: true });
const tempDir = useTempDirs('all');

interface Proposal {
  changes: Array<{ id: string; kind: string; files: Array<{ file: string; after: string | null }>; reason: string }>;
  refused: unknown[];
}

describe('the offline demo proposes a memory tidy', () => {
  it('merges the repeated pair, moves the stale path to where the file went, deletes what names only the gone', async () => {
    const home = tempDir('engram-demo-tidy-');
    const dataDir = path.join(home, 'data');
    const ws = path.join(home, 'ws');
    const dir = path.join(dataDir, 'projects', ws.replace(/[^a-zA-Z0-9]/g, '-'), 'memory');
    setupTidyFolder(home, dir);
    const before = snapshot(dir);
    const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url, ENGRAM_DATA_DIR: dataDir };
    const run = await runEngram(['memory', 'tidy', '--cwd', ws, '--json'], { home, env });
    assert.equal(run.code, 0, run.stderr);
    const { proposal } = JSON.parse(run.stdout) as { proposal: Proposal };
    const byKind = (kind: string) => proposal.changes.filter((c) => c.kind === kind);
    const merge = byKind('merge');
    assert.equal(merge.length, 1, JSON.stringify(proposal.changes));
    assert.deepEqual(merge[0].files.map((f) => f.file).sort(), ['feedback_indent.md', 'feedback_tabs.md']);
    const rewrite = byKind('rewrite');
    assert.equal(rewrite.length, 1, JSON.stringify(proposal.changes));
    assert.equal(rewrite[0].files[0].file, 'project_session.md');
    assert.match(rewrite[0].files[0].after ?? '', /src\/session\/session\.ts/);
    assert.doesNotMatch(rewrite[0].files[0].after ?? '', /src\/auth\/session\.ts/);
    const del = byKind('delete');
    assert.deepEqual(
      del.map((c) => c.files[0].file),
      ['project_legacy.md'],
    );
    assert.match(del[0].reason, /npm run deploy-legacy/);
    assert.ok(
      proposal.changes.every((c) => c.files.every((f) => f.file !== 'project_ok.md')),
      'a healthy memory is left alone',
    );
    assert.deepEqual(snapshot(dir), before, 'nothing is applied without --yes');
  });
});
