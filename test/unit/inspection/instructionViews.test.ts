// The inspector's list of instruction files (issue 24): AGENTS.md beside CLAUDE.md, each by the path a
// person reads (relative to the project, else from ~), and in an untrusted workspace a flag that the
// project's files were left out, so an empty list is not read as "there are none".
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { instructionLabel } from '../../../src/core/memory/instructions';
import { buildMemoryView } from '../../../src/core/inspection/memoryView';
import { useTempDirs } from '../support/tempDirs';

const tempDir = useTempDirs();

function project(): { cwd: string; configDir: string } {
  const cwd = fs.realpathSync(tempDir('engram-iv-ws-'));
  const configDir = fs.realpathSync(tempDir('engram-iv-data-'));
  fs.writeFileSync(path.join(configDir, 'CLAUDE.md'), 'mine');
  fs.writeFileSync(path.join(cwd, 'AGENTS.md'), 'agents '.repeat(40));
  fs.writeFileSync(path.join(cwd, 'CLAUDE.md'), 'claude');
  return { cwd, configDir };
}

describe('the inspector lists instruction files', () => {
  it('lists AGENTS.md and CLAUDE.md by their path in the project, with scope and tokens', async () => {
    const { cwd, configDir } = project();
    const view = await buildMemoryView({ dir: undefined, instructions: { cwd, configDir, trusted: true } });
    assert.deepEqual(
      view.instructions.map((f) => [f.label, f.scope, f.truncated]),
      [
        [instructionLabel(path.join(configDir, 'CLAUDE.md'), cwd), 'user', false],
        ['AGENTS.md', 'project', false],
        ['CLAUDE.md', 'project', false],
      ],
    );
    assert.ok(view.instructions[1].tokens > view.instructions[2].tokens);
    assert.equal(view.instructions[1].path, path.join(cwd, 'AGENTS.md'));
    assert.equal(view.projectInstructionsSkipped, undefined);
  });

  it("says the project's files were not read in an untrusted workspace, and lists the user's own", async () => {
    const { cwd, configDir } = project();
    const view = await buildMemoryView({ dir: undefined, instructions: { cwd, configDir, trusted: false } });
    assert.deepEqual(
      view.instructions.map((f) => f.scope),
      ['user'],
    );
    assert.equal(view.projectInstructionsSkipped, true);
  });
});

describe('instructionLabel', () => {
  it('shortens to the project folder, else to ~, else leaves the path whole', () => {
    const home = path.join(os.tmpdir(), 'h');
    const cwd = path.join(home, 'code', 'app');
    assert.equal(instructionLabel(path.join(cwd, 'AGENTS.md'), cwd, home), 'AGENTS.md');
    assert.equal(instructionLabel(path.join(cwd, 'docs', 'style.md'), cwd, home), 'docs/style.md');
    assert.equal(instructionLabel(path.join(home, 'code', 'CLAUDE.md'), cwd, home), '~/code/CLAUDE.md');
    assert.equal(instructionLabel(path.join(home, '.engram', 'CLAUDE.md'), undefined, home), '~/.engram/CLAUDE.md');
    assert.equal(instructionLabel('/etc/CLAUDE.md', cwd, home), '/etc/CLAUDE.md');
    assert.equal(instructionLabel(path.join(home, '..x', 'a.md'), undefined, home), '~/..x/a.md');
  });
});
