// Issue 30, the inspector's permission rules: every rule in force with where it came from (the setting,
// the user's file, the project's committed and local files), deny rules first; a project's allow rules
// are left out of an untrusted workspace, its deny rules are not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildRulesView } from '../../../src/core/inspection/rulesView';
import { useTempDirs } from '../support/tempDirs';

describe('the permission rules view', () => {
  const temp = useTempDirs();

  function project(): { dataDir: string; projectRoot: string } {
    const dataDir = temp('engram-data-');
    const projectRoot = temp('engram-project-');
    fs.mkdirSync(path.join(projectRoot, '.engram'));
    fs.writeFileSync(
      path.join(projectRoot, '.engram', 'settings.json'),
      JSON.stringify({ permissions: { allow: ['Bash(npm test:*)'], deny: ['Bash(git push:*)'] } }),
    );
    fs.writeFileSync(
      path.join(projectRoot, '.engram', 'settings.local.json'),
      JSON.stringify({ permissions: { allow: ['mcp__everything__echo'] } }),
    );
    return { dataDir, projectRoot };
  }

  it('lists each rule with its source and file, deny rules first', async () => {
    const { dataDir, projectRoot } = project();
    const rules = await buildRulesView({
      dataDir,
      projectRoot,
      trusted: true,
      settings: { allow: [], deny: ['Read(~/.ssh/**)'] },
    });
    assert.deepEqual(
      rules.map((r) => [r.behavior, r.text, r.source, r.file && path.relative(projectRoot, r.file)]),
      [
        ['deny', 'Read(~/.ssh/**)', 'user', undefined],
        ['deny', 'Bash(git push:*)', 'project', path.join('.engram', 'settings.json')],
        ['allow', 'Bash(npm test:*)', 'project', path.join('.engram', 'settings.json')],
        ['allow', 'mcp__everything__echo', 'local', path.join('.engram', 'settings.local.json')],
      ],
    );
  });

  it("leaves out a project's allow rules in an untrusted workspace, keeping its deny rules", async () => {
    const { dataDir, projectRoot } = project();
    const rules = await buildRulesView({ dataDir, projectRoot, trusted: false, settings: { allow: [], deny: [] } });
    assert.ok(rules.some((r) => r.text === 'Bash(git push:*)' && r.behavior === 'deny'));
    assert.ok(!rules.some((r) => r.text === 'Bash(npm test:*)'));
  });
});
